"""One event stream across three sidecar processes: every sidecar's recovery and safeguard events reach a
watcher on any sidecar, in sequence order, and a watcher that resumes from a cursor misses nothing. Plus
the gap a plain serial sequence leaves, on the real PostgreSQL."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import grpc
import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from outrider.v1 import common_pb2, recovery_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from server.domain.recovery.events import EventFilter, RecoveryEventType
from server.storage.db import create_db_engine, migrate
from server.storage.fleet.changes import ChangeLog
from server.storage.recovery.repository import SqlRecoveryEventRepository

from .harness import Fleet, SidecarProc


class Watcher:
    """A WatchRecoveryEvents stream read on its own thread."""

    def __init__(self, s: SidecarProc, cursor: int | None) -> None:
        req = rpb.WatchRecoveryEventsRequest()
        if cursor is not None:
            req.start_cursor = cursor
        self.call = s.recovery.WatchRecoveryEvents(req)
        self.events: list[recovery_pb2.RecoveryEvent] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for r in self.call:
                with self.cond:
                    self.events.append(r.event)
                    self.cond.notify_all()
        except grpc.RpcError:
            pass

    def wait_for(self, sequence: int, timeout: float = 30.0) -> list[recovery_pb2.RecoveryEvent]:
        with self.cond:
            ok = self.cond.wait_for(lambda: bool(self.events) and self.events[-1].sequence >= sequence, timeout)
            assert ok, f"watcher reached {self.events[-1].sequence if self.events else None}, not {sequence}"
            return list(self.events)

    def wait_until(self, done: Callable[[list[recovery_pb2.RecoveryEvent]], bool], timeout: float = 30.0) -> None:
        """Until the events read so far satisfy `done` (a breaker change is stored on the breakers' own
        event thread, so it can land just after the ForceOpen that caused it has answered)."""
        with self.cond:
            assert self.cond.wait_for(lambda: done(self.events), timeout), f"watcher has {len(self.events)} events"

    def close(self) -> None:
        self.call.cancel()
        self.thread.join(5)


def latest(s: SidecarProc) -> int:
    return int(s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest(page_size=1)).latest_sequence)


def contiguous(events: list[recovery_pb2.RecoveryEvent], after: int, through: int) -> bool:
    """In order from `after`, nothing skipped, nothing twice, reaching at least `through` (a watcher may
    already hold a later event a sidecar stored meanwhile)."""
    seqs = [e.sequence for e in events]
    return seqs == list(range(after + 1, after + 1 + len(seqs))) and bool(seqs) and seqs[-1] >= through


def has_keys(*keys: str) -> Callable[[list[recovery_pb2.RecoveryEvent]], bool]:
    return lambda events: set(keys) <= {e.breaker_state_change.key for e in events}


def force_open(s: SidecarProc, key: str) -> None:
    s.safeguard.ForceOpen(pb.ForceOpenRequest(key=key, reason="fleet events test"))


def kill(s: SidecarProc, agent_id: str) -> None:
    s.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))
    s.recovery.Kill(rpb.KillRequest(agent_id=agent_id, reason=recovery_pb2.KILL_REASON_MANUAL, details="t"), timeout=60)


def test_a_watcher_on_c_from_a_cursor_receives_a_kill_on_a_and_a_breaker_change_on_b(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    cursor = latest(a)  # a cursor handed out by A is valid on C
    w = Watcher(c, cursor)
    try:
        kill(a, "ev-kill-1")
        force_open(b, "ev-1:db")
        w.wait_until(has_keys("ev-1:db"))
        newest = latest(b)
        got = w.wait_for(newest)
    finally:
        w.close()
    assert contiguous(got, cursor, newest)
    kinds = {(e.type, e.agent_id) for e in got}
    assert (recovery_pb2.RECOVERY_EVENT_TYPE_KILL, "ev-kill-1") in kinds
    assert any(e.type == recovery_pb2.RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE for e in got)
    assert any(e.breaker_state_change.key == "ev-1:db" for e in got)


def test_concurrent_events_on_three_sidecars_reach_every_watcher_in_one_order(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    start = latest(c)
    watchers = [Watcher(s, start) for s in (a, b, c)]
    live = Watcher(b, None)  # only new events
    try:
        # The live watcher has no cursor to prove it subscribed: probe events until it has read one (a fixed
        # sleep is too short on a loaded machine). The other watchers read from `start`, probes included.
        deadline = time.monotonic() + 30
        probe = 0
        while not live.events:
            assert time.monotonic() < deadline, "the live watcher never subscribed"
            force_open(a, f"ev-2-probe-{probe}:db")
            probe += 1
            with live.cond:
                live.cond.wait_for(lambda: bool(live.events), 0.2)

        def burst(s: SidecarProc, n: int) -> None:
            for i in range(10):
                force_open(s, f"ev-2-{n}-{i}:db")

        threads = [threading.Thread(target=burst, args=(s, n)) for n, s in enumerate((a, b, c))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        keys = [f"ev-2-{n}-{i}:db" for n in range(3) for i in range(10)]
        watchers[0].wait_until(has_keys(*keys))
        newest = latest(a)
        assert newest - start >= 30
        seen = [w.wait_for(newest) for w in watchers]
        live_seen = live.wait_for(newest)
    finally:
        for w in [*watchers, live]:
            w.close()
    for events in seen:
        assert contiguous(events, start, newest)  # no gap, no duplicate, one order
    same = min(len(seen[0]), len(seen[2]))
    assert [e.SerializeToString() for e in seen[0][:same]] == [e.SerializeToString() for e in seen[2][:same]]
    live_seqs = [e.sequence for e in live_seen]
    assert contiguous(live_seen, live_seqs[0] - 1, newest)


def test_a_watcher_that_resumes_on_another_sidecar_misses_nothing(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    start = latest(a)
    w = Watcher(a, start)
    force_open(b, "ev-3-a:db")
    w.wait_until(has_keys("ev-3-a:db"))
    w.close()
    first = list(w.events)
    cursor = first[-1].sequence
    # While nobody watches: events on every sidecar.
    for s, key in ((a, "ev-3-b:db"), (b, "ev-3-c:db"), (c, "ev-3-d:db")):
        force_open(s, key)
    w = Watcher(c, cursor)
    try:
        w.wait_until(has_keys("ev-3-b:db", "ev-3-c:db", "ev-3-d:db"))
        newest = latest(c)
        resumed = w.wait_for(newest)
    finally:
        w.close()
    assert contiguous(first + resumed, start, newest)
    keys = {e.breaker_state_change.key for e in resumed}
    assert {"ev-3-b:db", "ev-3-c:db", "ev-3-d:db"} <= keys


def test_a_cursor_beyond_the_fleet_latest_is_out_of_range(shared_fleet: Fleet) -> None:
    c = shared_fleet[2]
    call = c.recovery.WatchRecoveryEvents(rpb.WatchRecoveryEventsRequest(start_cursor=latest(c) + 1000))
    with pytest.raises(grpc.RpcError) as e:
        next(iter(call))
    assert e.value.code() == grpc.StatusCode.OUT_OF_RANGE


# ---- the classic gap, on the storage itself --------------------------------------------------------


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:
    e = create_db_engine(pg_url)
    migrate(e)
    try:
        yield e
    finally:
        e.dispose()


def test_a_later_append_waits_for_an_earlier_uncommitted_one_so_readers_see_no_gap(engine: Engine) -> None:
    repo = SqlRecoveryEventRepository(engine, changes=ChangeLog(engine, "sc-test"))
    now = datetime.now(UTC)
    before = repo.latest_sequence()
    slow = Session(engine)
    slow.begin()
    # The slow transaction takes sequence N and does not commit yet.
    first = repo.append_in(slow, RecoveryEventType.BREAKER_STATE_CHANGE, "ev-slow", now, _payload("ev-slow"))
    assert first.sequence == before + 1
    done: list[int] = []
    fast = threading.Thread(
        target=lambda: done.append(
            repo.append(RecoveryEventType.BREAKER_STATE_CHANGE, "ev-fast", now, _payload("ev-fast")).sequence
        )
    )
    fast.start()
    fast.join(0.5)
    # With a serial sequence the fast one would have committed N+1 here and a reader "after N-1" would
    # have moved its cursor past N for good. Instead it waits, and readers see neither.
    assert fast.is_alive() and not done
    assert repo.after(before, 2**62, EventFilter(), 10) == []
    slow.commit()
    slow.close()
    fast.join(10)
    assert done == [before + 2]
    assert [e.sequence for e in repo.after(before, 2**62, EventFilter(), 10)] == [before + 1, before + 2]


def test_a_rolled_back_append_leaves_no_hole(engine: Engine) -> None:
    repo = SqlRecoveryEventRepository(engine, changes=ChangeLog(engine, "sc-test"))
    now = datetime.now(UTC)
    before = repo.latest_sequence()
    with Session(engine) as s:
        s.begin()
        repo.append_in(s, RecoveryEventType.BREAKER_STATE_CHANGE, "ev-rb", now, _payload("ev-rb"))
        s.rollback()
    after = repo.append(RecoveryEventType.BREAKER_STATE_CHANGE, "ev-ok", now, _payload("ev-ok"))
    assert after.sequence == before + 1


def _payload(key: str) -> dict[str, object]:
    return {"key": key, "from_state": 1, "to_state": 2, "generation": 1, "reason": "test"}
