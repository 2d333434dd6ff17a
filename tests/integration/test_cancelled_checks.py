"""A cancelled CheckAction, unary or on a CheckActions stream, leaves its approval request PENDING for
approvals.abandoned_after: a reviewer can still decide it, and the agent re-sending the same check with the
same request_id re-attaches and gets the decision (the Python client's documented recovery from a broken
call or stream). Once nobody has waited on it for abandoned_after, the request is CANCELLED ("nobody waits for
it any more"), so reviewers are not left with requests nobody waits for."""

from __future__ import annotations

import sqlite3
import time
import uuid
from datetime import datetime
from pathlib import Path

import grpc
import pytest

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.approvals.requests import ABANDONED
from tests.fakes import FakeClock

from .checkstream import CheckStream
from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

PENDING = supervisor_pb2.APPROVAL_STATE_PENDING
CANCELLED = supervisor_pb2.APPROVAL_STATE_CANCELLED


def _wait_for(cond: object, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(cond) and cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"never: {what}")


def _approval_of(s: RunningSidecar, agent: str) -> supervisor_pb2.Approval:
    found: list[supervisor_pb2.Approval] = []

    def listed() -> bool:
        found[:] = s.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=agent, page_size=10)).approvals
        return bool(found)

    _wait_for(listed, f"an approval request of {agent}")
    return found[0]


def _abandoned_at(s: RunningSidecar, approval_id: str) -> datetime | None:
    stored = s.services.approvals.repo.get(approval_id)
    assert stored is not None
    at: datetime | None = stored.abandoned_at
    return at


def _held(s: RunningSidecar, approval_id: str) -> int:
    held: int = s.services.approvals.held(approval_id)
    return held


def _state(s: RunningSidecar, approval_id: str) -> supervisor_pb2.Approval:
    approval: supervisor_pb2.Approval = s.stub.GetApproval(pb.GetApprovalRequest(approval_id=approval_id)).approval
    return approval


def test_a_cancelled_unary_check_and_a_cancelled_stream_leave_their_approvals_pending(
    s: RunningSidecar, clock: FakeClock
) -> None:
    """Within approvals.abandoned_after (the sidecar's clock does not move here): marked abandoned, still
    PENDING, decidable, and a re-attach clears the mark and gets the decision."""
    s.stub.AddGuardrail(guardrail("cancel-hitl", "hitl", patterns=["deploy"]))
    try:
        unary_agent, stream_agent = f"u-{uuid.uuid4().hex[:8]}", f"s-{uuid.uuid4().hex[:8]}"
        unary = check(unary_agent, "deploy", request_id="u-1")
        fut = s.stub.CheckAction.future(unary, timeout=60)
        first = _approval_of(s, unary_agent)
        _wait_for(lambda: _held(s, first.approval_id) == 1, "the unary call waiting")
        fut.cancel()
        _wait_for(lambda: _abandoned_at(s, first.approval_id) is not None, "the unary call's request marked")

        streamed = check(stream_agent, "deploy", request_id="s-1")
        stream = CheckStream(s.stub, timeout=60)
        stream.send(1, streamed)
        second = _approval_of(s, stream_agent)
        _wait_for(lambda: _held(s, second.approval_id) == 1, "the stream's request waiting")
        stream.cancel()
        _wait_for(lambda: _abandoned_at(s, second.approval_id) is not None, "the stream's request marked")
        assert s.services.approvals.cancel_abandoned() == 0  # abandoned_after has not passed
        for a in (first, second):
            assert _state(s, a.approval_id).state == PENDING

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


def test_a_re_attach_within_the_window_clears_the_mark_and_is_never_cancelled(
    s: RunningSidecar, clock: FakeClock
) -> None:
    s.stub.AddGuardrail(guardrail("window-hitl", "hitl", patterns=["deploy"]))
    try:
        agent = f"w-{uuid.uuid4().hex[:8]}"
        req = check(agent, "deploy", request_id="w-1")
        stream = CheckStream(s.stub, timeout=60)
        stream.send(1, req)
        approval = _approval_of(s, agent)
        _wait_for(lambda: _held(s, approval.approval_id) == 1, "the stream waiting")
        # A unary re-send waits on the same request: two waiters; the stream going leaves one.
        back = s.stub.CheckAction.future(req, timeout=60)
        _wait_for(lambda: _held(s, approval.approval_id) == 2, "two waiters")
        stream.cancel()
        _wait_for(lambda: _held(s, approval.approval_id) == 1, "the stream gone")
        s.services.approvals.attend()  # what the job does: nothing to mark while a call waits
        assert _abandoned_at(s, approval.approval_id) is None
        back.cancel()
        _wait_for(lambda: _abandoned_at(s, approval.approval_id) is not None, "marked once both are gone")
        clock.advance(s.services.approvals.abandoned_after / 2)  # within the window: a re-attach
        again = s.stub.CheckAction.future(req, timeout=60)
        _wait_for(lambda: _abandoned_at(s, approval.approval_id) is None, "the re-attach clears the mark")
        clock.advance(s.services.approvals.abandoned_after * 2)
        assert s.services.approvals.cancel_abandoned() == 0
        s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=approval.approval_id, approve=True))
        answer = again.result(timeout=30)
        assert answer.allowed and answer.approval.approval_id == approval.approval_id
    finally:
        s.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="window-hitl"))


def test_requests_nobody_waits_for_are_cancelled_after_abandoned_after(tmp_path: Path) -> None:
    """On the real clock, approvals.abandoned_after = 1 s: the requests of a cancelled unary call, of a
    cancelled stream and of a unary call past its deadline end CANCELLED by the system; a later re-send with
    the request id is told so."""
    with RunningSidecar(make_config(tmp_path, approvals_abandoned_after=1.0)) as s:
        s.stub.AddGuardrail(guardrail("gone-hitl", "hitl", patterns=["deploy"]))
        unary_agent, stream_agent = f"u-{uuid.uuid4().hex[:8]}", f"s-{uuid.uuid4().hex[:8]}"
        unary = check(unary_agent, "deploy", request_id="u-1")
        fut = s.stub.CheckAction.future(unary, timeout=60)
        first = _approval_of(s, unary_agent)
        _wait_for(lambda: _held(s, first.approval_id) == 1, "the unary call waiting")
        fut.cancel()

        stream = CheckStream(s.stub, timeout=60)
        stream.send(1, check(stream_agent, "deploy", request_id="s-1"))
        second = _approval_of(s, stream_agent)
        _wait_for(lambda: _held(s, second.approval_id) == 1, "the stream's request waiting")
        stream.cancel()

        # A unary call whose deadline ended it (the client gave up) leaves its request the same way.
        deadline_agent = f"d-{uuid.uuid4().hex[:8]}"
        with pytest.raises(grpc.RpcError) as ended:
            s.stub.CheckAction(check(deadline_agent, "deploy", request_id="d-1"), timeout=5)
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        third = _approval_of(s, deadline_agent)

        for a in (first, second, third):
            _wait_for(lambda a=a: _state(s, a.approval_id).state == CANCELLED, f"{a.approval_id} cancelled", 60)
            got = _state(s, a.approval_id)
            assert (got.decided_by, got.comment) == ("system", ABANDONED)
        # Audited as every cancellation is, with the reason.
        audit = {r.subject: r for r in s.services.audit.repo.iter_all() if r.action == "approval.cancel"}
        for a in (first, second, third):
            assert (audit[a.approval_id].actor, audit[a.approval_id].details["reason"]) == ("system", ABANDONED)
        again = s.stub.CheckAction(unary, timeout=30)
        assert not again.allowed and again.reason == f"Approval cancelled by system: {ABANDONED}"
        assert again.approval.approval_id == first.approval_id


def test_a_sidecar_that_stops_marks_the_requests_its_calls_were_waiting_on(tmp_path: Path) -> None:
    """A graceful stop ends the waiting calls (the agents re-attach elsewhere); their requests are marked, so
    they are cancelled as abandoned unless an agent comes back for them."""
    config = make_config(tmp_path)
    agent = f"stop-{uuid.uuid4().hex[:8]}"
    s = RunningSidecar(config)
    try:
        s.stub.AddGuardrail(guardrail("stop-hitl", "hitl", patterns=["deploy"]))
        waiting = s.stub.CheckAction.future(check(agent, "deploy", request_id="st-1"), timeout=60)
        approval = _approval_of(s, agent)
        _wait_for(lambda: _held(s, approval.approval_id) == 1, "the call waiting")
    finally:
        s.stop()
    assert waiting.exception(timeout=30) is not None  # the stop ended it
    with sqlite3.connect(config.data_dir / "outrider.db") as db:
        row = db.execute(
            "SELECT state, abandoned_at FROM approvals WHERE approval_id = ?", (approval.approval_id,)
        ).fetchone()
    assert row[0] == "PENDING" and row[1] is not None
