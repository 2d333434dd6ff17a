"""Abandoned approval requests in a fleet (two sidecar processes on one PostgreSQL): the mark is in the
database, so a re-attach on B clears a mark made on A; a mark A makes while B serves the request is cleared
by B and never cancels it; a request nobody re-attaches to is cancelled once, whichever sidecar's job gets
there first. approvals.abandoned_after is a few seconds here; every wait is bounded and nothing asserts how
long anything took."""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import psycopg
import pytest

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.checkstream import CheckStream
from tests.integration.rpc import check, guardrail

from .conftest import _pg
from .harness import Fleet, SidecarProc, wait_until

AFTER = 6.0  # approvals.abandoned_after: long enough to re-attach within, on a loaded machine
CONFIG = f"approvals:\n  abandoned_after: {AFTER:g}s\n"
PENDING = supervisor_pb2.APPROVAL_STATE_PENDING
CANCELLED = supervisor_pb2.APPROVAL_STATE_CANCELLED


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("abandoned")
    (tmp / "outrider.yaml").write_text(CONFIG)
    for url in _pg():
        f = Fleet(tmp, url, count=2, config=tmp / "outrider.yaml")
        try:
            f[0].supervisor.AddGuardrail(guardrail("abandon-hitl", "hitl", patterns=["deploy"]))
            wait_until(functools.partial(_has_guardrail, f[1], "abandon-hitl"), "B runs A's guardrail")
            yield f
        finally:
            f.close()


def _has_guardrail(s: SidecarProc, name: str) -> bool:
    return name in [g.name for g in s.supervisor.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]


def _row(fleet: Fleet, sql: str, *args: object) -> Any:
    with psycopg.connect(fleet.db_url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        return conn.execute(sql, args).fetchone()


def _mark(fleet: Fleet, approval_id: str) -> datetime | None:
    found = _row(fleet, "SELECT abandoned_at FROM approvals WHERE approval_id = %s", approval_id)
    assert found is not None
    mark: datetime | None = found[0]
    return mark


def _approval(s: SidecarProc, agent: str) -> str:
    found: list[str] = []

    def listed() -> bool:
        found[:] = [
            a.approval_id for a in s.supervisor.ListApprovals(pb.ListApprovalsRequest(agent_id=agent)).approvals
        ]
        return bool(found)

    wait_until(listed, f"the request of {agent}")
    return found[0]


def _state(s: SidecarProc, approval_id: str) -> supervisor_pb2.Approval:
    approval: supervisor_pb2.Approval = s.supervisor.GetApproval(
        pb.GetApprovalRequest(approval_id=approval_id)
    ).approval
    return approval


def _past_the_window(since: float) -> None:
    """Give every sidecar's job the chance to cancel (a bounded wait, not a timing assertion)."""
    time.sleep(max(0.0, since + AFTER + 3.0 - time.monotonic()))


def test_a_re_attach_on_b_clears_the_mark_made_on_a_and_gets_the_decision(pair: Fleet) -> None:
    a, b = pair[0], pair[1]
    agent = f"ab-{uuid.uuid4().hex[:8]}"
    req = check(agent, "deploy", request_id="ab-1")
    gone = a.supervisor.CheckAction.future(req, timeout=120)
    approval_id = _approval(a, agent)
    time.sleep(0.2)  # A's call waits on it by now
    gone.cancel()
    wait_until(lambda: _mark(pair, approval_id) is not None, "A marks the request abandoned", 30)
    marked = time.monotonic()
    back = b.supervisor.CheckAction.future(req, timeout=120)  # the agent re-sends through B
    wait_until(lambda: _mark(pair, approval_id) is None, "B's re-attach clears A's mark", 30)
    _past_the_window(marked)
    assert _state(b, approval_id).state == PENDING, "a request waited on through B was cancelled"
    a.supervisor.DecideApproval(pb.DecideApprovalRequest(approval_id=approval_id, approve=True))
    answer = back.result(timeout=60)
    assert answer.allowed and answer.approval.approval_id == approval_id


def test_a_mark_a_makes_while_b_serves_the_request_never_cancels_it(pair: Fleet) -> None:
    a, b = pair[0], pair[1]
    agent = f"stale-{uuid.uuid4().hex[:8]}"
    req = check(agent, "deploy", request_id="stale-1")
    stream = CheckStream(a.supervisor, timeout=120)
    stream.send(1, req)
    approval_id = _approval(a, agent)
    back = b.supervisor.CheckAction.future(req, timeout=120)  # re-attached on B while A's stream still waits
    time.sleep(0.5)  # B's call waits on it by now
    stream.cancel()  # A's last waiter goes: A marks a request that B serves
    broke = time.monotonic()
    _past_the_window(broke)
    assert _state(b, approval_id).state == PENDING, "a stale mark from A cancelled the request B serves"
    wait_until(lambda: _mark(pair, approval_id) is None, "B clears the stale mark", 30)
    a.supervisor.DecideApproval(pb.DecideApprovalRequest(approval_id=approval_id, approve=True))
    answer = back.result(timeout=60)
    assert answer.allowed and answer.approval.approval_id == approval_id


def test_a_request_nobody_waits_for_is_cancelled_once_by_the_fleet(pair: Fleet) -> None:
    a, b = pair[0], pair[1]
    agent = f"gone-{uuid.uuid4().hex[:8]}"
    stream = CheckStream(b.supervisor, timeout=120)
    stream.send(1, check(agent, "deploy", request_id="gone-1"))
    approval_id = _approval(a, agent)
    time.sleep(0.2)
    stream.cancel()
    wait_until(lambda: _state(a, approval_id).state == CANCELLED, "the abandoned request cancelled", 60)
    got = _state(b, approval_id)
    assert (got.decided_by, got.comment) == ("system", "nobody waits for it any more")
    # Both sidecars run the job; the conditional update lets one of them cancel, and audit, once.
    _past_the_window(time.monotonic() - AFTER)
    (count,) = _row(
        pair, "SELECT count(*) FROM audit_log WHERE action = 'approval.cancel' AND subject = %s", approval_id
    )
    assert count == 1
