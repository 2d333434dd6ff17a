"""Calls applied but never answered, then retried with the same request_id, count once: Consume, Allocate,
Reserve, AcquireLease, ReportOutcome, RecordEpisode, DecideApproval, RegisterAgent and SetGlobalBudget. Each
call waits inside its transaction behind a lock until the caller's deadline passes, then commits, and the
sidecar is SIGKILLed right after.

Before, the idempotency record was written in its own transaction after the change: the cancelled call
never wrote it, and the retry on the restarted sidecar applied the change a second time."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import grpc
import psycopg
import pytest
from google.protobuf import duration_pb2

from outrider.v1 import common_pb2, supervisor_pb2
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
from tests.fleet.harness import SidecarProc, operator_token, wait_until
from tests.integration.rpc import check, guardrail

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


# ---- leases, breaker outcomes, episodes and approvals ------------------------------------------------------


def _count(dsn: str, sql: str, *args: object) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(sql, args).fetchone()
    assert row is not None
    return int(row[0])


def _lose_answer(dsn: str, lock_sql: str, lock_args: tuple[object, ...], call: Callable[[], object]) -> None:
    """Make `call` wait inside its transaction behind a lock until its caller's deadline passes, then let it
    commit: applied, never answered."""
    with psycopg.connect(dsn) as blocker:
        blocker.execute(lock_sql, lock_args)
        with pytest.raises(grpc.RpcError) as lost:
            call()
        assert lost.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        blocker.commit()


def test_a_retried_lease_acquire_whose_answer_was_lost_at_a_crash_is_granted_once(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    """The lease row carries the request id and is looked up under the key's lock, in the grant's transaction:
    the retry gets that lease (one fencing token), never a second slot."""
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    agent, key_id = "lost-lease-1", "lost-lease-key"
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_USER, id=key_id)
    ttl = duration_pb2.Duration(seconds=300)
    request = spb.AcquireLeaseRequest(isolation_key=key, agent_id=agent, ttl=ttl, request_id="lease-lost-1")
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        warm = first.safeguard.AcquireLease(spb.AcquireLeaseRequest(isolation_key=key, agent_id=agent, ttl=ttl))
        first.safeguard.ReleaseLease(spb.ReleaseLeaseRequest(lease_id=warm.lease.lease_id))  # the key's row exists
        _lose_answer(
            dsn,
            "SELECT fencing_token FROM safeguard_lease_keys WHERE key = %s FOR UPDATE",
            (f"user:{key_id}",),
            lambda: first.safeguard.AcquireLease(request, timeout=2),
        )
        lost_grant = "SELECT count(*) FROM safeguard_leases WHERE request_id = %s"
        wait_until(lambda: _count(dsn, lost_grant, "lease-lost-1") == 1, "the grant committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        again = second.safeguard.AcquireLease(request, timeout=30)
        assert again.lease.fencing_token == warm.lease.fencing_token + 1
        assert _count(dsn, lost_grant, "lease-lost-1") == 1, "the retried AcquireLease was granted a second lease"
        active = "SELECT count(*) FROM safeguard_leases WHERE agent_id = %s AND state = 1"
        assert _count(dsn, active, agent) <= 1, "two leases of one limit-1 key are active at once"
    finally:
        second.close()


def test_a_retried_breaker_outcome_whose_answer_was_lost_at_a_crash_counts_once(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    """A permit lives in the sidecar that granted it: after a crash its retried outcome is NOT_FOUND and the
    failure it carried, committed before the crash, is counted once."""
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    key = "lost-breaker-1"
    failures = "SELECT failure_count FROM safeguard_breakers WHERE key = %s"
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        p1 = first.safeguard.AcquirePermit(spb.AcquirePermitRequest(key=key)).permit_id
        failure = sg.CALL_OUTCOME_FAILURE
        first.safeguard.ReportOutcome(spb.ReportOutcomeRequest(permit_id=p1, outcome=failure))
        assert _count(dsn, failures, key) == 1
        p2 = first.safeguard.AcquirePermit(spb.AcquirePermitRequest(key=key)).permit_id
        request = spb.ReportOutcomeRequest(permit_id=p2, outcome=failure, request_id="outcome-lost-1")
        _lose_answer(
            dsn,
            "SELECT failure_count FROM safeguard_breakers WHERE key = %s FOR UPDATE",
            (key,),
            lambda: first.safeguard.ReportOutcome(request, timeout=2),
        )
        wait_until(lambda: _count(dsn, failures, key) == 2, "the outcome committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        # The permit died with its sidecar: the retry is NOT_FOUND, unless A stored the call's answer (its
        # idempotency record follows the commit) before the SIGKILL, and then the retry gets that answer.
        # Either way the failure is counted once.
        try:
            answer = second.safeguard.ReportOutcome(request, timeout=30)
        except grpc.RpcError as gone:
            assert gone.code() == grpc.StatusCode.NOT_FOUND, gone
        else:
            assert answer.failure_count == 2, answer
        assert _count(dsn, failures, key) == 2, "the retried outcome was counted a second time"
    finally:
        second.close()


def test_a_retried_episode_whose_answer_was_lost_at_a_crash_is_recorded_once(pg: OwnPostgres, tmp_path: Path) -> None:
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    agent = "lost-episode-1"
    request = spb.RecordEpisodeRequest(
        episode=sg.Episode(task_id="t-1", agent_id=agent, task_type="lost", outcome="ok"), request_id="episode-lost-1"
    )
    episodes = "SELECT count(*) FROM safeguard_episodes WHERE agent_id = %s"
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        _lose_answer(
            dsn,
            "LOCK TABLE safeguard_episodes IN ACCESS EXCLUSIVE MODE",
            (),
            lambda: first.safeguard.RecordEpisode(request, timeout=2),
        )
        wait_until(lambda: _count(dsn, episodes, agent) == 1, "the episode committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        again = second.safeguard.RecordEpisode(request, timeout=30)
        assert again.episode.agent_id == agent
        assert _count(dsn, episodes, agent) == 1, "the retried RecordEpisode recorded a second episode"
    finally:
        second.close()


def test_a_retried_approval_decision_whose_answer_was_lost_at_a_crash_answers_the_decision(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    """Before, the retry met its own committed decision and answered FAILED_PRECONDITION (already decided)."""
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        first.supervisor.AddGuardrail(guardrail("lost-hitl", "hitl", patterns=["deploy"]))
        waiting = first.supervisor.CheckAction.future(check("lost-approval-1", "deploy", request_id="c-1"), timeout=120)
        pending = pb.ListApprovalsRequest(state=supervisor_pb2.APPROVAL_STATE_PENDING, page_size=10)
        wait_until(lambda: len(first.supervisor.ListApprovals(pending).approvals) == 1, "the request is pending", 60)
        [approval] = first.supervisor.ListApprovals(pending).approvals
        request = pb.DecideApprovalRequest(approval_id=approval.approval_id, approve=True, request_id="decide-lost-1")
        _lose_answer(
            dsn,
            "SELECT state FROM approvals WHERE approval_id = %s FOR UPDATE",
            (approval.approval_id,),
            lambda: first.supervisor.DecideApproval(request, timeout=2),
        )
        decided = "SELECT count(*) FROM approvals WHERE approval_id = %s AND state = 'APPROVED'"
        wait_until(lambda: _count(dsn, decided, approval.approval_id) == 1, "the decision committed", 60)
    finally:
        first.close(signal.SIGKILL)
    waiting.cancel()  # answered before the crash or lost with it: either way not what this test is about
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        again = second.supervisor.DecideApproval(request, timeout=30)
        assert again.approval.state == supervisor_pb2.APPROVAL_STATE_APPROVED
        assert again.approval.approval_id == approval.approval_id
        assert _count(dsn, decided, approval.approval_id) == 1
    finally:
        second.close()


# ---- operator calls whose record now goes in with the change (issue 26) -------------------------------------


def test_a_retried_register_agent_whose_answer_was_lost_at_a_crash_changes_nothing(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    """Before, the record followed in its own transaction: the retry, after another operator had moved the
    agent on, put the agent back into the group of the lost call."""
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    agent = "lost-register-1"
    request = pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent, group="g1"), request_id="register-lost-1")
    group = "SELECT group_name FROM agents WHERE agent_id = %s"
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        first.supervisor.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent)))
        _lose_answer(
            dsn,
            "SELECT group_name FROM agents WHERE agent_id = %s FOR UPDATE",
            (agent,),
            lambda: first.supervisor.RegisterAgent(request, timeout=2),
        )
        wait_until(lambda: _text(dsn, group, agent) == "g1", "the registration committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        second.supervisor.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent, group="g2")))
        again = second.supervisor.RegisterAgent(request, timeout=30)
        assert (again.agent.group, again.created) == ("g1", False)  # the lost call's answer
        assert _text(dsn, group, agent) == "g2", "the retried RegisterAgent was applied again"
    finally:
        second.close()


def test_a_retried_set_global_budget_whose_answer_was_lost_at_a_crash_changes_nothing(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    """Before, the retry set the lost call's total again over the one set since."""
    db_url = fresh_database(pg)
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    token = operator_token(tmp_path, db_url)
    request = spb.SetGlobalBudgetRequest(tokens=5_000, request_id="global-lost-1")
    total = "SELECT total FROM safeguard_global_budget WHERE name = %s"
    first = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        first.safeguard.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=1_000))
        _lose_answer(
            dsn,
            "SELECT total FROM safeguard_global_budget WHERE name = %s FOR UPDATE",
            ("global",),
            lambda: first.safeguard.SetGlobalBudget(request, timeout=2),
        )
        wait_until(lambda: _count(dsn, total, "global") == 5_000, "the new total committed", 60)
    finally:
        first.close(signal.SIGKILL)
    second = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    try:
        second.safeguard.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=7_000))
        again = second.safeguard.SetGlobalBudget(request, timeout=30)
        assert again.global_budget.total == 5_000  # the lost call's answer
        assert _count(dsn, total, "global") == 7_000, "the retried SetGlobalBudget set its total again"
    finally:
        second.close()


def _text(dsn: str, sql: str, *args: object) -> str:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(sql, args).fetchone()
    assert row is not None
    return str(row[0])
