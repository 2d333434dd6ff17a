"""The integrations' examples (examples/), each run as its own process against a live sidecar."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from outrider.v1 import supervisor_service_pb2 as pb
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


def run_agent_example(sidecar: RunningSidecar, path: str) -> list[str]:
    """Runs an agent example as its own process; approves what it says it waits for, as a reviewer would."""
    sidecar.stub.AddGuardrail(guardrail("keep-notes", "action_list", deny=["delete_note"]))
    sidecar.stub.AddGuardrail(guardrail("release-review", "hitl", patterns=["deploy"]))
    env = {
        **os.environ,
        "OUTRIDER_TARGET": sidecar.sidecar.target,
        "OUTRIDER_TOKEN": sidecar.issue(PrincipalKind.AGENT, "support-bot"),
    }
    proc = subprocess.Popen(
        [sys.executable, path], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if m := re.search(r"waiting for a reviewer \((apr_[0-9a-f]+)\)", line):
                sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=m.group(1), approve=True))
        assert proc.wait(60) == 0, (lines, proc.stderr.read() if proc.stderr else "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    return [re.sub(r"apr_[0-9a-f]+", "apr_…", line) for line in lines]


BLOCKED = "Blocked by Outrider (keep-notes): Action 'delete_note' is denied by keep-notes"


@pytest.mark.parametrize(
    "example", ["examples/pydantic-ai/agent.py", "examples/langchain/agent.py", "examples/openai-agents/agent.py"]
)
def test_agent_examples(sidecar: RunningSidecar, example: str) -> None:
    assert run_agent_example(sidecar, example) == [
        "list_notes: q3, retro",
        f"delete_note: {BLOCKED}",
        "deploy: waiting for a reviewer (apr_…)",
        "deploy: deployed 1.4 to prod",
        "agent: done",
    ]
