"""Approvals survive SIGKILL, and a decision taken in another process reaches the waiting agent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail
from .test_process import ROOT, Proc

PENDING = supervisor_pb2.APPROVAL_STATE_PENDING


def wait_pending(stub: object, n: int) -> list[object]:
    deadline = time.monotonic() + 30
    while True:
        items = list(stub.ListApprovals(pb.ListApprovalsRequest(state=PENDING, page_size=100)).approvals)  # type: ignore[attr-defined]
        if len(items) >= n or time.monotonic() > deadline:
            assert len(items) == n
            return items
        time.sleep(0.05)


def test_sigkill_with_20_pending_then_decide_them_all(tmp_path: Path) -> None:
    p = Proc(tmp_path)
    p.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    requests = {i: check(f"agent-{i}", "deploy", {"i": i}, request_id=f"req-{i}") for i in range(20)}
    futures = [p.stub.CheckAction.future(r, timeout=30) for r in requests.values()]
    wait_pending(p.stub, 20)
    assert p.close(signal.SIGKILL) == -signal.SIGKILL
    for f in futures:
        assert f.exception(10) is not None  # the agents lost their calls with the process

    p = Proc(tmp_path)
    try:
        items = wait_pending(p.stub, 20)
        for a in items:
            n = int(a.agent_id.split("-")[1])  # type: ignore[attr-defined]
            p.stub.DecideApproval(
                pb.DecideApprovalRequest(
                    approval_id=a.approval_id,
                    approve=n % 3 != 0,  # type: ignore[attr-defined]
                    comment="not this one",
                )
            )
        # Each agent re-attaches with its request id and gets the decision taken while it was away.
        for i, req in requests.items():
            r = p.stub.CheckAction(req, timeout=5)
            assert r.allowed == (i % 3 != 0), i
            assert r.approval.request_id == f"req-{i}"
        assert wait_pending(p.stub, 0) == []
    finally:
        p.close()


def test_a_decision_in_another_process_reaches_the_waiting_agent(tmp_path: Path) -> None:
    """The guardrail has no timeout: only the decision made by the other process (seen by the approvals'
    250 ms poll) can answer the waiting call. How soon is measured by `make bench`, not asserted here."""
    config = make_config(tmp_path)
    with RunningSidecar(config) as s:
        s.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
        fut = s.stub.CheckAction.future(check(action="deploy"), timeout=180)
        [a] = wait_pending(s.stub, 1)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.integration.decide_elsewhere",
                str(config.data_dir),
                a.approval_id,
                "reject",
                "remote-reviewer",
            ],
            check=True,
            env=env,
            cwd=ROOT,
            timeout=60,
        )  # type: ignore[attr-defined]
        r = fut.result(120)
        assert (r.allowed, r.reason) == (False, "Rejected by remote-reviewer: rejected elsewhere by remote-reviewer")
