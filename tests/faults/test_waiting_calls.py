"""Calls that can wait for storage do (RegisterAgent across a PostgreSQL restart answers once it is back,
within its deadline; a CheckAction that asks a human during a 10 s outage creates its request once storage
is back and gets the reviewer's decision); the console answers 503 with the fixed message while storage is
down."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from console import create_app
from outrider.v1 import common_pb2, supervisor_pb2
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.consolekit import add_reviewers, sign_in
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, error_info, guardrail

from .conftest import OwnPostgres, fresh_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(600)]

FIXED = "storage unavailable, retry"


def _register(s: RunningSidecar, agent_id: str, timeout: float) -> pb.RegisterAgentResponse:
    req = pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id, group="g"))
    answer: pb.RegisterAgentResponse = s.stub.RegisterAgent(req, timeout=timeout)
    return answer


def test_register_agent_waits_for_a_restarting_database_then_gives_up_unavailable(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    with RunningSidecar(make_config(tmp_path, db_url=fresh_database(pg))) as s:
        _register(s, "wait-0", 30)
        pg.stop()
        out: dict[str, Any] = {}

        def call() -> None:
            try:
                out["answer"] = _register(s, "wait-1", 120)  # a deadline long enough to outlast the restart
            except grpc.RpcError as err:
                out["error"] = err

        t = threading.Thread(target=call)
        t.start()
        time.sleep(2)  # the call is waiting for storage meanwhile
        assert t.is_alive(), f"RegisterAgent did not wait for storage: {out}"
        pg.start()
        t.join(120)
        assert "error" not in out, out["error"].details()
        assert out["answer"].agent.agent_id == "wait-1"
        # With a short deadline and storage still down, it gives up before the deadline: UNAVAILABLE.
        pg.stop()
        with pytest.raises(grpc.RpcError) as refused:
            _register(s, "wait-2", 3)
        assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.UNAVAILABLE, FIXED)
        assert error_info(refused.value).reason == "STORAGE_UNAVAILABLE"
        pg.start()


def test_the_console_answers_503_with_the_fixed_message(pg: OwnPostgres, tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, db_url=fresh_database(pg))) as s:
        add_reviewers(s)
        app = create_app(s.services)
        app.testing = True
        c = app.test_client()
        sign_in(c, "ada")
        assert c.get("/history").status_code == 200
        pg.stop()
        try:
            r = c.get("/history")
            assert r.status_code == 503
            assert FIXED in r.text
            assert "127.0.0.1" not in r.text and str(pg.port) not in r.text
        finally:
            pg.start()


OUTAGE = 10.0


def test_an_approval_asked_during_a_ten_second_outage_is_created_when_storage_returns(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    db_url = fresh_database(pg)
    with RunningSidecar(make_config(tmp_path, db_url=db_url)) as s:
        s.stub.AddGuardrail(guardrail("outage-hitl", "hitl", patterns=["deploy"]))
        pg.stop()
        stopped = time.monotonic()
        out: dict[str, Any] = {}

        def ask() -> None:
            try:  # a deadline long enough to outlast the outage and the reviewer
                out["answer"] = s.stub.CheckAction(check("outage-agent", "deploy", request_id="o-1"), timeout=120)
            except grpc.RpcError as err:
                out["error"] = err

        t = threading.Thread(target=ask)
        t.start()
        while time.monotonic() - stopped < OUTAGE:
            assert t.is_alive(), f"CheckAction did not wait for storage: {out}"
            time.sleep(0.2)
        pg.start()
        listing = pb.ListApprovalsRequest(agent_id="outage-agent", page_size=10)
        deadline = time.monotonic() + 60
        while not (found := s.stub.ListApprovals(listing, timeout=30).approvals) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(found) == 1, "the approval asked during the outage was not created once storage was back"
        assert found[0].state == supervisor_pb2.APPROVAL_STATE_PENDING
        s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=found[0].approval_id, approve=True), timeout=30)
        t.join(120)
        assert "error" not in out, out["error"].details()
        assert out["answer"].allowed and out["answer"].approval.approval_id == found[0].approval_id
        # Storage still down when the deadline nears: UNAVAILABLE with the fixed message, not a BLOCK.
        pg.stop()
        with pytest.raises(grpc.RpcError) as refused:
            s.stub.CheckAction(check("outage-agent", "deploy", {"n": 2}, request_id="o-2"), timeout=3)
        assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.UNAVAILABLE, FIXED)
        assert error_info(refused.value).reason == "STORAGE_UNAVAILABLE"
        pg.start()
        rows = s.stub.ListApprovals(listing, timeout=30).approvals
        assert [a.approval_id for a in rows] == [found[0].approval_id]  # one request, nothing doubled


def test_consume_waits_for_a_restarting_database(pg: OwnPostgres, tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, db_url=fresh_database(pg))) as s:
        s.safeguard.Allocate(spb.AllocateRequest(agent_id="consume-wait", tokens=1_000), timeout=30)
        pg.stop()
        out: dict[str, Any] = {}

        def call() -> None:
            try:
                request = spb.ConsumeRequest(agent_id="consume-wait", tokens=7, request_id="cw-1")
                out["answer"] = s.safeguard.Consume(request, timeout=120)
            except grpc.RpcError as err:
                out["error"] = err

        t = threading.Thread(target=call)
        t.start()
        time.sleep(2)  # the call is waiting for storage meanwhile
        assert t.is_alive(), f"Consume did not wait for storage: {out}"
        pg.start()
        t.join(120)
        assert "error" not in out, out["error"].details()
        assert out["answer"].allocation.used == 7
