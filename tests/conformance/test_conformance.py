"""The Python conformance driver over every scenario of tests/conformance/scenarios.json.

Under tests/conformance/run.sh it talks to the sidecar that script started (OUTRIDER_CONFORMANCE_ADDRESS);
in a plain pytest run it starts its own the same way: tokens issued with `outrider tokens issue` on the
database first (server.cli.tokens), then the sidecar on tests/conformance/sidecar.yaml.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
from pathlib import Path

from server.cli.tokens import run_tokens
from server.config import load_config
from tests.integration.harness import RunningSidecar

from . import driver

SIDECAR_YAML = Path(__file__).with_name("sidecar.yaml")


def _issue(kind: str, subject: str, data_dir: Path) -> str:
    """`outrider tokens issue` on the database, as run.sh does: the secret is the one line on stdout."""
    args = argparse.Namespace(tokens_command="issue", description="conformance", agent=None, operator=None)
    setattr(args, kind, subject)
    config = load_config(str(SIDECAR_YAML), {"data_dir": data_dir}, env={})
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert run_tokens(args, config) == 0
    return out.getvalue().strip()


def test_python_driver_passes_every_scenario(tmp_path: Path) -> None:
    suite = driver.load()
    address = os.environ.get("OUTRIDER_CONFORMANCE_ADDRESS")
    if address:
        outcome = driver.run(address, driver.env_tokens(list(suite["credentials"])))
    else:
        data_dir = tmp_path / "data"
        tokens = {name: _issue(c["kind"], c["subject"], data_dir) for name, c in suite["credentials"].items()}
        overrides = {"listen": "127.0.0.1:0", "data_dir": data_dir, "console_enabled": False}
        with RunningSidecar(load_config(str(SIDECAR_YAML), overrides, env={})) as sidecar:
            outcome = driver.run(sidecar.sidecar.target, tokens)
    print("\n".join(outcome.lines))
    print(f"conformance python: {outcome.passed} passed, {outcome.failed} failed")
    assert outcome.passed == len(suite["scenarios"]) and outcome.failed == 0, "\n".join(outcome.lines)
