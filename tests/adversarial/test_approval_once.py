"""Case 3 of issue 12: one approval, unlimited uses. Re-sending the same request id, action and context after
the approval was delivered returned `allowed` 20 times out of 20; ten concurrent CheckActions with one
request id created two or three approval requests. An approval now grants one action, and identical
requests are one request (a unique index, on SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from tests.fakes import FakeClock
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.recovery_sim import eventually
from tests.integration.rpc import check, guardrail

NON_BLOCKING = pb.WAIT_MODE_NON_BLOCKING
PENDING = supervisor_pb2.APPROVAL_STATE_PENDING


@pytest.fixture
def s_any_db(tmp_path: Path, db_url: str, clock: FakeClock) -> Iterator[RunningSidecar]:
    # 40 calls of one agent at once: above the default per-agent in-flight cap, which is not what is tested here.
    with RunningSidecar(make_config(tmp_path, db_url=db_url, max_inflight_per_agent=64), clock=clock) as sidecar:
        yield sidecar


def _deploy(request_id: str = "r1", **kw: Any) -> pb.CheckActionRequest:
    return check("w1", "deploy", {"env": "prod"}, request_id=request_id, **kw)


def _approve(s: RunningSidecar, approval_id: str) -> None:
    s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=approval_id, approve=True, comment="ok"))


def test_an_approval_is_delivered_once(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("h", "hitl", patterns=["deploy"]))
    me = s.as_agent("w1")
    first = me.stub.CheckAction(_deploy(wait_mode=NON_BLOCKING))
    assert not first.allowed and first.approval.state == PENDING
    _approve(s, first.approval.approval_id)
    # The first re-attach (its answer to the waiting call was lost) gets the allowed answer...
    delivered = me.stub.CheckAction(_deploy(wait_mode=NON_BLOCKING))
    assert delivered.allowed and delivered.approval.HasField("consume_time")
    # ...and every later identical request is told the approval was used.
    for _ in range(20):
        again = me.stub.CheckAction(_deploy(wait_mode=NON_BLOCKING))
        assert not again.allowed and again.guardrail == "h"
        assert f"approval {first.approval.approval_id} was already used" in again.reason
    stored = s.stub.GetApproval(pb.GetApprovalRequest(approval_id=first.approval.approval_id)).approval
    assert stored.HasField("consume_time")


def test_on_reuse_ask_again_opens_a_new_request(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("h", "hitl", patterns=["deploy"], on_reuse="ask_again"))
    me = s.as_agent("w1")
    first = me.stub.CheckAction(_deploy(wait_mode=NON_BLOCKING)).approval
    _approve(s, first.approval_id)
    assert me.stub.CheckAction(_deploy(wait_mode=NON_BLOCKING)).allowed
    second = me.stub.CheckAction(_deploy(wait_mode=NON_BLOCKING))
    assert not second.allowed and second.approval.state == PENDING
    assert second.approval.approval_id != first.approval_id


def test_concurrent_identical_requests_are_one_request(s_any_db: RunningSidecar) -> None:
    s = s_any_db
    s.stub.AddGuardrail(guardrail("h", "hitl", patterns=["deploy"]))
    me = s.as_agent("w1")
    ids = [f"burst-{i}" for i in range(10)]
    with ThreadPoolExecutor(40) as pool:
        futures = [pool.submit(me.stub.CheckAction, _deploy(rid), timeout=60) for rid in ids for _ in range(4)]

        def listed() -> list[Any]:
            return list(s.stub.ListApprovals(pb.ListApprovalsRequest(page_size=1000)).approvals)

        eventually(lambda: len(listed()) >= len(ids), what="the approval requests")
        approvals = listed()
        assert sorted(a.request_id for a in approvals) == ids  # exactly one per request id
        for a in approvals:
            _approve(s, a.approval_id)
        answers = [f.result(30) for f in futures]
    # Four waiting calls per approval: exactly one runs the action.
    assert sum(a.allowed for a in answers) == len(ids)
    assert all("already used" in a.reason for a in answers if not a.allowed)
