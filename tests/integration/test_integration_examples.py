"""The integrations' examples (examples/), each run as its own process against a sidecar with `make run`'s
configuration (outrider.example.yaml, authentication disabled): the demo policy carries every guardrail the
examples and their pages need (keep-notes, release-review), nothing is added here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from outrider.v1 import supervisor_service_pb2 as pb
from server.config import load_config
from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    """`make run`: `outrider serve --config outrider.example.yaml` with OUTRIDER_AUTH_ENABLED=false."""
    cfg = load_config(str(ROOT / "outrider.example.yaml"), env={"OUTRIDER_AUTH_ENABLED": "false"})
    cfg = replace(cfg, listen="127.0.0.1:0", console_enabled=False, data_dir=tmp_path / "data", shutdown_grace=1.0)
    assert not cfg.auth_enabled
    with RunningSidecar(cfg) as s:
        yield s


def test_mcp_gateway_example(sidecar: RunningSidecar) -> None:
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
        "deploy_production: waiting for a reviewer (apr_…)",
        "deploy_production: deployed 1.4 to production",
        "agent: done",
    ]
