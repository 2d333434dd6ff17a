"""A Consume applied but never answered (the caller's deadline passed while it waited for a row lock, then the
sidecar was SIGKILLed right after the commit) and retried with the same request_id is counted once.

Before, the idempotency record was written in its own transaction after the change: the cancelled call
never wrote it, and the retry on the restarted sidecar consumed the tokens a second time."""

from __future__ import annotations

import signal
from pathlib import Path

import grpc
import psycopg
import pytest

from outrider.v1 import safeguard_service_pb2 as spb
from tests.fleet.harness import SidecarProc, operator_token, wait_until

from .conftest import OwnPostgres, fresh_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(600)]


def _used(dsn: str, agent: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT used FROM safeguard_allocations WHERE agent_id = %s", (agent,)).fetchone()
    assert row is not None
    return int(row[0])


def test_a_retried_consume_whose_answer_was_lost_at_a_crash_counts_once(pg: OwnPostgres, tmp_path: Path) -> None:
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    agent = "lost-answer-1"
    request = spb.ConsumeRequest(agent_id=agent, tokens=7, request_id="consume-lost-1")
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        first.safeguard.Allocate(spb.AllocateRequest(agent_id=agent, tokens=1_000))
        # Hold the allocation's row: the Consume waits inside its transaction until the caller gives up.
        with psycopg.connect(dsn) as blocker:
            blocker.execute("SELECT used FROM safeguard_allocations WHERE agent_id = %s FOR UPDATE", (agent,))
            with pytest.raises(grpc.RpcError) as lost:
                first.safeguard.Consume(request, timeout=2)
            assert lost.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            blocker.commit()  # the sidecar's transaction goes on and commits: applied, never answered
        wait_until(lambda: _used(dsn, agent) == 7, "the consume committed", 60)
    finally:
        first.close(signal.SIGKILL)  # right after the commit: nothing of the call survives in memory
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        again = second.safeguard.Consume(request, timeout=30)
        assert again.allocation.used == 7
        assert _used(dsn, agent) == 7, "the retry was counted a second time"
        # A new request id is a new consume, as always.
        fresh = spb.ConsumeRequest(agent_id=agent, tokens=7, request_id="consume-lost-2")
        assert second.safeguard.Consume(fresh, timeout=30).allocation.used == 14
    finally:
        second.close()


def test_a_retried_allocate_whose_answer_was_lost_at_a_crash_does_not_restart_the_count(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    agent = "lost-answer-2"
    request = spb.AllocateRequest(agent_id=agent, tokens=500, request_id="allocate-lost-1")
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        first.safeguard.Allocate(spb.AllocateRequest(agent_id=agent, tokens=1_000))
        with psycopg.connect(dsn) as blocker:
            blocker.execute("SELECT used FROM safeguard_allocations WHERE agent_id = %s FOR UPDATE", (agent,))
            with pytest.raises(grpc.RpcError) as lost:
                first.safeguard.Allocate(request, timeout=2)
            assert lost.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            blocker.commit()
        wait_until(lambda: _allocated(dsn, agent) == 500, "the allocate committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        second.safeguard.Consume(spb.ConsumeRequest(agent_id=agent, tokens=40), timeout=30)
        again = second.safeguard.Allocate(request, timeout=30)
        assert again.allocation.allocated == 500 and again.allocation.used == 0  # the first call's answer
        assert _used(dsn, agent) == 40, "the retried Allocate was applied again and restarted the count"
    finally:
        second.close()


def _allocated(dsn: str, agent: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT allocated FROM safeguard_allocations WHERE agent_id = %s", (agent,)).fetchone()
    assert row is not None
    return int(row[0])


def test_a_retried_reserve_whose_answer_was_lost_at_a_crash_holds_the_tokens_once(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    agent = "lost-answer-3"
    request = spb.ReserveRequest(agent_id=agent, estimate=30, request_id="reserve-lost-1")
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        first.safeguard.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=1_000_000))
        first.safeguard.Allocate(spb.AllocateRequest(agent_id=agent, tokens=1_000))
        with psycopg.connect(dsn) as blocker:
            blocker.execute("SELECT used FROM safeguard_allocations WHERE agent_id = %s FOR UPDATE", (agent,))
            with pytest.raises(grpc.RpcError) as lost:
                first.safeguard.Reserve(request, timeout=2)
            assert lost.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            blocker.commit()
        wait_until(lambda: _reservations(dsn, agent) == 1, "the reserve committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        again = second.safeguard.Reserve(request, timeout=30)
        assert again.granted and again.allocation.reserved == 30
        assert _reservations(dsn, agent) == 1, "the retried Reserve held the tokens a second time"
    finally:
        second.close()


def _reservations(dsn: str, agent: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM safeguard_reservations WHERE agent_id = %s", (agent,)).fetchone()
    assert row is not None
    return int(row[0])
