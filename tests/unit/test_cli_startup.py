"""The command line's shape without running a command: global options before or after the command,
`--version`, and `--help` listing every command without importing the modules behind them."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.__main__ import _MODULE_COMMANDS, _parser, command_of


def subcommands(p: argparse.ArgumentParser) -> dict[str, str]:
    (action,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return {a.dest: str(a.help) for a in action._choices_actions}


def test_help_lists_every_command_as_the_commands_themselves_describe_it() -> None:
    assert subcommands(_parser("")) == subcommands(_parser())
    assert {name for name, *_ in _MODULE_COMMANDS} <= set(subcommands(_parser("")))


@pytest.mark.parametrize(
    "argv",
    [
        ["--config", "c.yaml", "--data-dir", "d", "tokens", "list"],
        ["tokens", "list", "--config", "c.yaml", "--data-dir", "d"],
        ["--config", "c.yaml", "tokens", "list", "--data-dir", "d"],
    ],
    ids=["before", "after", "both"],
)
def test_global_options_before_or_after_the_command(argv: list[str]) -> None:
    assert command_of(argv) == "tokens"
    args = _parser(command_of(argv)).parse_args(argv)
    assert (args.command, args.tokens_command, args.config, args.data_dir) == ("tokens", "list", "c.yaml", "d")


def test_an_option_after_the_command_wins_over_the_same_before_it() -> None:
    argv = ["--data-dir", "first", "agents", "list", "--data-dir", "second", "--no-console"]
    args = _parser(command_of(argv)).parse_args(argv)
    assert args.data_dir == "second" and args.no_console is True


def test_a_global_option_is_still_parsed_for_a_module_command() -> None:
    argv = ["--db-url", "sqlite:///x.db", "users", "list"]
    args = _parser(command_of(argv)).parse_args(argv)
    assert args.db_url == "sqlite:///x.db" and args.users_command == "list"


HEAVY = (
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "grpc",
    "opentelemetry",
    "flask",
    "yaml",
    "server.storage",
    "server.config",
)


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(flag: str) -> None:
    probe = (
        "import sys\n"
        "from server.__main__ import main\n"
        "try:\n"
        f"    main([{flag!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('LOADED', sorted(m for m in sys.modules if m.startswith({HEAVY!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.splitlines()[-1] == "LOADED []"
    if flag == "--version":
        assert done.stdout.splitlines()[0].startswith("outrider ")


def test_the_migration_fast_path_knows_the_heads_alembic_knows() -> None:
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

    from server.storage.db import MIGRATIONS, script_heads

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert script_heads() == frozenset(ScriptDirectory.from_config(cfg).get_heads())


# What `tokens issue` on an existing database must not load: every table's mapping, the guardrails (CEL),
# the recovery and decision-log services, OpenTelemetry, gRPC, Alembic, Flask, ICU, the PostgreSQL dialect.
TOKENS_HEAVY = (
    "server.storage.tables",
    "server.storage.supervisor",
    "server.domain.guardrails",
    "server.services.recovery.feature",
    "server.services.supervisor.decision_log",
    "opentelemetry",
    "grpc",
    "alembic",
    "flask",
    "icu",
    "sqlalchemy.dialects.postgresql",
)


def test_tokens_issue_imports_only_what_it_uses(tmp_path: Path) -> None:
    config = tmp_path / "outrider.yaml"
    config.write_text("guardrails: []\n", encoding="utf-8")
    argv = ["tokens", "issue", "--config", str(config), "--data-dir", str(tmp_path / "data")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OUTRIDER_")}

    def issue(agent: str) -> subprocess.CompletedProcess[str]:
        probe = (
            "import sys\n"
            "from server.__main__ import main\n"
            f"code = main({[*argv, '--agent', agent]!r})\n"
            f"print('LOADED', code, sorted(m for m in sys.modules if m.startswith({TOKENS_HEAVY!r})))\n"
        )
        return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)

    first = issue("startup-probe-1")  # creates the database (Alembic, every table)
    assert first.returncode == 0, first.stderr
    done = issue("startup-probe-2")
    assert done.returncode == 0, done.stderr
    secret, loaded = done.stdout.splitlines()[-2:]
    assert secret.startswith("otr_")
    assert loaded == "LOADED 0 []"


def test_workers_takes_a_number_or_auto() -> None:
    """`serve --workers auto` is one worker per CPU this process may run on; anything else but a number is a
    usage error, not a traceback."""
    parse = _parser("").parse_args
    assert parse(["serve", "--workers", "3"]).workers == 3
    assert parse(["serve", "--workers", "auto"]).workers == len(os.sched_getaffinity(0))
    assert parse(["serve"]).workers == 1
    with pytest.raises(SystemExit):
        parse(["serve", "--workers", "many"])
