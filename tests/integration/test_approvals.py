"""Human approvals over real gRPC: waiting, deciding, re-attaching, timeouts, edits, many at once."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import common_pb2, supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.approvals.requests import ApprovalState, Reviewer
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail, struct

PENDING, APPROVED, REJECTED, EXPIRED = (
    supervisor_pb2.APPROVAL_STATE_PENDING,
    supervisor_pb2.APPROVAL_STATE_APPROVED,
    supervisor_pb2.APPROVAL_STATE_REJECTED,
    supervisor_pb2.APPROVAL_STATE_EXPIRED,
)


def hitl(s: RunningSidecar, name: str = "", **options: Any) -> None:
    options.setdefault("patterns", ["deploy", "delete"])
    s.stub.AddGuardrail(guardrail(name, "hitl", **options))


def pending(s: RunningSidecar, n: int, timeout: float = 30) -> list[Any]:
    """Wait until exactly n requests are pending; returns them."""
    deadline = time.monotonic() + timeout
    while True:
        items = list(s.stub.ListApprovals(pb.ListApprovalsRequest(state=PENDING, page_size=1000)).approvals)
        if len(items) >= n or time.monotonic() > deadline:
            assert len(items) == n, f"{len(items)} pending, expected {n}"
            return items
        time.sleep(0.02)


def decide(s: RunningSidecar, approval_id: str, approve: bool, comment: str = "", **kw: Any) -> Any:
    return s.stub.DecideApproval(
        pb.DecideApprovalRequest(approval_id=approval_id, approve=approve, comment=comment, **kw)
    )


def test_contains_ignoring_case_and_non_matching_is_allowed(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    r = sidecar.stub.CheckAction(check(action="read-file"))
    assert r.allowed and not r.HasField("approval")
    fut = sidecar.stub.CheckAction.future(check(action="REDEPLOY-cache", request_id="r1"))
    [a] = pending(sidecar, 1)
    assert (a.agent_id, a.action, a.guardrail, a.request_id) == ("agent-1", "REDEPLOY-cache", "hitl-approval", "r1")
    assert len(a.digest) == 64 and a.HasField("create_time") and not a.HasField("expire_time")
    decide(sidecar, a.approval_id, True)
    r = fut.result(10)
    assert (r.allowed, r.reason, r.guardrail) == (True, "Approved by test-operator", "hitl-approval")
    assert r.approval.state == APPROVED and r.approval.decided_by == "test-operator"


def test_approved_continues_the_chain_and_rejected_blocks_with_the_comment(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    fut = sidecar.stub.CheckAction.future(check(action="deploy", context={"cost": 140}))
    decide(sidecar, pending(sidecar, 1)[0].approval_id, True)
    r = fut.result(10)
    assert (r.allowed, r.reason, r.guardrail) == (False, "Cost 140 is over the cap", "cap")
    fut = sidecar.stub.CheckAction.future(check(action="deploy", context={"cost": 1}))
    decide(sidecar, pending(sidecar, 1)[0].approval_id, False, "not on a Friday")
    r = fut.result(10)
    assert (r.allowed, r.severity, r.reason) == (
        False,
        common_pb2.SEVERITY_BLOCK,
        "Rejected by test-operator: not on a Friday",
    )
    assert r.approval.state == REJECTED and r.approval.comment == "not on a Friday"


def test_deadline_leaves_the_request_pending_and_a_retry_reattaches(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    req = check(action="deploy", context={"env": "prod"}, request_id="job-7")
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.CheckAction(req, timeout=0.5)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    [a] = pending(sidecar, 1)
    with pytest.raises(grpc.RpcError):
        sidecar.stub.CheckAction(req, timeout=0.3)  # re-attaches: still the same single request
    [again] = pending(sidecar, 1)
    assert again.approval_id == a.approval_id
    decide(sidecar, a.approval_id, True)  # decided while the agent was away
    # The guardrail has no timeout: a retry that did not find the decision would wait for one until its
    # deadline. Answering within it, allowed, proves the retry took the decision made while it was away.
    r = sidecar.stub.CheckAction(req, timeout=30)
    assert r.allowed and r.approval.approval_id == a.approval_id


def test_a_retry_with_a_different_context_is_a_new_request(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    with pytest.raises(grpc.RpcError):
        sidecar.stub.CheckAction(check(action="deploy", context={"v": 1}, request_id="same"), timeout=0.3)
    with pytest.raises(grpc.RpcError):
        sidecar.stub.CheckAction(check(action="deploy", context={"v": 2}, request_id="same"), timeout=0.3)
    assert len({a.digest for a in pending(sidecar, 2)}) == 2


def test_non_blocking_mode_get_and_watch(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    r = sidecar.stub.CheckAction(check(action="delete-db", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
    assert (r.allowed, r.approval.state, r.guardrail) == (False, PENDING, "hitl-approval")
    assert r.reason == f"Waiting for approval {r.approval.approval_id}"
    aid = r.approval.approval_id
    assert sidecar.stub.GetApproval(pb.GetApprovalRequest(approval_id=aid)).approval.state == PENDING
    stream = sidecar.stub.WatchApproval(pb.WatchApprovalRequest(approval_id=aid), timeout=10)
    first = next(stream)
    assert first.approval.state == PENDING
    timer = threading.Timer(0.2, lambda: decide(sidecar, aid, False, "no"))
    timer.start()
    states = [m.approval.state for m in stream]
    timer.join(10)
    assert states[-1] == REJECTED


def test_first_decision_stands_and_reject_needs_a_comment(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    sidecar.stub.CheckAction(check(action="deploy", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
    [a] = pending(sidecar, 1)
    with pytest.raises(grpc.RpcError) as err:
        decide(sidecar, a.approval_id, False, "   ")
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_info(err.value).metadata["field"] == "comment"
    decide(sidecar, a.approval_id, True)
    with pytest.raises(grpc.RpcError) as err:
        decide(sidecar, a.approval_id, False, "too late")
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already APPROVED" in (err.value.details() or "")
    assert sidecar.stub.GetApproval(pb.GetApprovalRequest(approval_id=a.approval_id)).approval.state == APPROVED
    with pytest.raises(grpc.RpcError) as err:
        decide(sidecar, "apr_nope", True)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_agents_cannot_decide_and_see_only_their_own(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    me, other = sidecar.as_agent("agent-1"), sidecar.as_agent("agent-2")
    r = me.stub.CheckAction(check("agent-1", "deploy", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
    aid = r.approval.approval_id
    with pytest.raises(grpc.RpcError) as err:
        me.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=aid, approve=True))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED  # never its own request
    assert me.stub.GetApproval(pb.GetApprovalRequest(approval_id=aid)).approval.agent_id == "agent-1"
    with pytest.raises(grpc.RpcError) as err:
        other.stub.GetApproval(pb.GetApprovalRequest(approval_id=aid))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert (
        me.stub.CancelApproval(pb.CancelApprovalRequest(approval_id=aid, reason="changed my mind")).approval.state
        == supervisor_pb2.APPROVAL_STATE_CANCELLED
    )


def test_timeout_deny_on_the_real_clock(sidecar: RunningSidecar) -> None:
    hitl(sidecar, timeout="1s")
    t0 = time.perf_counter()
    r = sidecar.stub.CheckAction(check(action="deploy"), timeout=60)  # nobody decides: only the timeout ends it
    elapsed = time.perf_counter() - t0
    assert (r.allowed, r.reason, r.approval.state) == (False, "approval timed out", EXPIRED)
    assert elapsed > 0.9  # it waited for the 1 s timeout (a lower bound: a slow machine only adds to it)
    assert r.approval.decided_by == "system"


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[RunningSidecar, FakeClock]]:
    clock = FakeClock()
    with RunningSidecar(make_config(tmp_path), clock=clock, with_scheduler=False) as s:
        yield s, clock


def test_timeout_escalate_then_expire(clocked: tuple[RunningSidecar, FakeClock]) -> None:
    s, clock = clocked
    hitl(
        s,
        timeout="10m",
        on_timeout="escalate",
        escalate_to=["boss"],
        escalate_timeout="1h",
        approvers=["test-operator"],
    )
    fut = s.stub.CheckAction.future(check(action="deploy"))
    [a] = pending(s, 1)
    approvals = s.services.approvals
    clock.advance(599)
    assert approvals.expire_due() == 0
    clock.advance(2)
    assert approvals.expire_due() == 1
    escalated = approvals.get(a.approval_id)
    assert (escalated.state, escalated.stage, escalated.approvers) == (ApprovalState.PENDING, 1, ("boss",))
    with pytest.raises(grpc.RpcError) as err:  # the first approvers no longer decide
        decide(s, a.approval_id, True)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    clock.advance(3601)
    assert approvals.expire_due() == 1
    r = fut.result(10)
    assert (r.allowed, r.reason, r.approval.state) == (False, "approval timed out", EXPIRED)


def test_n_of_m_and_no_self_review(sidecar: RunningSidecar) -> None:
    hitl(sidecar, approvers=["alice", "bob", "group:sre"], min_approvals=2, prevent_self_review=True)
    sidecar.stub.RegisterAgent(
        pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="agent-1", labels={"owner": "carol"}))
    )
    fut = sidecar.stub.CheckAction.future(check(action="deploy"))
    [a] = pending(sidecar, 1)
    svc = sidecar.services.approvals
    carol = Reviewer("carol", "approver", frozenset({"sre"}))
    with pytest.raises(Exception, match="may not review"):
        svc.decide(a.approval_id, carol, True, "")
    with pytest.raises(Exception, match="not among the approvers"):
        svc.decide(a.approval_id, Reviewer("mallory", "approver"), True, "")
    with pytest.raises(Exception, match="viewer role"):
        svc.decide(a.approval_id, Reviewer("alice", "viewer"), True, "")
    assert svc.decide(a.approval_id, Reviewer("alice", "approver"), True, "").state is ApprovalState.PENDING
    with pytest.raises(Exception, match="already voted"):
        svc.decide(a.approval_id, Reviewer("alice", "approver"), True, "")
    done = svc.decide(a.approval_id, Reviewer("dave", "approver", frozenset({"sre"})), True, "ok")
    assert done.state is ApprovalState.APPROVED and done.decided_by == "alice, dave"
    assert fut.result(10).allowed


def test_edit_then_approve_reruns_the_chain_with_the_edited_context(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    hitl(sidecar)
    ctx = {"cost": 50, "target": "prod", "password": "s3cret"}
    fut = sidecar.stub.CheckAction.future(check(action="deploy", context=ctx))
    [a] = pending(sidecar, 1)
    assert dict(a.context)["password"] == "***"  # reviewers never see secrets
    edited = {"cost": 20, "target": "staging", "password": "***"}
    decide(sidecar, a.approval_id, True, edited_context=struct(edited))
    r = fut.result(10)
    assert r.allowed
    assert dict(r.effective_context) == {"cost": 20.0, "target": "staging", "password": "s3cret"}
    # An edit that breaks a rule is caught by the re-run, from the start of the chain.
    fut = sidecar.stub.CheckAction.future(check(action="deploy", context=ctx))
    [a] = pending(sidecar, 1)
    decide(sidecar, a.approval_id, True, edited_context=struct({"cost": 500}))
    r = fut.result(10)
    assert (r.allowed, r.reason) == (False, "Cost 500 is over the cap")


def test_edits_can_require_a_fresh_approval(sidecar: RunningSidecar) -> None:
    hitl(sidecar, edits_require_approval=True)
    fut = sidecar.stub.CheckAction.future(check(action="deploy", context={"n": 1}))
    [a] = pending(sidecar, 1)
    decide(sidecar, a.approval_id, True, edited_context=struct({"n": 2}))
    [b] = pending(sidecar, 1)
    assert b.approval_id != a.approval_id and dict(b.context) == {"n": 2.0}
    decide(sidecar, b.approval_id, True)
    r = fut.result(10)
    assert r.allowed and dict(r.effective_context) == {"n": 2.0}


def test_approval_patterns_change_at_runtime_and_persist(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    with RunningSidecar(config) as s:
        hitl(s, patterns=["deploy"])
        r = s.stub.AddApprovalPattern(pb.AddApprovalPatternRequest(pattern="pay"))
        assert list(r.patterns) == ["deploy", "pay"]
        assert list(s.stub.RemoveApprovalPattern(pb.RemoveApprovalPatternRequest(pattern="deploy")).patterns) == ["pay"]
        with pytest.raises(grpc.RpcError) as err:
            s.stub.AddApprovalPattern(pb.AddApprovalPatternRequest(guardrail="nope", pattern="x"))
        assert err.value.code() == grpc.StatusCode.NOT_FOUND
    with RunningSidecar(config) as s:
        assert s.stub.CheckAction(check(action="deploy")).allowed
        r = s.stub.CheckAction(check(action="payout", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
        assert r.approval.state == PENDING


def test_bad_hitl_options_are_invalid_argument(sidecar: RunningSidecar) -> None:
    for options in (
        {"patterns": ["x"], "on_timeout": "approve"},
        {"patterns": ["x"], "on_timeout": "escalate"},
        {},
        {"patterns": ["x"], "min_approvals": 0},
    ):
        with pytest.raises(grpc.RpcError) as err:
            sidecar.stub.AddGuardrail(guardrail("h", "hitl", **options))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, options


def test_200_agents_waiting_at_once_each_get_their_own_answer(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    futures = {
        f"a-{i}": sidecar.stub.CheckAction.future(check(f"a-{i}", "deploy", {"i": i}), timeout=60) for i in range(200)
    }
    items = pending(sidecar, 200, timeout=30)
    random.Random(7).shuffle(items)
    for a in items:
        n = int(a.agent_id.split("-")[1])
        decide(sidecar, a.approval_id, n % 2 == 0, f"no for {a.agent_id}")
    for agent, fut in futures.items():
        r = fut.result(30)
        n = int(agent.split("-")[1])
        assert r.allowed == (n % 2 == 0), agent
        if n % 2:
            assert r.reason == f"Rejected by test-operator: no for {agent}"
        assert r.approval.agent_id == agent
