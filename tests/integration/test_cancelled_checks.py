"""A cancelled CheckAction, unary or on a CheckActions stream, leaves its approval request PENDING: a reviewer
can still decide it, and the agent re-sending the same check with the same request_id re-attaches and gets
the decision (the Python client's documented recovery from a broken call or stream)."""

from __future__ import annotations

import time
import uuid

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb

from .checkstream import CheckStream
from .harness import RunningSidecar
from .rpc import check, guardrail

PENDING = supervisor_pb2.APPROVAL_STATE_PENDING


def _approval_of(s: RunningSidecar, agent: str) -> supervisor_pb2.Approval:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = s.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=agent, page_size=10)).approvals
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no approval request of {agent}")


def _still_pending(s: RunningSidecar, approval_id: str) -> None:
    # Given time to be cancelled if anything were going to (a bounded wait, not a timing assertion).
    time.sleep(0.5)
    got = s.stub.GetApproval(pb.GetApprovalRequest(approval_id=approval_id)).approval
    assert got.state == PENDING, "cancelling the call cancelled its approval request"


def test_a_cancelled_unary_check_and_a_cancelled_stream_leave_their_approvals_pending(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("cancel-hitl", "hitl", patterns=["deploy"]))
    try:
        unary_agent, stream_agent = f"u-{uuid.uuid4().hex[:8]}", f"s-{uuid.uuid4().hex[:8]}"
        unary = check(unary_agent, "deploy", request_id="u-1")
        fut = s.stub.CheckAction.future(unary, timeout=60)
        first = _approval_of(s, unary_agent)
        fut.cancel()
        _still_pending(s, first.approval_id)

        streamed = check(stream_agent, "deploy", request_id="s-1")
        stream = CheckStream(s.stub, timeout=60)
        stream.send(1, streamed)
        second = _approval_of(s, stream_agent)
        stream.cancel()
        _still_pending(s, second.approval_id)

        for a in (first, second):
            s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=a.approval_id, approve=True))
        # Re-sent with the same request id (unary, and on a new stream): each re-attaches to its decision.
        again = s.stub.CheckAction(unary, timeout=30)
        assert again.allowed and again.approval.approval_id == first.approval_id
        fresh = CheckStream(s.stub, timeout=60)
        try:
            fresh.send(7, streamed)
            [answer] = fresh.wait(7, timeout=30)
            assert answer.response.allowed and answer.response.approval.approval_id == second.approval_id
        finally:
            fresh.cancel()
    finally:
        s.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="cancel-hitl"))
