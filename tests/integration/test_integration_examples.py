"""The integrations' examples (examples/), each run as its own process against a live sidecar."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar
from .rpc import guardrail

ROOT = Path(__file__).resolve().parents[2]


def test_mcp_gateway_example(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("keep-notes", "action_list", deny=["delete_note"]))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",  # an active virtualenv
        "OUTRIDER_TARGET": sidecar.sidecar.target,
        "OUTRIDER_TOKEN": sidecar.issue(PrincipalKind.AGENT, "support-bot"),
    }
    done = subprocess.run(
        [sys.executable, "examples/mcp-gateway/client.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "tools: ['add_note', 'list_notes']",
        "add_note: added 'q3'",
        "delete_note: REFUSED Blocked by Outrider (keep-notes): Action 'delete_note' is denied by keep-notes",
    ]
