"""One repository contract suite: the same cases on the in-memory repositories (server/adapters/memory) and the
SQL ones on SQLite and PostgreSQL, through the port methods only, so the fakes the unit tests run on are proven
to behave like the storage production runs on."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from server.adapters.memory import MemoryStore
from server.bootstrap import sql_repositories
from server.domain.access.principals import PrincipalKind, Token
from server.domain.agents import Agent, Containment, Standing
from server.domain.approvals.requests import Approval, ApprovalFilter, ApprovalPolicy, ApprovalState
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.guardrails import Severity
from server.domain.guardrails.decisions import Decision, DecisionFilter
from server.domain.safeguards.breakers import Breaker, BreakerConfig, BreakerState
from server.domain.safeguards.budgets import Allocation, GlobalBudget, Priority, Reservation, ReservationState
from server.domain.safeguards.leases import IsolationKey, LeaseState, Scope
from server.services.idempotency import MemoryIdempotency, Remembered
from server.storage.db import create_db_engine
from server.storage.idempotency import SqlIdempotencyRepository

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass
class Repos:
    kind: str
    agents: Any
    decisions: Any
    approvals: Any
    budgets: Any
    breakers: Any
    leases: Any
    idempotency: Any
    tokens: Any


# The `postgres` tier marker by hand: conftest finds it from `db_url`'s parameter, which this fixture
# cannot use (it is parametrized over the two databases only).
@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def repos(request: pytest.FixtureRequest) -> Iterator[Repos]:
    if request.param == "memory":
        r = MemoryStore().repositories()
        yield Repos("memory", r.agents, r.decisions, r.approvals, r.budgets, r.breakers, r.leases,
                    MemoryIdempotency(), r.tokens)  # fmt: skip
        return
    # `db_url` is parametrized itself: ask for the kind this case is about.
    url: str = request.getfixturevalue(f"_{request.param}_url")
    engine = create_db_engine(url)
    try:
        r = sql_repositories(engine)
        yield Repos(request.param, r.agents, r.decisions, r.approvals, r.budgets, r.breakers, r.leases,
                    SqlIdempotencyRepository(engine), r.tokens)  # fmt: skip
    finally:
        engine.dispose()


@pytest.fixture
def _sqlite_url(tmp_path: Any) -> str:
    import shutil

    from tests.conftest import sqlite_template

    shutil.copyfile(sqlite_template(), tmp_path / "outrider.db")
    return f"sqlite:///{tmp_path / 'outrider.db'}"


@pytest.fixture
def _postgres_url() -> Iterator[str]:
    from tests.conftest import _drop_pg_database, _fresh_pg_database, _need_pg

    _need_pg()
    url, name = _fresh_pg_database()
    try:
        yield url
    finally:
        _drop_pg_database(name)


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def no_signals(a: Allocation | None, g: GlobalBudget) -> list[Any]:
    return []


# ---- agents ------------------------------------------------------------------------------------------


def test_agents_upsert_creates_then_updates(repos: Repos) -> None:
    a = uid("a")
    stored, created = repos.agents.upsert(Agent(a, "g1", ("read",), {"team": "x"}))
    assert created and stored.create_time is not None
    again, created = repos.agents.upsert(Agent(a, "g2", ("write",), {}))
    assert not created
    assert (again.group, again.capabilities, dict(again.labels)) == ("g2", ("write",), {})
    assert again.create_time == stored.create_time
    got = repos.agents.get(a)
    assert got is not None and (got.group, got.capabilities) == ("g2", ("write",))


def test_agents_delete_keeps_the_standing_and_ever_registered(repos: Repos) -> None:
    a = uid("a")
    assert not repos.agents.ever_registered(a)
    repos.agents.upsert(Agent(a))
    before = repos.agents.records_version()
    assert repos.agents.delete(a) and not repos.agents.delete(a)
    assert repos.agents.get(a) is None and repos.agents.ever_registered(a)
    assert repos.agents.records_version() > before


def test_agents_standings(repos: Repos) -> None:
    a = uid("a")
    v0 = repos.agents.containment_version()
    assert repos.agents.set_standing(Containment(a, Standing.QUARANTINED, "", "why", "op")) is None
    assert repos.agents.containment_version() > v0
    assert repos.agents.contained()[a].standing is Standing.QUARANTINED
    prior = repos.agents.set_standing(Containment(a, Standing.ACTIVE, "", "", "op"))
    assert prior is not None and prior.standing is Standing.QUARANTINED
    assert a not in repos.agents.contained()


def test_agents_list_pages_by_id_within_a_group(repos: Repos) -> None:
    ids = sorted(uid("p") for _ in range(5))
    for i, a in enumerate(ids):
        repos.agents.upsert(Agent(a, "pg" if i != 2 else "other"))
    first = repos.agents.list("pg", 2, "")
    assert [a.agent_id for a in first.items] == [ids[0], ids[1]] and first.next_page_token
    second = repos.agents.list("pg", 2, first.next_page_token)
    assert [a.agent_id for a in second.items] == [ids[3], ids[4]] and second.next_page_token == ""
    assert len(repos.agents.all()) == 5


# ---- decisions ---------------------------------------------------------------------------------------


def decision(agent: str, n: int, allowed: bool = True, action: str = "act") -> Decision:
    return Decision(uuid.uuid4().hex, agent, action, "d" * 8, allowed, "why", Severity.INFO if allowed else
                    Severity.BLOCK, "" if allowed else "g", (), 5, T0 + timedelta(seconds=n))  # fmt: skip


def test_decisions_list_newest_first_with_paging_and_filters(repos: Repos) -> None:
    a, b = uid("a"), uid("b")
    rows = [decision(a, i, allowed=i % 2 == 0) for i in range(5)] + [decision(b, 10)]
    repos.decisions.insert_many(rows[:3])
    repos.decisions.insert_many(rows[3:])
    page = repos.decisions.list(DecisionFilter(agent_id=a), 2, "")
    assert [d.decision_id for d in page.items] == [rows[4].decision_id, rows[3].decision_id]
    page2 = repos.decisions.list(DecisionFilter(agent_id=a), 2, page.next_page_token)
    page3 = repos.decisions.list(DecisionFilter(agent_id=a), 2, page2.next_page_token)
    assert [d.decision_id for d in page2.items + page3.items] == [r.decision_id for r in rows[2::-1]]
    assert page3.next_page_token == ""
    blocked = repos.decisions.list(DecisionFilter(agent_id=a, outcome="blocked"), 10, "")
    assert [d.decision_id for d in blocked.items] == [rows[3].decision_id, rows[1].decision_id]
    window = DecisionFilter(start_time=T0 + timedelta(seconds=1), end_time=T0 + timedelta(seconds=3))
    assert [d.decision_id for d in repos.decisions.list(window, 10, "").items] == [
        rows[2].decision_id,
        rows[1].decision_id,
    ]
    d = repos.decisions.list(DecisionFilter(agent_id=b), 10, "").items[0]
    assert (d.agent_id, d.allowed, d.severity, d.create_time) == (b, True, Severity.INFO, rows[5].create_time)


def test_decisions_foreign_page_token_is_invalid_argument(repos: Repos) -> None:
    with pytest.raises(InvalidArgument) as e:
        repos.decisions.list(DecisionFilter(), 10, "not-a-token")
    assert e.value.field == "page_token"


def test_decisions_scan_oldest_first_and_prune(repos: Repos) -> None:
    a = uid("a")
    rows = [decision(a, i) for i in range(4)]
    repos.decisions.insert_many(rows)
    scanned = repos.decisions.scan(None, a, 0, 10)
    assert [d.decision_id for _, d in scanned] == [r.decision_id for r in rows]
    rest = repos.decisions.scan(None, a, scanned[1][0], 10)
    assert [d.decision_id for _, d in rest] == [r.decision_id for r in rows[2:]]
    assert [d.decision_id for _, d in repos.decisions.scan(T0 + timedelta(seconds=3), a, 0, 10)] == [
        rows[3].decision_id
    ]
    assert repos.decisions.prune(T0 + timedelta(seconds=1), None) == 1
    assert repos.decisions.prune(None, 2) == 1
    left = repos.decisions.list(DecisionFilter(agent_id=a), 10, "").items
    assert [d.decision_id for d in left] == [rows[3].decision_id, rows[2].decision_id]


def test_decisions_prune_in_batches_oldest_first(repos: Repos, monkeypatch: pytest.MonkeyPatch) -> None:
    # Retention deletes a few rows per transaction (the writer gets its turn between two); the result is the same
    # as one transaction's: the oldest go first, the newest `keep_rows` stay.
    from server.storage.supervisor import repository

    monkeypatch.setattr(repository, "PRUNE_BATCH", 3)
    monkeypatch.setattr(repository, "PRUNE_PAUSE", 0.0)
    a = uid("a")
    rows = [decision(a, i) for i in range(11)]
    repos.decisions.insert_many(rows)
    assert repos.decisions.prune(T0 + timedelta(seconds=4), None) == 4  # two full batches and one short
    assert repos.decisions.prune(None, 3) == 4
    assert repos.decisions.prune(None, 3) == 0
    left = repos.decisions.list(DecisionFilter(agent_id=a), 20, "").items
    assert [d.decision_id for d in left] == [r.decision_id for r in reversed(rows[8:])]


# ---- approvals ---------------------------------------------------------------------------------------


def approval(agent: str, n: int = 0, request_id: str = "", digest: str = "dg") -> Approval:
    return Approval(uid("apr"), agent, "deploy", {"k": "v"}, "hitl", request_id, "", digest, ApprovalState.PENDING,
                    T0 + timedelta(seconds=n), ApprovalPolicy(approvers=("alice",)),
                    expire_time=T0 + timedelta(seconds=60 + n))  # fmt: skip


def test_approvals_insert_get_and_duplicate_request(repos: Repos) -> None:
    a = uid("a")
    first = approval(a, request_id="r1")
    assert repos.approvals.insert(first)
    got = repos.approvals.get(first.approval_id)
    assert got is not None and (got.agent_id, got.state, dict(got.context)) == (a, ApprovalState.PENDING, {"k": "v"})
    assert got.policy.approvers == ("alice",)
    assert not repos.approvals.insert(approval(a, 1, request_id="r1"))  # same (agent, request, digest, attempt)
    found = repos.approvals.find_attach(a, "r1", "dg")
    assert found is not None and found.approval_id == first.approval_id
    assert repos.approvals.find_attach(a, "", "dg") is None
    assert repos.approvals.count_pending(a) == 1


def test_approvals_update_is_compare_and_set_on_version(repos: Repos) -> None:
    a = uid("a")
    ap = approval(a)
    repos.approvals.insert(ap)
    v = repos.approvals.version()
    decided = replace(ap, **{"state": ApprovalState.APPROVED, "version": 1,
                          "decide_time": T0 + timedelta(seconds=5), "decided_by": "alice"})  # type: ignore[arg-type]  # fmt: skip
    assert repos.approvals.update(decided, 0)
    assert not repos.approvals.update(decided, 0)  # stale version
    assert repos.approvals.version() > v
    got = repos.approvals.get(ap.approval_id)
    assert got is not None and (got.state, got.version, got.decided_by) == (ApprovalState.APPROVED, 1, "alice")
    assert repos.approvals.count_pending(a) == 0
    assert repos.approvals.mark_consumed(ap.approval_id, T0 + timedelta(seconds=6))
    assert not repos.approvals.mark_consumed(ap.approval_id, T0 + timedelta(seconds=7))


def test_approvals_pending_due_and_list(repos: Repos) -> None:
    a = uid("a")
    aps = [approval(a, n) for n in range(3)]
    for ap in aps:
        repos.approvals.insert(ap)
    assert [p.approval_id for p in repos.approvals.pending(a)] == [ap.approval_id for ap in aps]
    due = repos.approvals.due(T0 + timedelta(seconds=61))  # unordered by contract
    assert sorted(p.approval_id for p in due) == sorted([aps[0].approval_id, aps[1].approval_id])
    page = repos.approvals.list(ApprovalFilter(agent_id=a), 2, "")
    assert [p.approval_id for p in page.items] == [aps[2].approval_id, aps[1].approval_id] and page.next_page_token
    rest = repos.approvals.list(ApprovalFilter(agent_id=a), 2, page.next_page_token)
    assert [p.approval_id for p in rest.items] == [aps[0].approval_id] and rest.next_page_token == ""
    assert repos.approvals.list(ApprovalFilter(agent_id=a, closed_only=True), 10, "").items == []


def test_approvals_abandonment_marks_clears_and_cancels_conditionally(repos: Repos) -> None:
    a = uid("a")
    one, two, closed = approval(a, 0), approval(a, 1), approval(a, 2)
    for ap in (one, two, closed):
        repos.approvals.insert(ap)
    done = replace(closed, state=ApprovalState.APPROVED, version=1, decide_time=T0, decided_by="alice")
    assert repos.approvals.update(done, 0)
    t1 = T0 + timedelta(seconds=10)
    # Only pending requests are marked; an existing mark stands.
    assert repos.approvals.mark_abandoned([one.approval_id, closed.approval_id], t1) == 1
    assert repos.approvals.mark_abandoned([one.approval_id, two.approval_id], t1 + timedelta(seconds=5)) == 1
    got = repos.approvals.get(one.approval_id)
    assert got is not None and got.abandoned_at == t1
    assert sorted(x.approval_id for x in repos.approvals.abandoned(t1 + timedelta(seconds=5))
                  if x.agent_id == a) == sorted([one.approval_id, two.approval_id])  # fmt: skip
    assert [x.approval_id for x in repos.approvals.abandoned(t1) if x.agent_id == a] == [one.approval_id]
    # A whole-row update (a vote, an escalation) never writes the mark.
    voted = replace(got, stage=1, version=1, abandoned_at=None)
    assert repos.approvals.update(voted, 0)
    got = repos.approvals.get(one.approval_id)
    assert got is not None and got.abandoned_at == t1 and got.version == 1
    # The cancel holds only while the mark is as old as the cutoff and the version unchanged.
    gone = replace(got, state=ApprovalState.CANCELLED, version=2, decided_by="system", decide_time=t1)
    assert not repos.approvals.cancel_abandoned(gone, 1, t1 - timedelta(seconds=1))  # mark too young
    assert not repos.approvals.cancel_abandoned(gone, 0, t1)  # stale version
    assert repos.approvals.clear_abandoned([two.approval_id, closed.approval_id]) == 1
    assert not repos.approvals.cancel_abandoned(replace(gone, approval_id=two.approval_id), 0, t1 + timedelta(1))
    v = repos.approvals.update_version()
    assert repos.approvals.cancel_abandoned(gone, 1, t1)
    assert not repos.approvals.cancel_abandoned(gone, 1, t1)  # once
    assert repos.approvals.update_version() > v  # waiting calls see the change
    got = repos.approvals.get(one.approval_id)
    assert got is not None and got.state is ApprovalState.CANCELLED
    assert repos.approvals.abandoned(t1 + timedelta(days=1)) == [] or all(
        x.agent_id != a for x in repos.approvals.abandoned(t1 + timedelta(days=1))
    )


# ---- budgets -----------------------------------------------------------------------------------------


def reservation(agent: str, tokens: int, expire_s: float = 60) -> Reservation:
    return Reservation(uid("rsv"), agent, tokens, T0, T0 + timedelta(seconds=expire_s), 0.0)


def test_budgets_consume_updates_agent_and_global_totals(repos: Repos) -> None:
    a = uid("a")
    assert repos.budgets.init_global(1000, T0).total == 1000
    with pytest.raises(FailedPrecondition):
        repos.budgets.consume(a, 5, T0, no_signals)
    repos.budgets.allocate(a, 100, Priority.NORMAL, T0, no_signals)
    c = repos.budgets.consume(a, 30, T0, no_signals)
    c = repos.budgets.consume(a, 5, T0, no_signals)
    assert (c.allocation.used, c.allocation.remaining, c.global_budget.used) == (35, 65, 35)
    alloc, glob = repos.budgets.read(a)
    assert (alloc.used, alloc.allocated, glob.used, glob.total) == (35, 100, 35, 1000)


def test_budgets_reserve_then_settle(repos: Repos) -> None:
    a = uid("a")
    repos.budgets.init_global(1000, T0)
    repos.budgets.allocate(a, 100, Priority.NORMAL, T0, no_signals)
    r = reservation(a, 40)
    out = repos.budgets.reserve(r, {}, T0, no_signals)
    assert out.change is not None and out.refused == ""
    assert (out.change.allocation.reserved, out.change.global_budget.reserved) == (40, 40)
    refused = repos.budgets.reserve(reservation(a, 70), {}, T0, no_signals)
    assert (refused.change, refused.refused) == (None, "agent")
    with pytest.raises(PermissionDenied) as denied:
        repos.budgets.settle(r.reservation_id, 25, "someone-else", T0, no_signals)
    assert denied.value.reason == "NOT_YOUR_AGENT"  # what the agent is told is the same on every store
    assert str(denied.value) == "agent credential 'someone-else' may only settle its own reservations"
    change, repeated = repos.budgets.settle(r.reservation_id, 25, a, T0, no_signals)
    assert not repeated
    assert (change.allocation.used, change.allocation.reserved, change.global_budget.used) == (25, 0, 25)
    change, repeated = repos.budgets.settle(r.reservation_id, 25, a, T0, no_signals)  # a retry changes nothing
    assert repeated and change.allocation.used == 25
    with pytest.raises(FailedPrecondition) as settled:
        repos.budgets.settle(r.reservation_id, 26, a, T0, no_signals)
    assert settled.value.reason == "ALREADY_SETTLED"
    assert str(settled.value) == f"reservation {r.reservation_id!r} was already settled with actual 25"
    with pytest.raises(NotFound):
        repos.budgets.settle("rsv-missing", 1, a, T0, no_signals)
    stored = repos.budgets.reservation(r.reservation_id)
    assert stored is not None and (stored.state, stored.actual) == (ReservationState.SETTLED, 25)


def test_budgets_expire_releases_open_reservations(repos: Repos) -> None:
    a = uid("a")
    repos.budgets.init_global(1000, T0)
    repos.budgets.allocate(a, 100, Priority.NORMAL, T0, no_signals)
    r = reservation(a, 30, expire_s=10)
    repos.budgets.reserve(r, {}, T0, no_signals)
    assert repos.budgets.expire(T0 + timedelta(seconds=5), timedelta(hours=1), no_signals)[0] == 0
    assert repos.budgets.expire(T0 + timedelta(seconds=11), timedelta(hours=1), no_signals)[0] == 1
    alloc, glob = repos.budgets.read(a)
    assert (alloc.reserved, glob.reserved, alloc.used) == (0, 0, 0)
    stored = repos.budgets.reservation(r.reservation_id)
    assert stored is not None and stored.state is ReservationState.EXPIRED


def test_budgets_reallocation_cancels_open_reservations(repos: Repos) -> None:
    a = uid("a")
    repos.budgets.init_global(1000, T0)
    repos.budgets.allocate(a, 100, Priority.NORMAL, T0, no_signals)
    r = reservation(a, 30)
    repos.budgets.reserve(r, {}, T0, no_signals)
    c = repos.budgets.allocate(a, 200, Priority.HIGH, T0, no_signals, priority_set=True)
    assert (c.allocation.allocated, c.allocation.reserved, c.global_budget.reserved) == (200, 0, 0)
    assert c.allocation.priority is Priority.HIGH
    stored = repos.budgets.reservation(r.reservation_id)
    assert stored is not None and stored.state is ReservationState.CANCELLED


# ---- breakers ----------------------------------------------------------------------------------------


def test_breakers_create_is_idempotent_and_transition_is_compare_and_set(repos: Repos) -> None:
    key = uid("brk")
    repos.breakers.create_breakers([Breaker(key, BreakerConfig(), T0, T0)])
    repos.breakers.create_breakers([Breaker(key, BreakerConfig(), T0, T0, failure_count=9)])  # exists: kept
    b = repos.breakers.get_breaker(key)
    assert b is not None and (b.state, b.generation, b.failure_count) == (BreakerState.CLOSED, 1, 0)
    opened = Breaker(key, BreakerConfig(), T0, T0 + timedelta(seconds=1), state=BreakerState.OPEN, generation=2,
                     open_time=T0 + timedelta(seconds=1))  # fmt: skip
    assert repos.breakers.transition(opened, 1)
    assert not repos.breakers.transition(opened, 1)  # the generation moved on
    b = repos.breakers.get_breaker(key)
    assert b is not None and (b.state, b.generation) == (BreakerState.OPEN, 2)
    assert [x.key for x in repos.breakers.load_breakers() if x.key == key] == [key]
    assert repos.breakers.get_breaker(uid("none")) is None


def test_breakers_probes_are_limited_per_generation(repos: Repos) -> None:
    key = uid("brk")
    repos.breakers.create_breakers([Breaker(key, BreakerConfig(), T0, T0)])
    half = Breaker(key, BreakerConfig(), T0, T0, state=BreakerState.HALF_OPEN, generation=2)
    assert repos.breakers.transition(half, 1)
    assert repos.breakers.take_probe(key, 2, 1)
    assert not repos.breakers.take_probe(key, 2, 1)  # the limit
    assert not repos.breakers.take_probe(key, 1, 5)  # an old generation
    repos.breakers.return_probe(key, 2)
    assert repos.breakers.take_probe(key, 2, 1)
    repos.breakers.set_runtime_config(key, {"failure_threshold": 3}, T0 + timedelta(seconds=2))
    b = repos.breakers.get_breaker(key)
    assert b is not None and b.runtime_config == {"failure_threshold": 3} and b.probes == 1


# ---- leases ------------------------------------------------------------------------------------------


def test_leases_acquire_up_to_the_limit_then_queue(repos: Repos) -> None:
    key = IsolationKey(Scope.USER, uid("u"))
    stale = T0 - timedelta(minutes=1)
    one, w = repos.leases.try_acquire(key, 1, "ag-1", 30.0, "", T0, None, stale)
    assert one is not None and w == "" and one.fencing_token == 1 and one.state is LeaseState.ACTIVE
    none, waiter = repos.leases.try_acquire(key, 1, "ag-2", 30.0, "", T0, None, stale)
    assert none is None and waiter
    assert repos.leases.waiters(key) == 1
    again, same = repos.leases.try_acquire(key, 1, "ag-2", 30.0, "", T0, waiter, stale)
    assert again is None and same == waiter
    released = repos.leases.release(one.lease_id, T0 + timedelta(seconds=1))
    assert released is not None and released.state is LeaseState.RELEASED
    two, w = repos.leases.try_acquire(key, 1, "ag-2", 30.0, "", T0 + timedelta(seconds=1), waiter, stale)
    assert two is not None and w == "" and two.fencing_token == 2  # fencing tokens only grow
    assert repos.leases.waiters(key) == 0


def test_leases_same_request_id_gets_the_same_lease(repos: Repos) -> None:
    key = IsolationKey(Scope.AGENT, uid("k"))
    stale = T0 - timedelta(minutes=1)
    first, _ = repos.leases.try_acquire(key, None, "ag-1", 30.0, "req-1", T0, None, stale)
    second, _ = repos.leases.try_acquire(key, None, "ag-1", 30.0, "req-1", T0, None, stale)
    assert first is not None and second is not None and second.lease_id == first.lease_id


def test_leases_expire_renew_and_reap(repos: Repos) -> None:
    key = IsolationKey(Scope.SESSION, uid("s"))
    stale = T0 - timedelta(minutes=1)
    le, _ = repos.leases.try_acquire(key, 1, "ag-1", 10.0, "", T0, None, stale)
    assert le is not None
    renewed = repos.leases.renew(le.lease_id, 20.0, T0 + timedelta(seconds=5))
    assert renewed is not None and renewed.expire_time == T0 + timedelta(seconds=25)
    assert repos.leases.reap(T0 + timedelta(seconds=24)) == []
    reaped = repos.leases.reap(T0 + timedelta(seconds=25))
    assert [x.lease_id for x in reaped] == [le.lease_id] and reaped[0].state is LeaseState.EXPIRED
    late = repos.leases.renew(le.lease_id, 20.0, T0 + timedelta(seconds=30))
    assert late is not None and late.state is LeaseState.EXPIRED
    # An expired holder no longer counts against the limit.
    nxt, w = repos.leases.try_acquire(key, 1, "ag-2", 10.0, "", T0 + timedelta(seconds=30), None, stale)
    assert nxt is not None and w == ""
    assert repos.leases.get_lease(uid("lse")) is None


def test_leases_revoke_agent_ends_its_leases_and_kills_its_waits(repos: Repos) -> None:
    key = IsolationKey(Scope.GLOBAL, uid("g"))
    stale = T0 - timedelta(minutes=1)
    held, _ = repos.leases.try_acquire(key, 1, "victim", 30.0, "", T0, None, stale)
    other = IsolationKey(Scope.USER, uid("u"))
    repos.leases.try_acquire(other, 1, "holder", 30.0, "", T0, None, stale)
    _, waiter = repos.leases.try_acquire(other, 1, "victim", 30.0, "", T0, None, stale)
    revoked = repos.leases.revoke_agent("victim", T0 + timedelta(seconds=1))
    assert held is not None and [x.lease_id for x in revoked] == [held.lease_id]
    assert revoked[0].state is LeaseState.REVOKED
    with pytest.raises(FailedPrecondition):
        repos.leases.try_acquire(other, 1, "victim", 30.0, "", T0 + timedelta(seconds=2), waiter, stale)


def test_leases_list_pages_newest_first_and_prune(repos: Repos) -> None:
    agent = uid("ag")
    stale = T0 - timedelta(minutes=1)
    made = []
    for n in range(3):
        le, _ = repos.leases.try_acquire(IsolationKey(Scope.USER, uid("u")), None, agent, 30.0, "",
                                         T0 + timedelta(seconds=n), None, stale)  # fmt: skip
        assert le is not None
        made.append(le)
    page = repos.leases.list_leases(0, "", agent, 0, 2, "")
    assert [x.lease_id for x in page.items] == [made[2].lease_id, made[1].lease_id] and page.next_page_token
    rest = repos.leases.list_leases(0, "", agent, 0, 2, page.next_page_token)
    assert [x.lease_id for x in rest.items] == [made[0].lease_id] and rest.next_page_token == ""
    repos.leases.release(made[0].lease_id, T0 + timedelta(seconds=5))
    active = repos.leases.list_leases(0, "", agent, int(LeaseState.ACTIVE), 10, "")
    assert [x.lease_id for x in active.items] == [made[2].lease_id, made[1].lease_id]
    assert repos.leases.prune_leases(T0 + timedelta(seconds=6)) == 1
    assert repos.leases.get_lease(made[0].lease_id) is None
    assert repos.leases.get_lease(made[1].lease_id) is not None


# ---- idempotency -------------------------------------------------------------------------------------


def test_idempotency_first_put_wins_and_prune(repos: Repos) -> None:
    key = uuid.uuid4().hex
    assert repos.idempotency.get(key) is None
    assert repos.idempotency.put(key, "/m", "agent:a", Remembered("dig", b"first"), T0)
    assert not repos.idempotency.put(key, "/m", "agent:a", Remembered("dig2", b"second"), T0)
    assert repos.idempotency.get(key) == Remembered("dig", b"first")
    newer = uuid.uuid4().hex
    repos.idempotency.put(newer, "/m", "agent:a", Remembered("d", b""), T0 + timedelta(hours=1))
    assert repos.idempotency.prune(T0 + timedelta(minutes=1)) == 1
    assert repos.idempotency.get(key) is None and repos.idempotency.get(newer) == Remembered("d", b"")


# ---- tokens ------------------------------------------------------------------------------------------


def token(subject: str, n: int) -> Token:
    return Token(uid("tok"), PrincipalKind.AGENT, subject, "d", "op", T0 + timedelta(seconds=n))


def test_tokens_insert_revoke_and_active(repos: Repos) -> None:
    s = uid("s")
    t = token(s, 0)
    v = repos.tokens.version()
    repos.tokens.insert(t, "hash-" + t.token_id)
    assert repos.tokens.version() > v
    assert repos.tokens.active()["hash-" + t.token_id].subject == s
    revoked = repos.tokens.revoke(t.token_id, T0 + timedelta(seconds=1))
    assert revoked is not None and (revoked.token_id, revoked.revoke_time) == (t.token_id, None)  # as it was
    assert "hash-" + t.token_id not in repos.tokens.active()
    assert repos.tokens.revoke(uid("tok"), T0) is None


def test_tokens_list_pages_newest_first(repos: Repos) -> None:
    s = uid("s")
    ts = [token(s, n) for n in range(3)]
    for t in ts:
        repos.tokens.insert(t, "h" + t.token_id)
    repos.tokens.revoke(ts[1].token_id, T0 + timedelta(seconds=9))
    page = repos.tokens.list(s, True, 2, "")
    assert [t.token_id for t in page.items] == [ts[2].token_id, ts[1].token_id] and page.next_page_token
    rest = repos.tokens.list(s, True, 2, page.next_page_token)
    assert [t.token_id for t in rest.items] == [ts[0].token_id] and rest.next_page_token == ""
    assert [t.token_id for t in repos.tokens.list(s, False, 10, "").items] == [ts[2].token_id, ts[0].token_id]


def test_tokens_certificate_revocation_is_once(repos: Repos) -> None:
    fp = uuid.uuid4().hex
    assert repos.tokens.revoke_certificate(fp, "lost", "op", T0)
    assert not repos.tokens.revoke_certificate(fp, "lost", "op", T0)
    assert fp in repos.tokens.revoked_certificates()


# ---- more edges: where a fake could drift quietly ------------------------------------------------------


def test_agents_foreign_page_token_and_terminated_is_contained(repos: Repos) -> None:
    with pytest.raises(InvalidArgument) as e:
        repos.agents.list("", 10, "garbage!")
    assert e.value.field == "page_token"
    a = uid("a")
    repos.agents.set_standing(Containment(a, Standing.TERMINATED, "kill-1", "gone", "op"))
    c = repos.agents.contained()[a]
    assert (c.standing, c.kill_id, c.detail, c.actor) == (Standing.TERMINATED, "kill-1", "gone", "op")


def test_decisions_keep_shadow_and_context_and_filter_on_them(repos: Repos) -> None:
    a = uid("a")
    plain = decision(a, 0)
    shadowed = replace(decision(a, 1), shadow_guardrail="sh", shadow_reason="would block", context={"x": 1})
    repos.decisions.insert_many([plain, shadowed])
    got = repos.decisions.list(DecisionFilter(agent_id=a, shadow_guardrail="sh"), 10, "").items
    assert [d.decision_id for d in got] == [shadowed.decision_id]
    assert (got[0].shadow_reason, dict(got[0].context or {})) == ("would block", {"x": 1})
    none = repos.decisions.list(DecisionFilter(agent_id=a, shadow_outcome="none"), 10, "").items
    assert [d.decision_id for d in none] == [plain.decision_id] and none[0].context is None


def test_approvals_filters_attempts_and_group_insert(repos: Repos) -> None:
    a = uid("a")
    first, retry = approval(a, 0, request_id="r"), replace(approval(a, 1, request_id="r"), attempt=1)
    other = approval(a, 2)
    assert repos.approvals.insert_many([(first, ()), (retry, ()), (other, ())]) == [True, True, True]
    dup = approval(a, 3, request_id="r")
    assert repos.approvals.insert_many([(dup, ()), (approval(a, 4), ())]) == [False, True]
    found = repos.approvals.find_attach(a, "r", "dg")
    assert found is not None and found.approval_id == retry.approval_id  # the newest attempt
    rejected = replace(other, state=ApprovalState.REJECTED, version=1, decided_by="bob")
    assert repos.approvals.update(rejected, 0)
    by_state = repos.approvals.list(ApprovalFilter(agent_id=a, state=ApprovalState.REJECTED), 10, "").items
    assert [x.approval_id for x in by_state] == [other.approval_id]
    closed = repos.approvals.list(ApprovalFilter(agent_id=a, closed_only=True), 10, "").items
    assert [x.approval_id for x in closed] == [other.approval_id]
    assert repos.approvals.versions([other.approval_id, "apr-missing"]) == {other.approval_id: 1}
    assert set(repos.approvals.get_many([first.approval_id, "apr-missing"])) == {first.approval_id}


def test_budgets_pool_refusal_and_priority_floor(repos: Repos) -> None:
    a, b = uid("a"), uid("b")
    repos.budgets.init_global(100, T0)
    repos.budgets.allocate(a, 200, Priority.NORMAL, T0, no_signals)  # allocations may exceed the pool
    repos.budgets.allocate(b, 100, Priority.CRITICAL, T0, no_signals, priority_set=True)
    repos.budgets.consume(a, 95, T0, no_signals)
    refused = repos.budgets.reserve(reservation(a, 8), {Priority.NORMAL: 50}, T0, no_signals)
    assert (refused.refused, refused.change) == ("global", None)  # NORMAL was not set explicitly: no floor
    floor = repos.budgets.reserve(reservation(b, 8), {Priority.CRITICAL: 10}, T0, no_signals)
    assert floor.refused == "" and floor.floor_applied and floor.change is not None
    assert floor.change.global_budget.reserved == 8
    over = repos.budgets.reserve(reservation(b, 11), {Priority.CRITICAL: 10}, T0, no_signals)
    assert over.refused == "global"


def test_budgets_runtime_total_survives_init_global(repos: Repos) -> None:
    repos.budgets.init_global(100, T0)
    assert repos.budgets.init_global(150, T0).total == 150  # a changed file total applies
    c = repos.budgets.set_global(500, T0, no_signals)
    assert (c.allocation, c.global_budget.total, c.global_budget.source) == (None, 500, "runtime")
    assert repos.budgets.init_global(200, T0).total == 500  # set at runtime: the file no longer decides
    _, glob = repos.budgets.read(uid("nobody"))
    assert glob is not None and glob.total == 500


def test_breakers_outcomes_count_failures_and_reset_on_success(repos: Repos) -> None:
    from server.domain.safeguards.breakers import Outcome
    from server.services.safeguards.breakers import OutcomeBatch, OutcomeEvent

    key = uid("brk")
    t = [T0 + timedelta(seconds=n) for n in range(4)]
    fail = Outcome.FAILURE

    def keep(b: Breaker, batch: OutcomeBatch) -> list[Any]:
        return []

    [(b, changes)] = repos.breakers.add_outcomes([OutcomeBatch(key, 1, [OutcomeEvent(fail, t[0])])], keep)
    assert b is not None and changes == [] and b.failure_count == 1  # generation 1 creates the breaker
    events = [OutcomeEvent(fail, t[1]), OutcomeEvent(Outcome.SUCCESS, t[2], cached=("v",)), OutcomeEvent(fail, t[3])]
    [(b, _)] = repos.breakers.add_outcomes([OutcomeBatch(key, 1, events)], keep)
    assert b is not None and (b.failure_count, b.last_failure_time, b.last_success_time) == (1, t[3], t[2])
    assert (b.has_cached, b.cached) == (True, "v")
    stale = repos.breakers.add_outcomes([OutcomeBatch(key, 7, [OutcomeEvent(fail, t[3])])], keep)
    assert stale == [(None, [])]
    stored = repos.breakers.get_breaker(key)
    assert stored is not None and stored.failure_count == 1


def test_leases_filters_and_ends_of_unknown_or_ended_leases(repos: Repos) -> None:
    stale = T0 - timedelta(minutes=1)
    agent = uid("ag")
    k1, k2 = IsolationKey(Scope.USER, uid("u")), IsolationKey(Scope.SESSION, uid("s"))
    l1, _ = repos.leases.try_acquire(k1, None, agent, 30.0, "", T0, None, stale)
    l2, _ = repos.leases.try_acquire(k2, None, agent, 30.0, "", T0 + timedelta(seconds=1), None, stale)
    assert l1 is not None and l2 is not None
    by_scope = repos.leases.list_leases(int(Scope.USER), k1.id, agent, 0, 10, "").items
    assert [x.lease_id for x in by_scope] == [l1.lease_id]
    no_scope = repos.leases.list_leases(0, k1.id, agent, 0, 10, "").items  # an id means nothing without a scope
    assert [x.lease_id for x in no_scope] == [l2.lease_id, l1.lease_id]
    with pytest.raises(InvalidArgument):
        repos.leases.list_leases(0, "", agent, 0, 10, "garbage!")
    assert repos.leases.release(uid("lse"), T0) is None
    ended = repos.leases.release(l1.lease_id, T0 + timedelta(seconds=2))
    assert ended is not None and ended.end_time == T0 + timedelta(seconds=2)
    again = repos.leases.renew(l1.lease_id, 30.0, T0 + timedelta(seconds=3))  # released stays released
    assert again is not None and (again.state, again.end_time) == (LeaseState.RELEASED, T0 + timedelta(seconds=2))


def test_tokens_foreign_page_token_and_revoke_twice(repos: Repos) -> None:
    with pytest.raises(InvalidArgument):
        repos.tokens.list("", True, 10, "garbage!")
    s = uid("s")
    t = token(s, 0)
    repos.tokens.insert(t, "h" + t.token_id)
    repos.tokens.revoke(t.token_id, T0 + timedelta(seconds=1))
    v = repos.tokens.version()
    again = repos.tokens.revoke(t.token_id, T0 + timedelta(seconds=2))
    assert again is not None and again.revoke_time == T0 + timedelta(seconds=1)  # the first revocation stands
    assert repos.tokens.version() == v


def test_agents_a_standing_alone_is_not_a_registration(repos: Repos) -> None:
    a = uid("a")
    repos.agents.set_standing(Containment(a, Standing.QUARANTINED, "", "why", "op"))
    assert not repos.agents.ever_registered(a) and repos.agents.get(a) is None
    repos.agents.upsert(Agent(a))
    assert repos.agents.ever_registered(a)
    assert repos.agents.contained()[a].standing is Standing.QUARANTINED  # registering does not lift it


def test_budgets_settle_after_expiry_and_ended_reservations_go(repos: Repos) -> None:
    a = uid("a")
    repos.budgets.init_global(1000, T0)
    repos.budgets.allocate(a, 100, Priority.NORMAL, T0, no_signals)
    r = reservation(a, 30, expire_s=10)
    repos.budgets.reserve(r, {}, T0, no_signals)
    repos.budgets.expire(T0 + timedelta(seconds=10), timedelta(hours=1), no_signals)
    change, repeated = repos.budgets.settle(r.reservation_id, 12, a, T0 + timedelta(seconds=11), no_signals)
    assert not repeated
    assert (change.allocation.used, change.allocation.reserved, change.global_budget.reserved) == (12, 0, 0)
    stored = repos.budgets.reservation(r.reservation_id)
    assert stored is not None and (stored.state, stored.actual) == (ReservationState.EXPIRED, 12)
    assert repos.budgets.expire(T0 + timedelta(hours=2), timedelta(hours=1), no_signals)[0] == 0
    assert repos.budgets.reservation(r.reservation_id) is None
    alloc, _ = repos.budgets.read(a)
    assert alloc is not None and alloc.used == 12


def test_leases_the_queue_is_first_come_first_served(repos: Repos) -> None:
    key = IsolationKey(Scope.USER, uid("u"))
    stale = T0 - timedelta(minutes=1)
    held, _ = repos.leases.try_acquire(key, 1, "holder", 30.0, "", T0, None, stale)
    _, first = repos.leases.try_acquire(key, 1, "ag-first", 30.0, "", T0, None, stale)
    _, second = repos.leases.try_acquire(key, 1, "ag-second", 30.0, "", T0, None, stale)
    assert held is not None and first and second and first != second and repos.leases.waiters(key) == 2
    repos.leases.release(held.lease_id, T0 + timedelta(seconds=1))
    later = T0 + timedelta(seconds=2)
    jumped, same = repos.leases.try_acquire(key, 1, "ag-second", 30.0, "", later, second, stale)
    assert jumped is None and same == second  # the first waiter is ahead
    granted, _ = repos.leases.try_acquire(key, 1, "ag-first", 30.0, "", later, first, stale)
    assert granted is not None and granted.agent_id == "ag-first"
    repos.leases.leave_queue(second)
    assert repos.leases.waiters(key) == 0


def test_leases_waiters_that_stop_polling_are_dropped(repos: Repos) -> None:
    key = IsolationKey(Scope.USER, uid("u"))
    long_ago = T0 - timedelta(minutes=1)
    held, _ = repos.leases.try_acquire(key, 1, "holder", 30.0, "", T0, None, long_ago)
    _, gone = repos.leases.try_acquire(key, 1, "ag-gone", 30.0, "", T0, None, long_ago)
    assert held is not None and gone
    repos.leases.release(held.lease_id, T0 + timedelta(seconds=1))
    # Polls older than `stale_before` mean the waiter left: the next caller is not queued behind it.
    now = T0 + timedelta(seconds=20)
    got, _ = repos.leases.try_acquire(key, 1, "ag-new", 30.0, "", now, None, now - timedelta(seconds=10))
    assert got is not None and got.agent_id == "ag-new"


def test_breakers_a_transition_keeps_the_runtime_config(repos: Repos) -> None:
    key = uid("brk")
    repos.breakers.create_breakers([Breaker(key, BreakerConfig(), T0, T0)])
    repos.breakers.set_runtime_config(key, {"failure_threshold": 2}, T0 + timedelta(seconds=1))
    opened = Breaker(key, BreakerConfig(), T0, T0 + timedelta(seconds=2), state=BreakerState.OPEN, generation=2)
    assert repos.breakers.transition(opened, 1)
    b = repos.breakers.get_breaker(key)
    assert b is not None and b.runtime_config == {"failure_threshold": 2} and b.create_time == T0
