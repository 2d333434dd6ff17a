"""Configuration: file < OUTRIDER_* env < flags, and errors that name the file, key and problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ConfigError, load_config


def write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "outrider.yaml"
    p.write_text(text)
    return str(p)


def test_defaults_without_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = load_config(None, env={})
    assert (cfg.listen, cfg.console_listen, cfg.data_dir) == ("127.0.0.1:50051", "127.0.0.1:8080", Path(".outrider"))
    assert cfg.database_url().startswith("sqlite:///") and cfg.config_path is None


def test_precedence_file_env_flags(tmp_path: Path) -> None:
    path = write(tmp_path, "server: {listen: '127.0.0.1:1'}\nlog: {format: json}\n")
    cfg = load_config(path, env={})
    assert (cfg.listen, cfg.log_format) == ("127.0.0.1:1", "json")
    cfg = load_config(path, env={"OUTRIDER_LISTEN": "127.0.0.1:2"})
    assert cfg.listen == "127.0.0.1:2"
    cfg = load_config(path, {"listen": "unix:/tmp/o.sock"}, env={"OUTRIDER_LISTEN": "127.0.0.1:2"})
    assert cfg.listen == "unix:/tmp/o.sock"


def test_config_file_from_env(tmp_path: Path) -> None:
    path = write(tmp_path, "storage: {db_url: 'postgresql+psycopg://u@h/db'}\n")
    assert load_config(None, env={"OUTRIDER_CONFIG": path}).database_url() == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize(
    "text, key, problem",
    [
        ("server: {listen: nowhere}\n", "server.listen", "is not HOST:PORT"),
        ("server: {lisen: '1.2.3.4:5'}\n", "server.lisen", "unknown key"),
        ("servr: {}\n", "servr", "unknown section"),
        ("decision_log: {retention: {max_age: soon}}\n", "decision_log.retention.max_age", "not a duration"),
        ("log: {format: xml}\n", "log.format", "must be one of text, json"),
        ("server: {max_context_bytes: -1}\n", "server.max_context_bytes", "above 0"),
        ("approvals: {abandoned_after: soon}\n", "approvals.abandoned_after", "not a duration"),
        ("approvals: {abandoned_after: 0}\n", "approvals.abandoned_after", "must be a positive duration"),
    ],
)
def test_bad_values_name_file_key_and_problem(tmp_path: Path, text: str, key: str, problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    assert err.value.source == path and err.value.key == key and problem in str(err.value)
    assert str(err.value).startswith(f"{path}: {key}: ")


def test_bad_yaml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "server: [unclosed\n"), env={})
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_config(str(tmp_path / "missing.yaml"), env={})


def test_bad_env_value_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="OUTRIDER_LOG_FORMAT"):
        load_config(None, env={"OUTRIDER_LOG_FORMAT": "xml", "OUTRIDER_CONFIG": write(tmp_path, "")})


def test_actions_allowed_scripts_and_explain_agents(tmp_path: Path) -> None:
    cfg = load_config(
        write(tmp_path, "actions: {allowed_scripts: [cyrillic, Grek]}\nexplain: {agents: false}\n"), env={}
    )
    assert (cfg.action_scripts, cfg.explain_agents) == (frozenset({"Cyrillic", "Greek"}), False)
    cfg = load_config(write(tmp_path, "actions: {}\n"), env={})
    assert (cfg.action_scripts, cfg.explain_agents) == (frozenset(), True)
    for text, problem in (
        ("actions: {allowed_scripts: [Klingon]}\n", "'Klingon' is not a Unicode script name"),
        ("actions: {allowed_scripts: Cyrillic}\n", "must be a list of Unicode script names"),
        ("explain: {agents: maybe}\n", "must be true or false"),
    ):
        with pytest.raises(ConfigError) as err:
            load_config(write(tmp_path, text), env={})
        assert problem in err.value.problem
        assert err.value.key in ("actions.allowed_scripts", "explain.agents")


def test_approvals_abandoned_after(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "approvals: {}\n"), env={}).approvals_abandoned_after == 60.0
    assert load_config(write(tmp_path, "approvals: {abandoned_after: 90s}\n"), env={}).approvals_abandoned_after == 90.0
