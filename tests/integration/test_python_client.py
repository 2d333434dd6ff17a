"""The Python client against a real sidecar: results, typed errors, waiting through re-attaches."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from outrider import (
    AsyncClient,
    Client,
    DeadlineExceededError,
    InvalidArgumentError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from server.domain.access.principals import PrincipalKind
from server.domain.approvals.requests import ApprovalFilter, Reviewer

from .harness import RunningSidecar
from .rpc import guardrail


def client(s: RunningSidecar, token: str | None) -> Client:
    return Client(s.sidecar.target, token, timeout=5)


def test_check_action_results_and_typed_errors(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    sidecar.stub.AddGuardrail(guardrail("w", "action_list", deny=["noisy"], mode="warn"))
    with client(sidecar, sidecar.issue(PrincipalKind.AGENT, "worker-1")) as c:
        r = c.check_action("worker-1", "pay", {"cost": 140})
        assert (r.allowed, r.reason, r.severity, r.guardrail) == (False, "Cost 140 is over the cap", "BLOCK", "cap")
        r = c.check_action("worker-1", "noisy", {"cost": 1})
        assert r.allowed and r.severity == "WARNING" and r.warnings[0].guardrail == "w"
        with pytest.raises(InvalidArgumentError) as bad:
            c.check_action("worker-1", "")
        assert bad.value.field == "action" and bad.value.reason == "INVALID_FIELD"
        with pytest.raises(PermissionDeniedError) as denied:
            c.check_action("someone-else", "pay")
        assert denied.value.reason == "NOT_YOUR_AGENT"
    with client(sidecar, "otr_wrong") as c, pytest.raises(UnauthenticatedError):
        c.check_action("worker-1", "pay")


def test_check_action_waits_for_a_person_across_re_attaches(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    approvals = sidecar.services.approvals

    def approve_later() -> None:
        deadline = time.monotonic() + 30
        while not approvals.pending() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.2)  # longer than two attach intervals: the client re-attaches meanwhile
        approvals.decide(approvals.pending()[0].approval_id, Reviewer("alice", "approver"), True, "ship it")

    t = threading.Thread(target=approve_later)
    t.start()
    with client(sidecar, sidecar.operator_secret) as c:
        r = c.check_action("worker-1", "deploy", {"v": 2}, attach_interval=0.5)
    t.join()
    assert (r.allowed, r.approval_state, r.reason) == (True, "APPROVED", "Approved by alice")
    assert len(approvals.list(ApprovalFilter(), 10, "").items) == 1  # one request, however many re-attaches


def test_approval_timeout_leaves_the_request_pending_and_non_blocking_mode(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    with client(sidecar, sidecar.operator_secret) as c:
        with pytest.raises(DeadlineExceededError):
            c.check_action("worker-1", "deploy", request_id="r-1", approval_timeout=0.6, attach_interval=0.25)
        assert len(sidecar.services.approvals.pending()) == 1
        r = c.check_action("worker-1", "deploy", request_id="r-1", wait=False)
        assert r.pending and not r.allowed and r.approval_id


def test_async_client(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=1))

    async def go() -> list[bool]:
        async with AsyncClient(sidecar.sidecar.target, sidecar.operator_secret) as c:
            results = await asyncio.gather(*(c.check_action(f"a-{i}", "x", {"cost": i % 3}) for i in range(30)))
            return [r.allowed for r in results]

    assert asyncio.run(go()) == [i % 3 <= 1 for i in range(30)]
