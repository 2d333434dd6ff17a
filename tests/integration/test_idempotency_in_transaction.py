"""Idempotency records written in the transaction of the change they guard (issue 26), for the approval,
lease and episode RPCs: a retry with the same request_id gets the first answer and changes nothing, and the
record commits or rolls back with its change (an earlier attempt's record makes the change roll back)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from google.protobuf import duration_pb2
from google.protobuf.message import Message
from sqlalchemy import Engine

from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import common_pb2, recovery_pb2, supervisor_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
from server.bootstrap import sql_repositories
from server.container import Repositories
from server.domain.access.principals import PrincipalKind, Token
from server.domain.agents import Agent, Containment, Standing
from server.domain.approvals.requests import Approval, ApprovalPolicy, ApprovalState
from server.domain.errors import Unavailable
from server.domain.guardrails import GuardrailSpec
from server.domain.recovery.cascade import AgentFailure
from server.domain.recovery.health import CheckKind, HealthCheckSpec
from server.domain.recovery.kill import Substitute, SubstituteScope
from server.domain.recovery.ladder import RecoveryState, new_policy
from server.domain.safeguards.breakers import Breaker, BreakerConfig, BreakerState
from server.domain.safeguards.budgets import Priority, Reservation
from server.domain.safeguards.episodes import Episode
from server.domain.safeguards.leases import IsolationKey, LeaseState, Scope
from server.services.idempotency import AlreadyRemembered, IdempotencyService, guarding
from server.storage.db import create_db_engine
from server.storage.idempotency import SqlIdempotencyRepository
from server.storage.recovery.cascade import SqlCascadeWindow
from server.storage.safeguards.repository import SqlSafeguardRepository
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _service(engine: Engine) -> IdempotencyService:
    return IdempotencyService(SqlIdempotencyRepository(engine), FakeClock())


def _guard(idem: IdempotencyService, method: str, request_id: str, answer: bytes = b"answer") -> object:
    g = idem.guard(method, "operator:test", request_id, b"request")
    g.render = lambda _result: answer
    return g


# ---- storage: the record commits and rolls back with its change -----------------------------------------


def _approval(agent: str) -> Approval:
    return Approval(_uid("apr"), agent, "deploy", {"k": "v"}, "hitl", "", "", "dg", ApprovalState.PENDING,
                    T0, ApprovalPolicy(approvers=("alice",)), expire_time=T0 + timedelta(seconds=60))  # fmt: skip


def test_an_approval_decision_and_its_record_commit_together(engine: Engine) -> None:
    repo, idem = sql_repositories(engine).approvals, _service(engine)
    ap = _approval(_uid("a"))
    assert repo.insert(ap)
    decided = replace(ap, state=ApprovalState.APPROVED, version=1, decided_by="alice")
    g = _guard(idem, "/outrider.v1.SupervisorService/DecideApproval", "d-1", b"decided")
    with guarding(g):  # type: ignore[arg-type]
        assert repo.update(decided, 0)
    assert g.written  # type: ignore[attr-defined]
    assert idem.recall("/outrider.v1.SupervisorService/DecideApproval", "operator:test", "d-1", b"request") == (
        b"decided"
    )


def test_an_approval_change_whose_record_an_earlier_attempt_stored_rolls_back(engine: Engine) -> None:
    repo, idem = sql_repositories(engine).approvals, _service(engine)
    ap = _approval(_uid("a"))
    assert repo.insert(ap)
    method = "/outrider.v1.SupervisorService/CancelApproval"
    idem.remember(method, "operator:test", "c-1", b"request", b"the earlier answer")
    cancelled = replace(ap, state=ApprovalState.CANCELLED, version=1)
    with guarding(_guard(idem, method, "c-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        repo.update(cancelled, 0)
    got = repo.get(ap.approval_id)
    assert got is not None and (got.state, got.version) == (ApprovalState.PENDING, 0)  # nothing changed


def test_a_lease_release_whose_record_an_earlier_attempt_stored_rolls_back(engine: Engine) -> None:
    repo, idem = sql_repositories(engine).leases, _service(engine)
    key = IsolationKey(Scope.USER, _uid("k"))
    lease, _ = repo.try_acquire(key, 1, "agent-1", 30.0, "", T0, None, T0 - timedelta(seconds=60))
    assert lease is not None
    method = "/outrider.v1.SafeguardService/ReleaseLease"
    idem.remember(method, "operator:test", "r-1", b"request", b"the earlier answer")
    with guarding(_guard(idem, method, "r-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        repo.release(lease.lease_id, T0 + timedelta(seconds=1))
    got = repo.get_lease(lease.lease_id)
    assert got is not None and got.state is LeaseState.ACTIVE
    g = _guard(idem, method, "r-2", b"released")
    with guarding(g):  # type: ignore[arg-type]
        done = repo.release(lease.lease_id, T0 + timedelta(seconds=1))
    assert done is not None and done.state is LeaseState.RELEASED and g.written  # type: ignore[attr-defined]


def test_a_lease_renewal_is_remembered_with_it_and_an_expired_one_is_not(engine: Engine) -> None:
    repo, idem = sql_repositories(engine).leases, _service(engine)
    key = IsolationKey(Scope.USER, _uid("k"))
    lease, _ = repo.try_acquire(key, 1, "agent-1", 30.0, "", T0, None, T0 - timedelta(seconds=60))
    assert lease is not None
    method = "/outrider.v1.SafeguardService/RenewLease"
    g = _guard(idem, method, "n-1", b"renewed")
    with guarding(g):  # type: ignore[arg-type]
        renewed = repo.renew(lease.lease_id, 60.0, T0 + timedelta(seconds=10))
    assert renewed is not None and renewed.expire_time == T0 + timedelta(seconds=70) and g.written  # type: ignore[attr-defined]
    late = _guard(idem, method, "n-2")
    with guarding(late):  # type: ignore[arg-type]
        expired = repo.renew(lease.lease_id, 60.0, T0 + timedelta(seconds=500))
    assert expired is not None and expired.state is LeaseState.EXPIRED
    assert not late.written  # type: ignore[attr-defined]  # the RPC answers FAILED_PRECONDITION: nothing to keep
    assert idem.recall(method, "operator:test", "n-2", b"request") is None


def test_episodes_and_their_records_are_written_in_one_group_transaction(engine: Engine) -> None:
    repo, idem = SqlSafeguardRepository(engine), _service(engine)
    method = "/outrider.v1.SafeguardService/RecordEpisode"
    g = _guard(idem, method, "e-1", b"recorded")
    e = Episode(1, "t", "agent-1", "ty", "ok", {}, T0)
    repo.save_episodes([("episode", "1", e), ("remembered", g.key, g.record((e, 0)))])  # type: ignore[attr-defined]
    assert [x.episode_id for x in repo.load_episodes(10)] == [1]
    assert idem.recall(method, "operator:test", "e-1", b"request") == b"recorded"
    # A second writer of the same key (two attempts racing on two sidecars) leaves the first answer standing.
    g2 = _guard(idem, method, "e-1", b"other")
    e2 = Episode(2, "t", "agent-1", "ty", "ok", {}, T0)
    repo.save_episodes([("episode", "2", e2), ("remembered", g2.key, g2.record((e2, 0)))])  # type: ignore[attr-defined]
    assert idem.recall(method, "operator:test", "e-1", b"request") == b"recorded"


def test_a_breaker_control_whose_record_an_earlier_attempt_stored_rolls_back(engine: Engine) -> None:
    repo, idem = sql_repositories(engine).breakers, _service(engine)
    key = _uid("brk")
    repo.create_breakers([Breaker(key, BreakerConfig(), T0, T0)])
    stored = repo.get_breaker(key)
    assert stored is not None
    opened = replace(stored, state=BreakerState.OPEN, generation=stored.generation + 1, forced=True)
    method = "/outrider.v1.SafeguardService/ForceOpen"
    idem.remember(method, "operator:test", "f-1", b"request", b"the earlier answer")
    with guarding(_guard(idem, method, "f-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        repo.transition(opened, stored.generation, remember=True)
    again = repo.get_breaker(key)
    assert again is not None and (again.state, again.generation) == (BreakerState.CLOSED, stored.generation)
    # Only the operator's own transition takes the record (not a tick's HALF_OPEN move under its guard).
    g = _guard(idem, method, "f-2", b"opened")
    with guarding(g):  # type: ignore[arg-type]
        assert repo.transition(opened, stored.generation)
        assert not g.written  # type: ignore[attr-defined]
        reopened = replace(opened, generation=opened.generation + 1)
        assert repo.transition(reopened, opened.generation, remember=True)
        assert g.written  # type: ignore[attr-defined]


def test_a_failure_report_and_its_record_commit_together_and_only_for_report_failure(engine: Engine) -> None:
    window, idem = SqlCascadeWindow(engine), _service(engine)
    failure = AgentFailure(_uid("up"), _uid("down"), "x", "report", T0)
    method = "/outrider.v1.RecoveryService/ReportFailure"
    idem.remember(method, "operator:test", "rf-1", b"request", b"the earlier answer")
    with guarding(_guard(idem, method, "rf-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        window.record(failure, 60.0, 3, "cascade-x")
    assert window.size(60.0, T0) == 0  # the failure rolled back with it
    g = _guard(idem, method, "rf-2", b"reported")
    with guarding(g):  # type: ignore[arg-type]
        assert window.record(failure, 60.0, 3, "cascade-x") is None
    assert g.written and window.size(60.0, T0) == 1  # type: ignore[attr-defined]
    # A failure another call causes on the way (a forced-open breaker reports one) never takes its record.
    other = _guard(idem, "/outrider.v1.SafeguardService/ForceOpen", "fo-9")
    with guarding(other):  # type: ignore[arg-type]
        window.record(failure, 60.0, 3, "cascade-x")
    assert not other.written and window.size(60.0, T0) == 2  # type: ignore[attr-defined]


def test_a_chain_change_whose_record_an_earlier_attempt_stored_rolls_back(engine: Engine) -> None:
    repo, idem = sql_repositories(engine).guardrails, _service(engine)
    method = "/outrider.v1.SupervisorService/AddGuardrail"
    version = repo.version()
    idem.remember(method, "operator:test", "ag-1", b"request", b"the earlier answer")
    spec = GuardrailSpec("twice", "blocklist", {"actions": ["rm"]}, "runtime")
    with guarding(_guard(idem, method, "ag-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        repo.replace_if([spec], version, (spec, 0))
    assert repo.version() == version and repo.load()[0] == []  # the chain rolled back with it
    g = _guard(idem, method, "ag-2", b"added")
    with guarding(g):  # type: ignore[arg-type]
        assert repo.replace_if([spec], version, (spec, 0)) is not None
    assert g.written and [s.name for s in repo.load()[0]] == ["twice"]  # type: ignore[attr-defined]


def test_a_settlement_whose_record_an_earlier_attempt_stored_rolls_back(engine: Engine) -> None:
    budgets, idem = sql_repositories(engine).budgets, _service(engine)
    agent = _uid("a")
    budgets.init_global(1000, T0)
    budgets.allocate(agent, 100, Priority.NORMAL, T0, lambda a, g: [])
    r = Reservation(_uid("rsv"), agent, 40, T0, T0 + timedelta(seconds=60), 0.0)
    assert budgets.reserve(r, {}, T0, lambda a, g: []).change is not None
    method = "/outrider.v1.SafeguardService/Settle"
    idem.remember(method, "operator:test", "st-1", b"request", b"the earlier answer")
    with guarding(_guard(idem, method, "st-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        budgets.settle(r.reservation_id, 25, None, T0, lambda a, g: [])
    alloc, _ = budgets.read(agent)
    assert alloc is not None and (alloc.used, alloc.reserved) == (0, 40)  # the settlement rolled back
    g = _guard(idem, method, "st-2", b"settled")
    with guarding(g):  # type: ignore[arg-type]
        budgets.settle(r.reservation_id, 25, None, T0, lambda a, g: [])
    alloc, _ = budgets.read(agent)
    assert g.written and alloc is not None and (alloc.used, alloc.reserved) == (25, 0)  # type: ignore[attr-defined]


# ---- through the RPCs: a retry gets the first answer and changes nothing --------------------------------


def test_a_retried_settle_answers_the_same_once(s: RunningSidecar) -> None:
    agent = _uid("agent")
    s.safeguard.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=1_000_000))
    s.safeguard.Allocate(spb.AllocateRequest(agent_id=agent, tokens=1_000))
    reserved = s.safeguard.Reserve(spb.ReserveRequest(agent_id=agent, estimate=40)).reservation
    settle = spb.SettleRequest(reservation_id=reserved.reservation_id, actual=25, request_id="st-1")
    first = s.safeguard.Settle(settle)
    s.safeguard.Consume(spb.ConsumeRequest(agent_id=agent, tokens=5))  # the allocation moves on
    assert s.safeguard.Settle(settle) == first  # the first answer, not today's allocation
    assert s.safeguard.GetAllocation(spb.GetAllocationRequest(agent_id=agent)).allocation.used == 30


def test_retried_guardrail_changes_answer_the_same_once(tmp_path: Path, clock: FakeClock) -> None:
    config = make_config(tmp_path)
    add = guardrail("once", "hitl", patterns=["deploy"])
    add.request_id = "ag-1"
    pattern = pb.AddApprovalPatternRequest(guardrail="once", pattern="drop", request_id="ap-1")
    with RunningSidecar(config, clock=clock) as s:
        first = s.stub.AddGuardrail(add)
        added = s.stub.AddApprovalPattern(pattern)
    with RunningSidecar(config, clock=clock) as s:  # a restart
        assert s.stub.AddGuardrail(add) == first
        assert s.stub.AddApprovalPattern(pattern) == added
        names = [g.name for g in s.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]
        assert names.count("once") == 1, "the retried AddGuardrail added the guardrail twice"
        unpattern = pb.RemoveApprovalPatternRequest(guardrail="once", pattern="drop", request_id="rp-1")
        left = s.stub.RemoveApprovalPattern(unpattern)
        assert s.stub.RemoveApprovalPattern(unpattern) == left  # not NOT_FOUND: the first answer
        remove = pb.RemoveGuardrailRequest(name="once", request_id="rg-1")
        gone = s.stub.RemoveGuardrail(remove)
        assert gone.removed_count == 1 and s.stub.RemoveGuardrail(remove) == gone


def test_a_retried_failure_report_answers_the_same_and_counts_once(tmp_path: Path, clock: FakeClock) -> None:
    config = make_config(tmp_path)
    report = rpb.ReportFailureRequest(from_agent=_uid("up"), to_agent=_uid("down"), detail="x", request_id="rf-1")
    with RunningSidecar(config, clock=clock) as s:
        first = s.recovery.ReportFailure(report)
    with RunningSidecar(config, clock=clock) as s:  # a restart: the in-memory de-duplication is gone
        assert s.recovery.ReportFailure(report) == first
    engine = create_db_engine(config.database_url())
    try:
        assert SqlCascadeWindow(engine).size(3600.0, clock.utcnow()) == 1
    finally:
        engine.dispose()


def test_retried_breaker_controls_answer_the_same_once(s: RunningSidecar) -> None:
    key = _uid("brk")
    force = spb.ForceOpenRequest(key=key, reason="maintenance", request_id="fo-1")
    first = s.safeguard.ForceOpen(force)
    assert s.safeguard.ForceOpen(force) == first
    close = spb.ForceCloseRequest(key=key, reason="done", request_id="fc-1")
    closed = s.safeguard.ForceClose(close)
    assert closed.breaker.generation > first.breaker.generation
    assert s.safeguard.ForceClose(close) == closed
    reset = spb.ResetBreakerRequest(key=key, request_id="rs-1")
    done = s.safeguard.ResetBreaker(reset)
    assert s.safeguard.ResetBreaker(reset) == done
    now = s.safeguard.GetBreaker(spb.GetBreakerRequest(key=key)).breaker
    assert now.generation == done.breaker.generation  # each call moved the breaker once


_DEPLOY = "/outrider.v1.SupervisorService"


def _pending(s: RunningSidecar, agent: str) -> str:
    fut = s.stub.CheckAction.future(check(agent, "deploy", request_id=_uid("chk")), timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        items = s.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=agent, page_size=10)).approvals
        if items:
            return str(items[0].approval_id)
        time.sleep(0.05)
    fut.cancel()
    raise AssertionError("no pending approval")


def test_retried_approval_decisions_and_cancels_answer_the_same_once(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("hitl-retry", "hitl", patterns=["deploy"]))
    try:
        a = _pending(s, _uid("agent"))
        decide = pb.DecideApprovalRequest(approval_id=a, approve=True, comment="ok", request_id="dec-1")
        first = s.stub.DecideApproval(decide)
        again = s.stub.DecideApproval(decide)  # not ALREADY_DECIDED: the first answer
        assert again == first and first.approval.state == supervisor_pb2.APPROVAL_STATE_APPROVED
        got_a = s.stub.GetApproval(pb.GetApprovalRequest(approval_id=a)).approval
        assert got_a.decide_time == first.approval.decide_time  # decided once
        b = _pending(s, _uid("agent"))
        cancel = pb.CancelApprovalRequest(approval_id=b, reason="no", request_id="can-1")
        first_c = s.stub.CancelApproval(cancel)
        assert s.stub.CancelApproval(cancel) == first_c
        got = s.stub.GetApproval(pb.GetApprovalRequest(approval_id=b)).approval
        assert (got.state, got.decide_time) == (supervisor_pb2.APPROVAL_STATE_CANCELLED, first_c.approval.decide_time)
    finally:
        s.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="hitl-retry"))


def _ttl(seconds: int) -> duration_pb2.Duration:
    return duration_pb2.Duration(seconds=seconds)


def test_retried_lease_renewals_and_releases_answer_the_same_once(s: RunningSidecar) -> None:
    agent = _uid("agent")
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_USER, id=_uid("res"))
    acquire = spb.AcquireLeaseRequest(isolation_key=key, agent_id=agent, ttl=_ttl(30), request_id="acq-1")
    lease = s.safeguard.AcquireLease(acquire, timeout=30).lease
    assert s.safeguard.AcquireLease(acquire, timeout=30).lease == lease  # one lease, one fencing token
    renew = spb.RenewLeaseRequest(lease_id=lease.lease_id, ttl=_ttl(60), request_id="ren-1")
    first = s.safeguard.RenewLease(renew)
    assert s.safeguard.RenewLease(renew) == first  # the first extension, not a second one
    release = spb.ReleaseLeaseRequest(lease_id=lease.lease_id, request_id="rel-1")
    done = s.safeguard.ReleaseLease(release)
    assert done.lease.state == sg.LEASE_STATE_RELEASED
    assert s.safeguard.ReleaseLease(release) == done
    leases = s.safeguard.ListLeases(spb.ListLeasesRequest(agent_id=agent)).leases
    assert [le.lease_id for le in leases] == [lease.lease_id]


def test_a_retried_episode_is_recorded_once(s: RunningSidecar) -> None:
    agent = _uid("agent")
    record = spb.RecordEpisodeRequest(
        episode=sg.Episode(task_id="t-1", agent_id=agent, task_type="retry-test", outcome="ok"), request_id="ep-1"
    )
    first = s.safeguard.RecordEpisode(record)
    assert s.safeguard.RecordEpisode(record) == first
    found = s.safeguard.QueryByAgent(spb.QueryByAgentRequest(agent_id=agent, limit=10)).episodes
    assert [e.episode_id for e in found] == [first.episode.episode_id]


# ---- the other calls with a request_id: each record commits and rolls back with its change --------------


@dataclass
class _Case:
    """One storage write of an RPC: `change()` makes it; `before()` holds until it commits, `after()` once
    it has (each a predicate on what storage holds)."""

    change: Callable[[], object]
    before: Callable[[], bool]
    after: Callable[[], bool]


def _set_global_budget(r: Repositories) -> _Case:
    r.budgets.init_global(1000, T0)
    return _Case(
        lambda: r.budgets.set_global(5000, T0, lambda a, g: []),
        lambda: r.budgets.read("")[1].total == 1000,  # type: ignore[union-attr]
        lambda: r.budgets.read("")[1].total == 5000,  # type: ignore[union-attr]
    )


def _set_breaker_config(r: Repositories) -> _Case:
    key = _uid("brk")
    r.breakers.create_breakers([Breaker(key, BreakerConfig(), T0, T0)])
    return _Case(
        lambda: r.breakers.set_runtime_config(key, {"failure_threshold": 9}, T0),
        lambda: r.breakers.get_breaker(key).runtime_config == {},  # type: ignore[union-attr]
        lambda: r.breakers.get_breaker(key).runtime_config == {"failure_threshold": 9},  # type: ignore[union-attr]
    )


def _register_agent(r: Repositories) -> _Case:
    """With the quarantine it lifts: the record, the standing and the idempotency record are one."""
    a = _uid("agent")
    r.agents.set_standing(Containment(a, Standing.QUARANTINED, "", "ejected", "test", T0))
    release = Containment(a, Standing.ACTIVE, "", "placed in g1", "test", T0)
    return _Case(
        lambda: r.agents.register(Agent(a, "g1"), release),
        lambda: r.agents.get(a) is None and a in r.agents.contained(),
        lambda: r.agents.get(a).group == "g1" and a not in r.agents.contained(),  # type: ignore[union-attr]
    )


def _deregister_agent(r: Repositories) -> _Case:
    a = _uid("agent")
    r.agents.upsert(Agent(a, "g1"))
    return _Case(lambda: r.agents.delete(a), lambda: r.agents.get(a) is not None, lambda: r.agents.get(a) is None)


def _reinstate_agent(r: Repositories) -> _Case:
    a = _uid("agent")
    r.agents.set_standing(Containment(a, Standing.TERMINATED, "kill:1", "killed", "test", T0))
    return _Case(
        lambda: r.agents.set_standing(Containment(a, Standing.ACTIVE, "", "back", "test", T0)),
        lambda: a in r.agents.contained(),
        lambda: a not in r.agents.contained(),
    )


def _revoke_token(r: Repositories) -> _Case:
    t = Token(_uid("tok"), PrincipalKind.AGENT, _uid("agent"), "", "test", T0)
    r.tokens.insert(t, _uid("hash"))
    return _Case(
        lambda: r.tokens.revoke(t.token_id, T0),
        lambda: t.token_id in {x.token_id for x in r.tokens.active().values()},
        lambda: t.token_id not in {x.token_id for x in r.tokens.active().values()},
    )


def _revoke_certificate(r: Repositories) -> _Case:
    fp = uuid.uuid4().hex * 2
    return _Case(
        lambda: r.tokens.revoke_certificate(fp, "lost", "test", T0),
        lambda: fp not in r.tokens.revoked_certificates(),
        lambda: fp in r.tokens.revoked_certificates(),
    )


_PING = HealthCheckSpec(CheckKind.PING)


def _add_health_check(r: Repositories) -> _Case:
    a = _uid("agent")
    return _Case(
        lambda: r.recovery.save_check(a, _PING, T0),
        lambda: a not in r.recovery.load_checks(),
        lambda: a in r.recovery.load_checks(),
    )


def _remove_health_check(r: Repositories) -> _Case:
    a = _uid("agent")
    r.recovery.save_check(a, _PING, T0)
    return _Case(
        lambda: r.recovery.delete_check(a),
        lambda: a in r.recovery.load_checks(),
        lambda: a not in r.recovery.load_checks(),
    )


def _set_recovery_policy(r: Repositories) -> _Case:
    group = _uid("g")
    return _Case(
        lambda: r.recovery.save_policy(new_policy(group, 2, now=T0, source="runtime")),
        lambda: group not in {p.group for p in r.recovery.load_policies()},
        lambda: group in {p.group for p in r.recovery.load_policies()},
    )


def _reset_retry_counter(r: Repositories) -> _Case:
    a = _uid("agent")
    r.recovery.save_state(a, RecoveryState(3))
    return _Case(
        lambda: r.recovery.save_state(a, RecoveryState(0), 3),
        lambda: r.recovery.get_state(a).retry_count == 3,  # type: ignore[union-attr]
        lambda: r.recovery.get_state(a).retry_count == 0,  # type: ignore[union-attr]
    )


def _setting(r: Repositories) -> _Case:
    """SetCascadePolicy, StartMonitoring and StopMonitoring each store one setting."""
    key = _uid("setting")
    return _Case(
        lambda: r.recovery.put_setting(key, {"running": True}, T0, answer="the answer"),
        lambda: r.recovery.get_setting(key) is None,
        lambda: r.recovery.get_setting(key) == {"running": True},
    )


def _deregister_substitute(r: Repositories) -> _Case:
    a, group = _uid("agent"), _uid("g")
    assert r.kills.add_substitute(Substitute(SubstituteScope.GROUP, group, a, 0, T0))

    def listed() -> bool:
        return any(x.agent_id == a and x.scope_id == group for x in r.kills.load_substitutes())

    return _Case(lambda: r.kills.remove_substitute(SubstituteScope.GROUP, group, a), listed, lambda: not listed())


_STORAGE_CASES = {
    "SafeguardService/SetGlobalBudget": _set_global_budget,
    "SafeguardService/SetBreakerConfig": _set_breaker_config,
    "SupervisorService/RegisterAgent": _register_agent,
    "SupervisorService/DeregisterAgent": _deregister_agent,
    "AccessService/RevokeToken": _revoke_token,
    "AccessService/RevokeCertificate": _revoke_certificate,
    "RecoveryService/ReinstateAgent": _reinstate_agent,
    "RecoveryService/AddHealthCheck": _add_health_check,
    "RecoveryService/RemoveHealthCheck": _remove_health_check,
    "RecoveryService/SetRecoveryPolicy": _set_recovery_policy,
    "RecoveryService/ResetRetryCounter": _reset_retry_counter,
    "RecoveryService/SetCascadePolicy": _setting,
    "RecoveryService/StartMonitoring": _setting,
    "RecoveryService/StopMonitoring": _setting,
    "RecoveryService/DeregisterSubstitute": _deregister_substitute,
}


@pytest.mark.parametrize("rpc", sorted(_STORAGE_CASES))
def test_a_change_whose_record_an_earlier_attempt_stored_rolls_back_with_it(engine: Engine, rpc: str) -> None:
    repos, idem = sql_repositories(engine), _service(engine)
    method = f"/outrider.v1.{rpc}"
    case = _STORAGE_CASES[rpc](repos)
    idem.remember(method, "operator:test", "x-1", b"request", b"the earlier answer")
    with guarding(_guard(idem, method, "x-1")), pytest.raises(AlreadyRemembered):  # type: ignore[arg-type]
        case.change()
    assert case.before(), f"{rpc}: the change committed although its record was taken"
    g = _guard(idem, method, "x-2", b"applied")
    with guarding(g):  # type: ignore[arg-type]
        case.change()
    assert g.written and case.after()  # type: ignore[attr-defined]
    assert idem.recall(method, "operator:test", "x-2", b"request") == b"applied"
    # Another call's guard never takes the record (a write it causes on the way is not its change).
    other = _guard(idem, "/outrider.v1.SupervisorService/AddGuardrail", "x-3")
    with guarding(other):  # type: ignore[arg-type]
        case.change()
    assert not other.written  # type: ignore[attr-defined]


# ---- through the RPCs: the record cannot be lost after the change ------------------------------------------
#
# Storage goes away right after the change commits (the idempotency table refuses the record a call would
# store after its change): the call must still answer, since its record went in with the change, and a
# retry with the same request_id after another change gets the first answer and changes nothing. Before,
# the call answered UNAVAILABLE although applied, and its retry applied it a second time.


@dataclass
class _Rpc:
    call: Callable[[str], Message]  # the call, with this request_id
    between: Callable[[], object]  # another change between the lost answer and the retry
    holds: Callable[[], bool]  # that change stands after the retry (the retry changed nothing)
    setup: Callable[[], object] = lambda: None


def _pb_config(threshold: int) -> sg.BreakerConfig:
    return sg.BreakerConfig(failure_threshold=threshold)


def _rpc_cases(s: RunningSidecar, clock: FakeClock) -> dict[str, _Rpc]:
    a, key, group = _uid("agent"), _uid("brk"), _uid("g")
    admin = s.as_operator("idem-admin", admin=True)
    glob = spb.SetGlobalBudgetRequest
    policy = rpb.SetRecoveryPolicyRequest
    cascade = rpb.SetCascadePolicyRequest

    def registered(group: str = "") -> None:
        s.stub.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=a, group=group)))

    def group_of() -> str:
        return str(s.stub.GetAgent(pb.GetAgentRequest(agent_id=a)).agent.group)

    def check() -> recovery_pb2.HealthCheck:
        return s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id=a)).status.health_check

    def add_check(timeout: int, rid: str = "") -> Message:
        ping = recovery_pb2.HealthCheck(ping=recovery_pb2.PingCheck(timeout=_ttl(timeout)))
        return s.recovery.AddHealthCheck(rpb.AddHealthCheckRequest(agent_id=a, check=ping, request_id=rid))

    def substitute() -> None:
        s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(group=group, agent_id=a))

    def substitutes() -> list[str]:
        found = s.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(group=group)).substitutes
        return [x.agent_id for x in found]

    def running() -> bool:
        return bool(s.recovery.GetMonitoringState(rpb.GetMonitoringStateRequest()).state.running)

    def attempt() -> None:
        clock.advance(3600)  # past the cooldown
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id=a, reason="test"))

    def retries() -> int:
        return int(s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id=a)).retry_count)

    def with_check() -> None:
        registered()
        add_check(5)

    def with_attempt() -> None:
        registered()
        attempt()

    def with_substitute() -> None:
        registered()
        substitute()

    fingerprint = uuid.uuid4().hex * 2
    token_id = _token_of(s, a)
    return {
        "SetGlobalBudget": _Rpc(
            lambda rid: s.safeguard.SetGlobalBudget(glob(tokens=5000, request_id=rid)),
            lambda: s.safeguard.SetGlobalBudget(glob(tokens=7000)),
            lambda: s.safeguard.GlobalRemaining(spb.GlobalRemainingRequest()).remaining == 7000,
        ),
        "SetBreakerConfig": _Rpc(
            lambda rid: s.safeguard.SetBreakerConfig(
                spb.SetBreakerConfigRequest(key=key, config=_pb_config(7), request_id=rid)
            ),
            lambda: s.safeguard.SetBreakerConfig(spb.SetBreakerConfigRequest(key=key, config=_pb_config(9))),
            lambda: s.safeguard.GetBreaker(spb.GetBreakerRequest(key=key)).breaker.config.failure_threshold == 9,
        ),
        "RegisterAgent": _Rpc(
            lambda rid: s.stub.RegisterAgent(
                pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=a, group="g1"), request_id=rid)
            ),
            lambda: registered("g2"),
            lambda: group_of() == "g2",
        ),
        "DeregisterAgent": _Rpc(
            lambda rid: s.stub.DeregisterAgent(pb.DeregisterAgentRequest(agent_id=a, request_id=rid)),
            registered,
            lambda: group_of() == "default",
            registered,
        ),
        "RevokeToken": _Rpc(
            lambda rid: admin.access.RevokeToken(apb.RevokeTokenRequest(token_id=token_id, request_id=rid)),
            lambda: None,  # (a second revoke would answer FAILED_PRECONDITION: already revoked)
            lambda: s.services.access.repo.get(token_id).revoke_time is not None,
        ),
        "RevokeCertificate": _Rpc(
            lambda rid: admin.access.RevokeCertificate(
                apb.RevokeCertificateRequest(fingerprint=fingerprint, reason="lost", request_id=rid)
            ),
            lambda: None,  # (a second revoke would answer FAILED_PRECONDITION: already revoked)
            lambda: s.services.access.certificate_revoked(fingerprint),
        ),
        "AddHealthCheck": _Rpc(
            lambda rid: add_check(5, rid),
            lambda: add_check(9),
            lambda: check().ping.timeout.seconds == 9,
            registered,
        ),
        "RemoveHealthCheck": _Rpc(
            lambda rid: s.recovery.RemoveHealthCheck(rpb.RemoveHealthCheckRequest(agent_id=a, request_id=rid)),
            lambda: add_check(9),
            lambda: check().ping.timeout.seconds == 9,
            with_check,
        ),
        "StartMonitoring": _Rpc(
            lambda rid: s.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=_ttl(3600), request_id=rid)),
            lambda: s.recovery.StopMonitoring(rpb.StopMonitoringRequest()),
            lambda: not running(),
        ),
        "StopMonitoring": _Rpc(
            lambda rid: s.recovery.StopMonitoring(rpb.StopMonitoringRequest(request_id=rid)),
            lambda: s.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=_ttl(3600))),
            running,
            lambda: s.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=_ttl(3600))),
        ),
        "SetRecoveryPolicy": _Rpc(
            lambda rid: s.recovery.SetRecoveryPolicy(
                policy(policy=recovery_pb2.RecoveryPolicy(group=group, max_retries=2), request_id=rid)
            ),
            lambda: s.recovery.SetRecoveryPolicy(
                policy(policy=recovery_pb2.RecoveryPolicy(group=group, max_retries=5))
            ),
            lambda: s.recovery.GetRecoveryPolicy(rpb.GetRecoveryPolicyRequest(group=group)).policy.max_retries == 5,
        ),
        "SetCascadePolicy": _Rpc(
            lambda rid: s.recovery.SetCascadePolicy(
                cascade(policy=recovery_pb2.CascadePolicy(threshold=4), request_id=rid)
            ),
            lambda: s.recovery.SetCascadePolicy(cascade(policy=recovery_pb2.CascadePolicy(threshold=6))),
            lambda: s.recovery.GetCascadePolicy(rpb.GetCascadePolicyRequest()).policy.threshold == 6,
        ),
        "ResetRetryCounter": _Rpc(
            lambda rid: s.recovery.ResetRetryCounter(rpb.ResetRetryCounterRequest(agent_id=a, request_id=rid)),
            attempt,
            lambda: retries() == 1,
            with_attempt,
        ),
        "DeregisterSubstitute": _Rpc(
            lambda rid: s.recovery.DeregisterSubstitute(
                rpb.DeregisterSubstituteRequest(group=group, agent_id=a, request_id=rid)
            ),
            substitute,
            lambda: substitutes() == [a],
            with_substitute,
        ),
    }


def _token_of(s: RunningSidecar, agent: str) -> str:
    _, token = s.services.access.issue(PrincipalKind.AGENT, agent, "to revoke", "test")
    return str(token.token_id)


_RPCS = [
    "SetGlobalBudget", "SetBreakerConfig", "RegisterAgent", "DeregisterAgent", "RevokeToken", "RevokeCertificate",
    "AddHealthCheck", "RemoveHealthCheck", "StartMonitoring", "StopMonitoring", "SetRecoveryPolicy",
    "SetCascadePolicy", "ResetRetryCounter", "DeregisterSubstitute",
]  # fmt: skip


@pytest.mark.parametrize("rpc", _RPCS)
def test_a_retry_gets_the_first_answer_though_storage_went_right_after_the_change(
    s: RunningSidecar, clock: FakeClock, rpc: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _rpc_cases(s, clock)[rpc]
    case.setup()
    repo = s.services.idempotency.repo

    def gone(*_: object) -> bool:
        raise Unavailable("storage unavailable, retry")

    monkeypatch.setattr(repo, "put", gone)  # a record stored after the change would be lost
    rid = _uid(rpc)
    first = case.call(rid)  # answered: the record went in with the change
    monkeypatch.undo()
    case.between()
    assert case.call(rid) == first, f"a retried {rpc} did not get the first answer"
    assert case.holds(), f"a retried {rpc} was applied again"


def test_a_retried_health_check_run_whose_answer_was_lost_starts_no_second_recovery(
    s: RunningSidecar, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RunHealthChecks is no single transaction (the checks reach the agents; each recovery attempt is stored
    in its own): its answer is remembered after the run. A retry whose answer was lost runs the checks
    again, and each recovery it would start carries a request id derived from the call's, found stored:
    the first run's attempt is answered, none is started twice."""
    a, group = _uid("agent"), _uid("g")
    s.stub.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=a, group=group)))
    silent = recovery_pb2.HealthCheck(heartbeat=recovery_pb2.HeartbeatCheck(silence_threshold=_ttl(30)))
    s.recovery.AddHealthCheck(rpb.AddHealthCheckRequest(agent_id=a, check=silent))
    clock.advance(31)

    def gone(*_: object) -> bool:
        raise Unavailable("storage unavailable, retry")

    monkeypatch.setattr(s.services.idempotency.repo, "put", gone)
    request = rpb.RunHealthChecksRequest(group=group, request_id=_uid("run"))
    with pytest.raises(grpc.RpcError) as lost:
        s.recovery.RunHealthChecks(request)  # the checks ran and started a recovery; the answer was lost
    assert lost.value.code() == grpc.StatusCode.UNAVAILABLE
    monkeypatch.undo()
    history = s.recovery.GetRecoveryHistory(rpb.GetRecoveryHistoryRequest(agent_id=a)).results
    assert len(history) == 1
    clock.advance(3600)  # past the cooldown: a new attempt would run now
    again = s.recovery.RunHealthChecks(request)
    assert [(st.agent_id, st.healthy) for st in again.statuses] == [(a, False)]
    assert [r.recovery_id for r in again.recoveries] == [history[0].recovery_id]  # the first run's attempt
    assert len(s.recovery.GetRecoveryHistory(rpb.GetRecoveryHistoryRequest(agent_id=a)).results) == 1
    assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id=a)).retry_count == 1
    # A new request id is a new run, as always: it starts a new attempt.
    fresh = s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest(group=group, request_id=_uid("run")))
    assert len(fresh.recoveries) == 1 and fresh.recoveries[0].recovery_id != history[0].recovery_id
