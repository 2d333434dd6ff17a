"""Circuit breakers shared by several sidecars: three BreakerServices in one process on one real database
(PostgreSQL, and SQLite, whose single sidecar runs the same code). `refresh(key)` is what each sidecar's
change listener calls on another sidecar's notification; tests call it where the listener would."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from server.adapters.memory.safeguards import MemoryAudit
from server.domain.safeguards.breakers import Breaker, BreakerChange, BreakerConfig, BreakerState, Outcome
from server.services.safeguards.breakers import BreakerService
from server.services.safeguards.settings import BreakerSettings
from server.storage.fleet.changes import ChangeLog
from server.storage.safeguards.breakers import SqlBreakerRepository
from tests.fakes import FakeClock

CLOSED, OPEN, HALF_OPEN = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
S, F = Outcome.SUCCESS, Outcome.FAILURE


class Recorder:
    def __init__(self) -> None:
        self.changes: list[BreakerChange] = []

    def on_breaker_change(self, change: BreakerChange) -> None:
        self.changes.append(change)


class Fleet:
    """Three sidecars' breaker services; with `listen`, each has its own change listener (PostgreSQL)."""

    def __init__(
        self, engine: Engine, n: int = 3, listen: bool = False, feed_poll: float = 0.2, **defaults: Any
    ) -> None:
        self.clock = FakeClock()
        self.recorders = [Recorder() for _ in range(n)]
        self.feeds = [ChangeLog(engine, f"sc{i}", poll_interval=feed_poll) if listen else None for i in range(n)]
        self.services = [
            BreakerService(
                SqlBreakerRepository(engine, feed),
                self.clock,
                BreakerSettings(BreakerConfig(**defaults)),
                MemoryAudit(),
                [rec],
            )
            for rec, feed in zip(self.recorders, self.feeds, strict=True)
        ]
        for svc, feed in zip(self.services, self.feeds, strict=True):
            svc.load()
            if feed is not None:
                svc.attach(feed)
                feed.start()
                assert feed.wait_connected(10)

    def close(self) -> None:
        for feed in self.feeds:
            if feed is not None:
                feed.stop()

    def refresh(self, key: str) -> None:
        """What every listener does when a notification for `key` arrives."""
        for svc in self.services:
            svc.refresh(key)

    def events(self) -> list[BreakerChange]:
        for svc in self.services:
            svc.events.flush()
        return [c for rec in self.recorders for c in rec.changes]


def fail(svc: BreakerService, key: str) -> Any:
    admission = svc.acquire(key)
    assert admission.permitted and admission.permit is not None
    return svc.report(admission.permit.permit_id, F)


def test_two_plus_two_failures_on_two_sidecars_open_a_threshold_of_three(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=3)
    a, b, _ = fleet.services
    # B's cache does not know A's failures yet: its own two stay below the threshold in its view...
    permits_b = [b.acquire("k").permit for _ in range(2)]
    assert [fail(a, "k").state for _ in range(2)] == [CLOSED, CLOSED]
    answers = [b.report(p.permit_id, F) for p in permits_b]  # type: ignore[union-attr]
    # ...but the stored count is the fleet's: 2 + 1 reaches 3 and B's first failure opens the circuit
    # (DEGRADE); B's second permit is of the old generation now and is not counted.
    assert [(x.state, x.failure_count, x.counted) for x in answers] == [(OPEN, 3, True), (OPEN, 3, False)]
    assert answers[0].directive.name == "DEGRADE"
    fleet.refresh("k")
    assert all(svc.get("k").state is OPEN for svc in fleet.services)
    assert [(c.from_state, c.to_state, c.reason) for c in fleet.events()] == [
        (CLOSED, OPEN, "failure threshold reached")
    ]


def test_failures_from_three_sidecars_at_once_are_counted_exactly_and_open_once(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=30)
    permits = {id(svc): [svc.acquire("k").permit for _ in range(20)] for svc in fleet.services}

    def report(svc: BreakerService) -> None:
        for p in permits[id(svc)]:
            svc.report(p.permit_id, F)  # type: ignore[union-attr]

    threads = [threading.Thread(target=report, args=(svc,)) for svc in fleet.services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    b = fleet.services[0].get("k")
    # 60 failures reported; those after the opening belong to the old generation and are not counted.
    assert b.state is OPEN and 30 <= b.failure_count <= 60
    assert [c.to_state for c in fleet.events()] == [OPEN]


def test_open_to_half_open_by_three_schedulers_is_one_transition_and_one_event(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=1, recovery_timeout=5.0)
    a = fleet.services[0]
    fail(a, "k")
    fleet.refresh("k")
    fleet.clock.advance(5)
    barrier = threading.Barrier(3)
    made: list[int] = []

    def tick(svc: BreakerService) -> None:
        barrier.wait()
        made.append(svc.tick())

    threads = [threading.Thread(target=tick, args=(svc,)) for svc in fleet.services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(made) == [0, 0, 1]
    assert [(c.from_state, c.to_state) for c in fleet.events()] == [(CLOSED, OPEN), (OPEN, HALF_OPEN)]
    fleet.refresh("k")
    assert {svc.get("k").generation for svc in fleet.services} == {3}


def test_half_open_max_calls_is_the_fleets_number(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=1, recovery_timeout=1.0, half_open_max_calls=2)
    fail(fleet.services[0], "k")
    fleet.refresh("k")
    fleet.clock.advance(1)
    granted = [svc.acquire("k").permitted for svc in fleet.services for _ in range(2)]
    assert granted.count(True) == 2
    assert len([c for c in fleet.events() if c.to_state is HALF_OPEN]) == 1


def test_a_probe_success_on_one_sidecar_closes_it_for_all(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=1, recovery_timeout=1.0)
    a, b, c = fleet.services
    fail(a, "k")
    fleet.refresh("k")
    fleet.clock.advance(1)
    probe = b.acquire("k")
    assert probe.permitted and probe.state is HALF_OPEN
    assert not c.acquire("k").permitted  # the one probe slot is B's
    assert b.report(probe.permit.permit_id, S).state is CLOSED  # type: ignore[union-attr]
    fleet.refresh("k")
    assert c.acquire("k").permitted and a.acquire("k").state is CLOSED


def test_force_open_on_a_stops_b_and_c_once_notified_and_stale_permits_do_not_count(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=2)
    a, b, c = fleet.services
    stale = b.acquire("k")  # B caches CLOSED
    a.force_open("k", "drill", actor="operator:ann")
    # The bound: until B's listener delivers A's notification, B's cache still says CLOSED...
    late = b.acquire("k")
    assert late.permitted and late.generation == 1
    # ...and what those permits report belongs to the old generation: never counted.
    answer = b.report(late.permit.permit_id, F)  # type: ignore[union-attr]
    assert not answer.counted and answer.state is OPEN  # B's write found the new generation and reloaded
    assert not b.report(stale.permit.permit_id, F).counted  # type: ignore[union-attr]
    fleet.refresh("k")
    assert not b.acquire("k").permitted and not c.acquire("k").permitted
    stored = a.get("k")
    assert (stored.state, stored.failure_count, stored.forced) == (OPEN, 0, True)
    a.force_close("k", actor="operator:ann")
    fleet.refresh("k")
    assert b.acquire("k").permitted and c.acquire("k").permitted


def test_operator_actions_race_and_every_one_is_one_transition(engine: Engine) -> None:
    fleet = Fleet(engine)
    fleet.services[0].force_close("k")
    barrier = threading.Barrier(3)

    def act(svc: BreakerService, i: int) -> None:
        barrier.wait()
        for n in range(5):
            (svc.force_open if (i + n) % 2 else svc.force_close)("k", f"{i}/{n}")

    threads = [threading.Thread(target=act, args=(svc, i)) for i, svc in enumerate(fleet.services)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    changes = fleet.events()
    assert len(changes) == 16  # no action lost, none applied twice
    assert sorted(c.generation for c in changes) == list(range(2, 18))
    assert fleet.services[1].get("k").generation == 17


def test_set_breaker_config_on_one_sidecar_reaches_the_others(engine: Engine) -> None:
    fleet = Fleet(engine, failure_threshold=5)
    a, b, _ = fleet.services
    b.acquire("k")
    a.set_config("k", {"failure_threshold": 1})
    fleet.refresh("k")
    assert fail(b, "k").state is OPEN


def test_a_closed_permit_and_a_quiet_success_never_touch_the_database(engine: Engine) -> None:
    fleet = Fleet(engine)
    svc = fleet.services[0]
    svc.report(svc.acquire("k").permit.permit_id, S)  # type: ignore[union-attr]
    svc.tick()  # the new key is stored by the tick, not by the permit
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        for _ in range(100):
            svc.report(svc.acquire("k").permit.permit_id, S)  # type: ignore[union-attr]
        fresh = svc.acquire("new-key")
        assert fresh.permitted
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert statements == []


def _until(predicate: Any, timeout: float = 30.0) -> None:
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < timeout, "not reached in time"
        time.sleep(0.002)


def test_with_listeners_operator_actions_reach_every_sidecar(engine: Engine, db_url: str) -> None:
    """The listeners' counter poll is an hour: every change below reaches the others by NOTIFY (how fast, the
    p99, is measured by `make bench`: docs/benchmarks.md)."""
    if not db_url.startswith("postgresql"):
        pytest.skip("notifications are PostgreSQL's (SQLite serves one sidecar)")
    fleet = Fleet(engine, listen=True, feed_poll=3600.0, failure_threshold=3)
    try:
        a, b, c = fleet.services
        assert b.acquire("k").permitted and c.acquire("k").permitted
        a.force_open("k", "drill")
        _until(lambda: not b.acquire("k").permitted and not c.acquire("k").permitted)
        a.set_config("k", {"failure_threshold": 1})
        a.reset("k")
        _until(lambda: b.acquire("k").permitted and b.acquire("k").permit is not None)
        _until(lambda: c.preview_permit("k").failure_directive.name == "DEGRADE")  # threshold 1 reached C
        # Failures written by B reach A and C too: one failure opens it everywhere, one event.
        assert fail(b, "k").state is OPEN
        _until(lambda: not a.acquire("k").permitted and not c.acquire("k").permitted)
        opened = [ch for ch in fleet.events() if ch.to_state is OPEN]
        assert [ch.reason for ch in opened] == ["forced open: drill", "failure threshold reached"]
    finally:
        fleet.close()


def test_creating_a_breaker_that_exists_announces_nothing(engine: Engine) -> None:
    """A sidecar storing a key it saw first, after another sidecar stored it: no change, no notification
    (a false one, right after another sidecar's ForceOpen, used to hide that ForceOpen from the writer)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("notifications are PostgreSQL's (SQLite serves one sidecar)")
    feed = ChangeLog(engine, "sc-writer")
    repo = SqlBreakerRepository(engine, feed)
    wall = FakeClock().utcnow()

    def version() -> int:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT version FROM fleet_changes WHERE topic = 'breakers'")).scalar()
        return int(found or 0)

    repo.create_breakers([Breaker("k-new", BreakerConfig(), wall, wall)])
    first = version()
    repo.create_breakers([Breaker("k-new", BreakerConfig(), wall, wall)])
    assert version() == first  # the second create changed nothing and said nothing
