"""The README's example, run as its own process the way a reader runs it: against a sidecar with `make
run`'s configuration (outrider.example.yaml, authentication disabled), a reviewer approving on the console.

The outputs it promises in its comments (`print(...)  # False Cost 140 ...`) are what it must print."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from console import create_app
from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.config import load_config

from .consolekit import PASSWORD, htmx_post, sign_in
from .harness import RunningSidecar

ROOT = Path(__file__).resolve().parents[2]
HEADING = "## Check an action, wait for an approval"


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert HEADING in text, f"README.md lost its section {HEADING!r}"
    match = re.search(r"```python\n(.*?)```", text[text.index(HEADING) :], re.S)
    assert match, "no python block in the README's example section"
    return match.group(1)


def promised_output(code: str) -> list[str]:
    return [line.split("  # ", 1)[1] for line in code.splitlines() if "print(" in line and "  # " in line]


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[RunningSidecar]:
    """`make run`: `outrider serve --config outrider.example.yaml` with OUTRIDER_AUTH_ENABLED=false."""
    cfg = load_config(str(ROOT / "outrider.example.yaml"), env={"OUTRIDER_AUTH_ENABLED": "false"})
    cfg = replace(cfg, listen="127.0.0.1:0", console_enabled=False, data_dir=tmp_path / "data", shutdown_grace=1.0)
    assert not cfg.auth_enabled
    with RunningSidecar(cfg) as s:
        s.services.users.add("ada", "approver", "", PASSWORD, "test")
        yield s


def test_the_readme_example_checks_an_action_and_waits_for_the_approval(demo: RunningSidecar) -> None:
    code = readme_example()
    expected = promised_output(code)
    assert len(expected) == 2, expected
    env = {**os.environ, "OUTRIDER_TARGET": demo.sidecar.target}
    env.pop("OUTRIDER_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        # The second check waits for a person: the reviewer finds it on the console and approves it there.
        request = pb.ListApprovalsRequest(agent_id="release-agent", state=supervisor_pb2.APPROVAL_STATE_PENDING)
        give_up = time.monotonic() + 30
        pending: list[supervisor_pb2.Approval] = []
        while not pending and proc.poll() is None and time.monotonic() < give_up:
            pending = list(demo.stub.ListApprovals(request).approvals)
            if not pending:
                time.sleep(0.05)  # the example runs in its own process: nothing to inject a clock into
        assert pending, f"no approval request appeared; the example exited {proc.poll()}"
        (approval,) = pending
        assert approval.action == "deploy_production" and approval.guardrail == "release-review"
        app = create_app(demo.services)
        app.testing = True
        browser = app.test_client()
        token = sign_in(browser, "ada")
        decided = htmx_post(browser, f"/approvals/{approval.approval_id}/decide", token, decision="approve")
        assert decided.status_code == 200, decided.text[:500]
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, f"the README example exited {proc.returncode}:\n{out}\n{err}"
    assert out.splitlines() == expected
