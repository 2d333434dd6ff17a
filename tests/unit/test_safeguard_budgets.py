"""Token budgets: the SupervisorAgent library's TokenBudget rules, reservations, priorities and edge-triggered
signals."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel

import server.storage.tables  # noqa: F401  (registers the tables)
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards.budgets import BudgetSignal, Priority, ReservationState, SignalType
from server.services.safeguards.budgets import BudgetService, describe
from server.services.safeguards.settings import BudgetSettings
from server.storage.db import create_db_engine
from server.storage.fleet.changes import ChangeLog
from server.storage.safeguards.budgets import SqlBudgetLedger
from tests.fakes import FakeClock
from tests.fakes.safeguards import MemoryAudit


def ledger() -> SqlBudgetLedger:
    """Budgets are changed in the database itself, so these rules run on a real SQLite file (a fresh
    temporary one per call; the same ledger again is a restart)."""
    path = Path(tempfile.mkdtemp(prefix="budgets-")) / "b.db"
    engine = create_db_engine(f"sqlite:///{path}")
    SQLModel.metadata.create_all(engine)
    return SqlBudgetLedger(engine, ChangeLog(engine, "sc-test"))


WARN, STOP, RESUME = SignalType.SIGWARN, SignalType.SIGSTOP, SignalType.SIGRESUME


class Sink:
    def __init__(self) -> None:
        self.got: list[tuple[str, BudgetSignal, str]] = []

    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None:
        self.got.append((agent_id, signal, detail))


def service(
    repo: SqlBudgetLedger | None = None, clock: FakeClock | None = None, **settings: Any
) -> tuple[BudgetService, Sink]:
    sink = Sink()
    svc = BudgetService(repo or ledger(), clock or FakeClock(), BudgetSettings(**settings), MemoryAudit(), [sink])
    svc.load()
    return svc, sink


def kinds(signals: Any) -> list[tuple[SignalType, bool]]:
    return [(s.type, s.is_global) for s in signals]


class TestSeedRules:
    def test_allocate_consume_and_report(self) -> None:
        svc, _ = service(global_total=100_000)
        svc.allocate("a1", 30_000)
        done = svc.consume("a1", 2_000)
        assert (done.allocation.used, done.global_budget.used) == (2_000, 2_000)
        assert svc.remaining("a1") == 28_000 and svc.global_remaining() == 98_000
        assert svc.usage_percent("a1") == pytest.approx(2_000 / 30_000 * 100)
        assert svc.global_usage_percent() == pytest.approx(2.0)

    def test_allocating_again_replaces_and_restarts_the_count_but_not_the_global_one(self) -> None:
        svc, _ = service(global_total=100_000)
        svc.allocate("a1", 1_000)
        svc.consume("a1", 600)
        svc.allocate("a1", 5_000)
        assert (svc.get("a1").allocated, svc.get("a1").used) == (5_000, 0)
        assert svc.global_budget().used == 600

    def test_consume_without_allocation_is_a_failed_precondition(self) -> None:
        svc, _ = service()
        with pytest.raises(FailedPrecondition, match="no token allocation"):
            svc.consume("ghost", 1)

    def test_usage_beyond_the_budget_is_recorded_with_warnings_from_90_percent(self) -> None:
        svc, _ = service(global_total=1_000_000)
        svc.allocate("a1", 1_000)
        assert svc.consume("a1", 899).usage.warnings == ()
        assert svc.consume("a1", 1).usage.warnings == ("a1 at 90% of its 1000-token allocation",)
        over = svc.consume("a1", 500)
        assert over.usage.over_budget and over.allocation.used == 1_400 and over.allocation.remaining == 0
        assert svc.usage_percent("a1") == pytest.approx(140.0)

    def test_can_consume_needs_room_in_both(self) -> None:
        svc, _ = service(global_total=1_000, min_context={p: 0 for p in Priority})
        svc.allocate("a1", 800)
        svc.allocate("a2", 800)
        assert svc.can_consume("a1", 800).allowed
        assert not svc.can_consume("a1", 801).allowed
        svc.consume("a2", 700)
        fit = svc.can_consume("a1", 301)
        assert (fit.allowed, fit.reason) == (False, "global budget: 300 left")
        assert not svc.can_consume("ghost", 1).allowed and svc.can_consume("ghost", 1).reason == "no allocation"

    def test_zero_and_negative_amounts_are_invalid(self) -> None:
        svc, _ = service()
        svc.allocate("a1", 10)
        for bad in (lambda: svc.allocate("a1", 0), lambda: svc.consume("a1", -1), lambda: svc.can_consume("a1", 0)):
            with pytest.raises(InvalidArgument):
                bad()
        with pytest.raises(InvalidArgument):
            svc.reserve("a1", 0)
        with pytest.raises(InvalidArgument):
            svc.allocate("a1", 5, priority=9)

    def test_without_allocation_reports_zero(self) -> None:
        svc, _ = service()
        assert (svc.remaining("x"), svc.usage_percent("x")) == (0, 0.0)
        with pytest.raises(NotFound):
            svc.get("x")


class TestSignals:
    def test_sigwarn_once_per_crossing_then_sigstop(self) -> None:
        svc, sink = service()
        svc.allocate("a1", 1_000)
        assert kinds(svc.consume("a1", 899).usage.signals) == []
        assert kinds(svc.consume("a1", 1).usage.signals) == [(WARN, False)]
        assert kinds(svc.consume("a1", 50).usage.signals) == []  # still above 90%: no second SIGWARN
        assert kinds(svc.consume("a1", 50).usage.signals) == [(STOP, False)]
        assert kinds(svc.consume("a1", 10).usage.signals) == []  # stopped: no repeat
        svc.events.flush()
        assert [s.type for _, s, _ in sink.got] == [WARN, STOP]
        assert sink.got[1][2] == "SIGSTOP: a1's allocation is exhausted (1000 of 1000 tokens used)"

    def test_jumping_past_both_edges_sends_both_in_order(self) -> None:
        svc, _ = service()
        svc.allocate("a1", 100)
        assert kinds(svc.consume("a1", 150).usage.signals) == [(WARN, False), (STOP, False)]

    def test_new_allocation_resumes_and_rearms_the_warning(self) -> None:
        svc, _ = service()
        svc.allocate("a1", 100)
        svc.consume("a1", 100)
        assert kinds(svc.allocate("a1", 100).signals) == [(RESUME, False)]
        assert kinds(svc.consume("a1", 95).usage.signals) == [(WARN, False)]

    def test_global_signals_name_the_agent_that_caused_them(self) -> None:
        svc, _ = service(global_total=1_000)
        svc.allocate("a1", 10_000)
        done = svc.consume("a1", 1_000)
        assert kinds(done.usage.signals) == [(WARN, True), (STOP, True)]
        assert {s.agent_id for s in done.usage.signals} == {"a1"}
        glob, signals = svc.set_global(5_000)
        assert kinds(signals) == [(RESUME, True)] and signals[0].agent_id == "" and glob.used == 1_000

    def test_describe(self) -> None:
        svc, _ = service(global_total=100)
        svc.allocate("a1", 1_000)
        warn = svc.consume("a1", 95).usage.signals[0]
        assert describe(warn) == "SIGWARN: the global budget reached 90% (95 of 100 tokens used)"


class TestReservations:
    def test_reserve_holds_settle_consumes_the_actual(self) -> None:
        svc, _ = service(global_total=10_000)
        svc.allocate("a1", 1_000)
        r = svc.reserve("a1", 400)
        assert r.granted and r.reservation is not None
        assert (svc.remaining("a1"), svc.global_remaining()) == (600, 9_600)
        assert not svc.reserve("a1", 601).granted
        done = svc.settle(r.reservation.reservation_id, 250)
        assert (done.allocation.used, done.allocation.reserved, svc.remaining("a1")) == (250, 0, 750)
        assert svc.settle(r.reservation.reservation_id, 250) == done  # a repeat answers the same
        with pytest.raises(FailedPrecondition, match="already settled with actual 250"):
            svc.settle(r.reservation.reservation_id, 251)

    def test_settle_that_brings_room_back_resumes(self) -> None:
        svc, _ = service()
        svc.allocate("a1", 100)
        r = svc.reserve("a1", 100)
        assert kinds(r.signals) == [(WARN, False), (STOP, False)]
        assert r.reservation is not None
        assert kinds(svc.settle(r.reservation.reservation_id, 20).usage.signals) == [(RESUME, False)]

    def test_expiry_returns_the_tokens(self) -> None:
        clock = FakeClock()
        svc, _ = service(clock=clock, reservation_ttl=5.0)
        svc.allocate("a1", 100)
        r = svc.reserve("a1", 60)
        assert r.reservation is not None
        clock.advance(4.9)
        assert svc.expire_reservations() == 0
        clock.advance(0.1)
        assert svc.expire_reservations() == 1 and svc.remaining("a1") == 100
        assert svc.reservation(r.reservation.reservation_id).state is ReservationState.EXPIRED
        done = svc.settle(r.reservation.reservation_id, 30)  # still records the actual
        assert done.allocation.used == 30 and done.allocation.reserved == 0

    def test_reservations_of_several_agents_expiring_together_resume_the_pool_once(self) -> None:
        """Expiry releases every allocation, then the global budget once (the lock order of a Consume group):
        each agent's tokens come back, and the pool's SIGRESUME fires once."""
        clock = FakeClock()
        svc, sink = service(clock=clock, reservation_ttl=5.0, global_total=1_000)
        for agent_id in ("e1", "e2", "e3"):
            svc.allocate(agent_id, 1_000)
            assert svc.reserve(agent_id, 300).granted
        svc.consume("e1", 100)  # the pool reaches its total: SIGSTOP
        assert (svc.global_budget().reserved, svc.global_budget().stopped) == (900, True)
        svc.events.flush()
        sink.got.clear()
        clock.advance(5.0)
        assert svc.expire_reservations() == 3
        assert [svc.remaining(a) for a in ("e1", "e2", "e3")] == [900, 1_000, 1_000]
        assert (svc.global_remaining(), svc.global_budget().stopped) == (900, False)
        svc.events.flush()
        assert [(s.type, s.is_global) for _, s, _ in sink.got if s.is_global] == [(RESUME, True)]

    def test_reallocation_cancels_open_reservations(self) -> None:
        svc, _ = service(global_total=1_000)
        svc.allocate("a1", 500)
        r = svc.reserve("a1", 300)
        assert r.reservation is not None
        svc.allocate("a1", 500)
        assert svc.reservation(r.reservation.reservation_id).state is ReservationState.CANCELLED
        assert (svc.global_budget().reserved, svc.remaining("a1")) == (0, 500)

    def test_priority_floor_when_only_the_pool_is_short(self) -> None:
        svc, _ = service(global_total=1_000)
        svc.allocate("crit", 10_000, priority=int(Priority.CRITICAL))
        svc.allocate("low", 10_000, priority=int(Priority.LOW))
        svc.consume("low", 1_000)  # the pool is empty now
        fit = svc.can_consume("crit", 4_000)
        assert fit.allowed and fit.priority_floor_applied
        assert not svc.can_consume("crit", 4_001).allowed
        assert svc.can_consume("low", 500).allowed and not svc.can_consume("low", 501).allowed
        r = svc.reserve("crit", 4_000)
        assert r.granted and r.priority_floor_applied

    def test_concurrent_reserves_cannot_overspend(self) -> None:
        svc, _ = service(global_total=1_000_000)
        svc.allocate("a1", 1_000)
        granted: list[bool] = []
        lock = threading.Lock()

        def go() -> None:
            for _ in range(10):
                ok = svc.reserve("a1", 7).granted
                with lock:
                    granted.append(ok)

        threads = [threading.Thread(target=go) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert granted.count(True) == 1_000 // 7 and svc.get("a1").reserved == 7 * (1_000 // 7)

    def test_settle_of_another_agents_reservation_is_denied(self) -> None:
        svc, _ = service()
        svc.allocate("a1", 100)
        r = svc.reserve("a1", 10)
        assert r.reservation is not None
        with pytest.raises(PermissionDenied):
            svc.settle(r.reservation.reservation_id, 1, caller="a2")


class TestDurability:
    def test_100_concurrent_consumers_exact_and_restored(self) -> None:
        repo = ledger()
        svc, _ = service(repo, global_total=10_000_000)
        svc.allocate("a1", 1_000_000)

        def go() -> None:  # 100 consumers at once; 5 each keeps 500 fsynced commits inside the pool's wait
            for _ in range(5):
                svc.consume("a1", 3)

        threads = [threading.Thread(target=go) for _ in range(100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert (svc.get("a1").used, svc.global_budget().used) == (1_500, 1_500)
        again, _ = service(repo, global_total=10_000_000)
        assert (again.get("a1").used, again.global_budget().used) == (1_500, 1_500)

    def test_runtime_global_total_survives_the_file_until_reset(self) -> None:
        repo = ledger()
        svc, _ = service(repo, global_total=1_000)
        svc.set_global(7_000)
        assert service(repo, global_total=2_000)[0].global_budget().total == 7_000
        fresh = ledger()
        service(fresh, global_total=1_000)
        assert service(fresh, global_total=2_000)[0].global_budget().total == 2_000  # the file follows

    def test_request_ids_are_not_counted_twice(self) -> None:
        svc, _ = service()
        svc.allocate("a1", 100)
        svc.consume("a1", 10, request_id="r1")
        svc.consume("a1", 10, request_id="r1")
        assert svc.get("a1").used == 10
