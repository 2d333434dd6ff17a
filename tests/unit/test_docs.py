"""The docs site against the code it describes: every config key, variable, guardrail option and CLI flag
that exists in code is on its reference page, the README stays an introduction, and no page cites a rule
source by a number.

Config keys are found by asking the real parsers: a mapping with one unknown key makes each parser name
the keys it knows, so a key added anywhere shows up here without this test being told about it."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.__main__ import _config_flags, _parser
from server.config import _ENV, ConfigError, from_file, read_yaml
from server.domain.errors import InvalidArgument
from server.domain.guardrails.factory import KINDS
from server.domain.guardrails.policy import parse_guardrails
from server.domain.values import parse_duration
from server.services.supervisor.plugins import PluginModules
from server.telemetry.settings import ENV as TELEMETRY_ENV

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PROBE = "zz_probe"
KNOWN = re.compile(r"unknown (?:key|section); known (?:keys|sections): (.+)$")
# Lists of mappings: each entry's keys are documented as `list[].key`.
LISTS = {
    "recovery.policies": lambda entry: {"recovery": {"policies": [entry]}},
    "reversibility": lambda entry: {"reversibility": [entry]},
    "reversibility[].compensating": lambda entry: {
        "reversibility": [{"action": "a", "level": "irreversible", "compensating": [entry]}]
    },
}


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def nest(path: tuple[str, ...], leaf: Any) -> Any:
    for key in reversed(path):
        leaf = {key: leaf}
    return leaf


def known_keys(data: Any, where: str) -> list[str] | None:
    """The keys the parser names when `data` holds PROBE at `where`, or None when `where` is no section."""
    try:
        from_file(None, data)
    except ConfigError as exc:
        match = KNOWN.search(exc.problem)
        if match and exc.key in (f"{where}.{PROBE}", where):
            return [k.strip() for k in match.group(1).split(",")]
    return None


def sections(tmp_path: Path) -> list[str]:
    path = tmp_path / "probe.yaml"
    path.write_text(f"{PROBE}: 1\n")
    with pytest.raises(ConfigError) as exc:
        read_yaml(path)
    match = KNOWN.search(exc.value.problem)
    assert match, exc.value
    return [k.strip() for k in match.group(1).split(",")]


def walk(path: tuple[str, ...]) -> Iterator[str]:
    """Every dotted key under `path`, by probing the parsers."""
    keys = known_keys(nest(path, {PROBE: 1}), ".".join(path))
    if keys is None:
        yield ".".join(path)
        return
    for key in keys:
        yield from walk((*path, key))


def config_keys(tmp_path: Path) -> list[str]:
    keys = [key for section in sections(tmp_path) for key in walk((section,))]
    for name, wrap in LISTS.items():
        where = re.sub(r"\[\]", "[0]", name) + "[0]"
        entry_keys = known_keys(wrap({PROBE: 1}), where)
        assert entry_keys, f"{name}: the parser no longer names its entries' keys"
        keys += [f"{name}[].{key}" for key in entry_keys]
    return keys


def test_the_probe_finds_the_keys_it_must(tmp_path: Path) -> None:
    keys = config_keys(tmp_path)
    for key in (
        "server.listen",
        "decision_log.retention.max_age",
        "telemetry.sampler_arg",
        "recovery.cascade.kill_reason",
        "safeguards.budgets.min_context.low",
        "safeguards.leases.keys",
        "recovery.policies[].cooldown",
        "reversibility[].compensating[].time_window",
    ):
        assert key in keys
    assert len(keys) > 60


def test_every_config_key_is_on_the_configuration_page(tmp_path: Path) -> None:
    text = page("configuration.md")
    missing = [key for key in config_keys(tmp_path) if f"`{key}`" not in text]
    assert not missing, f"docs/configuration.md does not describe {missing}"


def test_breaker_key_overrides_take_the_documented_breaker_settings() -> None:
    overrides = known_keys(nest(("safeguards", "breakers", "keys", "*"), {PROBE: 1}), "safeguards.breakers.keys.*")
    assert overrides
    text = page("configuration.md")
    assert not [k for k in overrides if f"`safeguards.breakers.{k}`" not in text]


def test_every_variable_is_on_the_configuration_page() -> None:
    text = page("configuration.md")
    variables = [var for var, _, _ in _ENV] + [var for var, _, _ in TELEMETRY_ENV]
    variables += ["OUTRIDER_CONFIG", "OTEL_SDK_DISABLED"]
    missing = [var for var in variables if f"`{var}" not in text]
    assert not missing, f"docs/configuration.md does not name {missing}"


def guardrail_options(kind: str) -> list[str]:
    if kind == "plugin":  # other keys go to the plugin's constructor
        return ["class", "timeout"]
    with pytest.raises(InvalidArgument) as exc:
        parse_guardrails([{"name": "x", "kind": kind, PROBE: 1}], PluginModules([]))
    match = re.search(r"known options: (.+)$", exc.value.message)
    assert match, exc.value.message
    return [k.strip() for k in match.group(1).split(",")]


@pytest.mark.parametrize("kind", KINDS)
def test_every_guardrail_option_is_in_its_row_of_the_chain_page(kind: str) -> None:
    rows = [line for line in page("concepts/chain.md").splitlines() if line.startswith(f"| `{kind}` |")]
    assert len(rows) == 1, f"docs/concepts/chain.md has no row for the guardrail kind {kind!r}"
    missing = [option for option in guardrail_options(kind) if f"`{option}`" not in rows[0]]
    assert not missing, f"docs/concepts/chain.md: {kind} lacks {missing}"


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))
            return
    yield " ".join(path), parser


def flags_of(parser: argparse.ArgumentParser) -> list[str]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        out += [max(action.option_strings, key=len)] if action.option_strings else [action.dest]
    return out


def cli_sections() -> dict[str, str]:
    """`### outrider tokens issue` -> its text, up to the next heading."""
    parts = re.split(r"^#+ `outrider ([a-z -]+)`$", page("cli.md"), flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_cli_command_and_flag_is_on_the_cli_page() -> None:
    shared = argparse.ArgumentParser()
    _config_flags(shared)
    config_flags = set(flags_of(shared))
    documented = cli_sections()
    text = page("cli.md")
    assert not [flag for flag in config_flags if f"`{flag}" not in text], "the config flags are not all on the page"
    for command, parser in commands(_parser()):
        assert command in documented, f"docs/cli.md has no section `outrider {command}`"
        section = documented[command]
        flags = set(flags_of(parser))
        if config_flags <= flags:
            assert "(#config-flags)" in section, f"`outrider {command}` does not point to the config flags"
            flags -= config_flags
        missing = [flag for flag in flags if f"`{flag}" not in section]
        assert not missing, f"docs/cli.md: `outrider {command}` lacks {missing}"


def test_the_readme_is_an_introduction() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150
    assert lines[3].startswith("make run ") and lines[4].startswith("make test "), lines[:6]


def test_no_page_cites_a_rule_source_by_number() -> None:
    files = [ROOT / "README.md", *DOCS.rglob("*.md")]
    cited = [str(f.relative_to(ROOT)) for f in files if re.search(r"\bseeds?\b", f.read_text(encoding="utf-8"), re.I)]
    assert not cited, f"name the source instead (docs/semantics.md): {cited}"


def test_the_readme_links_to_files_that_exist() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)]+)\)", text) if not t.startswith(("http", "#"))]
    assert targets
    assert not [t for t in targets if not (ROOT / t).exists()], "README.md links to missing files"


def shown(value: Any) -> str:
    """A default as the configuration page writes it: durations as `30s`, `200ms`, `7d`."""
    if isinstance(value, bool):
        return str(value).lower()
    if hasattr(value, "name"):  # an enum
        return str(value.name).lower()
    return str(value)


class Seconds(float):
    """A duration default: the page may write it in any unit (`60s`, `24h`, `7d`)."""


def duration(seconds: float) -> Seconds:
    return Seconds(seconds)


def code_defaults() -> dict[str, str | Seconds]:
    from server.config import Config
    from server.domain.recovery import cascade, ladder
    from server.domain.safeguards.breakers import BreakerConfig
    from server.services.notifications.settings import NotificationSettings
    from server.services.recovery.feature import RecoverySettings
    from server.services.safeguards.settings import BudgetSettings, LeaseSettings, SafeguardSettings
    from server.telemetry.settings import TelemetrySettings

    c, t, r, b = Config(), TelemetrySettings(), RecoverySettings(), BreakerConfig()
    d, budgets, leases = c.decision_log, BudgetSettings(), LeaseSettings()
    defaults: dict[str, str | Seconds] = {
        "server.listen": c.listen,
        "server.insecure": shown(c.insecure),
        "server.shutdown_grace": duration(c.shutdown_grace),
        "server.max_context_bytes": str(c.max_context_bytes),
        "server.max_message_bytes": str(c.max_message_bytes),
        "console.enabled": shown(c.console_enabled),
        "console.listen": c.console_listen,
        "storage.data_dir": f"./{c.data_dir}",
        "log.format": c.log_format,
        "log.level": c.log_level,
        "decision_log.queue_size": str(d.queue_size),
        "decision_log.batch_size": str(d.batch_size),
        "decision_log.flush_interval": duration(d.flush_interval),
        "decision_log.retention.max_rows": str(d.max_rows),
        "decision_log.retention.max_age": duration(d.max_age or 0),
        "auth.enabled": shown(c.auth_enabled),
        "limits.requests_per_second": f"{c.requests_per_second:g}",
        "limits.burst": str(c.burst),
        "audit.sensitive_keys": f"[{', '.join(c.sensitive_keys)}]",
        "telemetry.protocol": t.protocol,
        "telemetry.service_name": t.service_name,
        "telemetry.sampler": t.sampler,
        "telemetry.metrics": shown(t.metrics),
        "telemetry.metrics_exporters": f"[{', '.join(t.metrics_exporters)}]",
        "telemetry.metrics_interval": duration(t.metrics_interval),
        "telemetry.recent_traces": str(t.recent_traces),
        "recovery.policies[].group": "default",
        "recovery.policies[].max_retries": str(ladder.DEFAULT_MAX_RETRIES),
        "recovery.policies[].escalate_after": str(ladder.DEFAULT_ESCALATE_AFTER),
        "recovery.policies[].cooldown": duration(ladder.DEFAULT_COOLDOWN),
        "recovery.policies[].default_action": shown(ladder.DEFAULT_ACTION),
        "recovery.cascade.window": duration(cascade.CascadePolicy().window),
        "recovery.cascade.threshold": str(cascade.CascadePolicy().threshold),
        "recovery.cascade.action": shown(cascade.CascadePolicy().action),
        "recovery.cascade.kill_reason": shown(cascade.CascadePolicy().kill_reason),
        "recovery.monitor_interval": duration(r.monitor_interval),
        "recovery.callback_timeout": duration(r.callback_timeout),
        "recovery.handoff_timeout": duration(r.handoff_timeout),
        "recovery.command_timeout": duration(r.command_timeout),
        "recovery.event_max_rows": str(r.event_max_rows),
        "safeguards.breakers.failure_threshold": str(b.failure_threshold),
        "safeguards.breakers.recovery_timeout": duration(b.recovery_timeout),
        "safeguards.breakers.half_open_max_calls": str(b.half_open_max_calls),
        "safeguards.breakers.strategy": shown(b.strategy),
        "safeguards.breakers.permit_ttl": duration(b.permit_ttl),
        "safeguards.budgets.global": str(budgets.global_total),
        "safeguards.budgets.reservation_ttl": duration(budgets.reservation_ttl),
        "safeguards.episodes.max_episodes": str(SafeguardSettings().max_episodes),
        "safeguards.leases.slots": str(leases.slots.default),
        "safeguards.leases.ttl": duration(leases.ttl),
    }
    n = NotificationSettings()
    defaults["notifications.retry_for"] = duration(n.retry.give_up_after)
    defaults["notifications.poll_interval"] = duration(n.poll_interval)
    defaults["notifications.claim_timeout"] = duration(n.claim_timeout)
    defaults["notifications.retention"] = duration(n.retention)
    for priority, tokens in budgets.min_context.items():
        defaults[f"safeguards.budgets.min_context.{priority.name.lower()}"] = str(tokens)
    return defaults


def test_the_configuration_page_gives_the_defaults_the_code_has() -> None:
    rows = {}
    for line in page("configuration.md").splitlines():
        match = re.match(r"\| `([^`]+)` \| `([^`]*)`", line)
        if match:
            rows[match.group(1)] = match.group(2)

    def same(written: str | None, want: str | Seconds) -> bool:
        if written is None:
            return False
        if isinstance(want, Seconds):
            return parse_duration(written, "default") == want
        return written == want

    wrong = {key: (rows.get(key), want) for key, want in code_defaults().items() if not same(rows.get(key), want)}
    assert not wrong, f"docs/configuration.md: (page, code) defaults differ: {wrong}"
