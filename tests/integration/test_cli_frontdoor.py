"""`outrider` as a user runs it (a subprocess): global options before the command, no setting a command does
not use, nothing but the command's output on stdout, a busy gRPC port in one line with exit 2."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

SLACK = "OUTRIDER_TEST_UNSET_SLACK_URL"

CONFIG = f"""
storage: {{data_dir: DATA}}
notifications:
  channels:
    - {{name: slack-deploys, kind: slack, url_env: {SLACK}}}
guardrails:
  - {{name: review, kind: hitl, patterns: [deploy], notify: [slack-deploys]}}
"""


def outrider(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != SLACK and not k.startswith("OUTRIDER_")}
    return subprocess.run(
        [sys.executable, "-m", "server", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def config(tmp_path: Path) -> str:
    path = tmp_path / "outrider.yaml"
    path.write_text(CONFIG.replace("DATA", str(tmp_path / "data")), encoding="utf-8")
    return str(path)


def test_tokens_need_no_notification_secret_and_print_only_their_output(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    issued = outrider("--config", cfg, "tokens", "issue", "--agent", "bot-1", cwd=tmp_path)  # option first
    assert issued.returncode == 0, issued.stderr
    assert re.fullmatch(r"otr_[A-Za-z0-9_-]+\n", issued.stdout), issued.stdout  # the secret, alone

    issued = outrider("tokens", "issue", "--operator", "ana", "--config", cfg, cwd=tmp_path)  # option after
    assert issued.returncode == 0, issued.stderr

    listed = outrider("--config", cfg, "tokens", "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("TOKEN ID") and len(lines) == 3
    assert {line.split()[2] for line in lines[1:]} == {"bot-1", "ana"}
    assert "audit_checkpoint" not in listed.stdout + issued.stdout  # a log line, on stderr if anywhere

    # The commands that deliver notifications still refuse the unset variable, naming it.
    checked = outrider("check-config", "--config", cfg, cwd=tmp_path)
    assert checked.returncode == 2 and SLACK in checked.stderr and checked.stdout == ""


def test_version(tmp_path: Path) -> None:
    done = outrider("--version", cwd=tmp_path)
    assert done.returncode == 0 and re.fullmatch(r"outrider \S+\n", done.stdout), done


def test_a_busy_grpc_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = outrider(
            "serve", "--listen", f"127.0.0.1:{port}", "--no-console", "--data-dir", str(tmp_path / "d"), cwd=tmp_path
        )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"outrider: cannot start: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


def test_a_command_on_a_migrated_database_loads_neither_alembic_nor_the_postgresql_driver(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    first = outrider("--data-dir", data, "tokens", "issue", "--agent", "bot-1", cwd=tmp_path)  # creates, migrates
    assert first.returncode == 0, first.stderr
    probe = (
        "import sys\n"
        "from server.__main__ import main\n"
        f"code = main(['--data-dir', {data!r}, 'tokens', 'issue', '--agent', 'bot-2'])\n"
        "heavy = ('alembic', 'mako', 'pygments', 'psycopg')\n"
        "print('LOADED', code, sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.splitlines()[-1] == "LOADED 0 []", done.stdout + done.stderr
    listed = outrider("--data-dir", data, "tokens", "list", cwd=tmp_path)
    assert {line.split()[2] for line in listed.stdout.splitlines()[1:]} == {"bot-1", "bot-2"}
