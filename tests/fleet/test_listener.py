"""The one notification listener per sidecar, on the real PostgreSQL: delivery, own changes, missed
notifications (a reconnect, a counter moved without NOTIFY, a gap) and the payload limit."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest
from sqlalchemy import Engine, text

from server.storage.db import create_db_engine, migrate
from server.storage.fleet.changes import ChangeLog


class Recorder:
    def __init__(self) -> None:
        self.keys: list[str] = []
        self.resyncs = 0
        self.cond = threading.Condition()

    def on_change(self, key: str) -> None:
        with self.cond:
            self.keys.append(key)
            self.cond.notify_all()

    def on_resync(self) -> None:
        with self.cond:
            self.resyncs += 1
            self.cond.notify_all()

    def wait(self, predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
        with self.cond:
            return self.cond.wait_for(predicate, timeout)


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:
    e = create_db_engine(pg_url)
    migrate(e)
    yield e
    e.dispose()


# A counter poll that never comes within a test: what such a listener sees came by a notification (or,
# for a gap, by the version check), never by the poll.
NO_POLL = 3600.0


def _listener(engine: Engine, origin: str, rec: Recorder, topic: str = "t", poll_interval: float = 0.2) -> ChangeLog:
    log = ChangeLog(engine, origin, poll_interval=poll_interval)
    log.subscribe(topic, rec.on_change, rec.on_resync)
    log.start()
    assert log.wait_connected(30)
    return log


def _bump(writer: ChangeLog, topic: str, key: str) -> int:
    with writer.engine.begin() as conn:
        return writer.bump(conn, topic, key)


def test_a_change_reaches_the_other_sidecar_by_notification_and_not_its_writer(engine: Engine) -> None:
    """The latency (milliseconds) is measured in `make bench` (bench/fleet.py), not asserted here."""
    a_rec, b_rec = Recorder(), Recorder()
    a, b = _listener(engine, "sc-a", a_rec), _listener(engine, "sc-b", b_rec, poll_interval=NO_POLL)
    try:
        assert _bump(a, "t", "agent-1") >= 1
        # B never polls: the key reached its change handler (not a resync) through the notification.
        assert b_rec.wait(lambda: b_rec.keys == ["agent-1"])
        time.sleep(0.3)  # a delivery back to the writer would have come by now (a negative: kept short)
        assert a_rec.keys == []  # its own change: its cache already has it
    finally:
        a.stop()
        b.stop()


def test_a_rolled_back_change_is_never_announced(engine: Engine) -> None:
    rec = Recorder()
    b = _listener(engine, "sc-b", rec)
    a = ChangeLog(engine, "sc-a")
    try:
        with pytest.raises(RuntimeError), engine.begin() as conn:
            a.bump(conn, "t", "ghost")
            raise RuntimeError("roll back")
        _bump(a, "t", "real")
        assert rec.wait(lambda: rec.keys == ["real"])
        assert "ghost" not in rec.keys
    finally:
        b.stop()


def test_after_a_reconnect_the_topics_that_moved_are_resynchronised(engine: Engine) -> None:
    rec = Recorder()
    b = _listener(engine, "sc-b", rec)
    a = ChangeLog(engine, "sc-a")
    try:
        base = rec.resyncs
        pid = b.stats.backend_pid
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        _bump(a, "t", "while-away")  # likely sent while nobody listens: lost
        assert rec.wait(lambda: b.stats.connections >= 2 and rec.resyncs > base)
        assert b.stats.backend_pid != pid
        # Listening again: the next change is a notification, not a resync.
        resyncs = rec.resyncs
        _bump(a, "t", "after")
        assert rec.wait(lambda: "after" in rec.keys)
        assert rec.resyncs == resyncs
    finally:
        b.stop()


def test_a_counter_that_moved_without_a_notification_resyncs_within_one_poll(engine: Engine) -> None:
    """What a transaction-mode pooler does to LISTEN: the counter still tells."""
    rec = Recorder()
    b = _listener(engine, "sc-b", rec)
    try:
        base = rec.resyncs
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO fleet_changes (topic, version) VALUES ('t', 1) "
                    "ON CONFLICT (topic) DO UPDATE SET version = fleet_changes.version + 1"
                )
            )
        # Nothing but the 0.2 s counter poll can notice this change (no notification was sent).
        assert rec.wait(lambda: rec.resyncs > base)
    finally:
        b.stop()


def test_a_gap_in_the_versions_resyncs(engine: Engine) -> None:
    rec = Recorder()
    b = _listener(engine, "sc-b", rec, poll_interval=NO_POLL)  # the resync can only come from the gap
    a = ChangeLog(engine, "sc-a")
    try:
        _bump(a, "t", "one")
        assert rec.wait(lambda: rec.keys == ["one"])
        base = rec.resyncs
        with engine.begin() as conn:  # version n+1 committed without its notification, then n+2 with one
            conn.execute(text("UPDATE fleet_changes SET version = version + 1 WHERE topic = 't'"))
        _bump(a, "t", "three")
        assert rec.wait(lambda: rec.resyncs > base)
    finally:
        b.stop()


def test_payloads_are_ids_within_the_limit(engine: Engine) -> None:
    a = ChangeLog(engine, "sc-a")
    with pytest.raises(ValueError, match="too long"), engine.begin() as conn:
        a.bump(conn, "t", "x" * 8000)


def test_its_own_later_change_never_hides_another_sidecars_change_of_the_same_key(engine: Engine) -> None:
    """One read from the socket can hold A's change of a key and then B's own change of it: B must still
    read the key back (a ForceOpen on A then B storing the key it had cached left B on its stale cache).
    Fed to the listener's dispatch directly: which notifications share one read is up to the socket."""
    rec = Recorder()
    b = ChangeLog(engine, "sc-b")
    b.subscribe("t", rec.on_change, rec.on_resync)
    with b._lock:
        b._topics["t"].seen = 10
    b._deliver_batch(
        [
            psycopg.Notify("outrider_t", "11 sc-a breaker-1", 1),
            psycopg.Notify("outrider_t", "12 sc-b breaker-1", 2),
            psycopg.Notify("outrider_t", "13 sc-a breaker-2", 1),
            psycopg.Notify("outrider_t", "14 sc-c breaker-2", 3),
        ]
    )
    assert rec.keys == ["breaker-1", "breaker-2"]  # each key once, after the newest foreign change
    assert rec.resyncs == 0 and b._topics["t"].seen == 14  # no gap seen: every version was counted


def _ensure_in_thread(log: ChangeLog, timeout: float) -> tuple[threading.Thread, list[bool]]:
    answer: list[bool] = []
    t = threading.Thread(target=lambda: answer.append(log.ensure_fresh(1.0, timeout)), daemon=True)
    t.start()
    return t, answer


def test_the_freshness_gate_waits_for_a_listener_still_making_its_first_connection(engine: Engine) -> None:
    """A sidecar that answers before its listener's first connection (start-up on a busy host, or a resume
    from a pause that froze the listener mid-connect) waits for it: before, it answered from unconfirmed
    caches at once (a breaker forced open during the pause granted permits)."""
    log = ChangeLog(engine, "sc-first", poll_interval=NO_POLL)
    log.subscribe("t", Recorder().on_change, Recorder().on_resync)
    try:
        t, answer = _ensure_in_thread(log, timeout=60.0)
        time.sleep(0.3)  # the call waits: the listener has not even begun to connect
        assert answer == []
        log.start()
        t.join(60)
        assert answer == [True]  # confirmed by the first connection's poll
    finally:
        log.stop()


def test_the_freshness_gate_answers_from_the_caches_when_the_database_cannot_be_reached(engine: Engine) -> None:
    """An outage: the listener's attempt fails, and a waiting call is told at once (it answers from the
    caches, as documented), not after the whole wait."""
    with psycopg.connect(engine.url.set(drivername="postgresql").render_as_string(hide_password=False)) as c:
        port = int(c.info.port)
    unreachable = create_db_engine(engine.url.set(port=1 if port != 1 else 2).render_as_string(hide_password=False))
    log = ChangeLog(unreachable, "sc-cut", poll_interval=NO_POLL)
    log.subscribe("t", Recorder().on_change, Recorder().on_resync)
    try:
        t, answer = _ensure_in_thread(log, timeout=3600.0)
        log.start()
        t.join(60)
        assert answer == [False]
        assert log.ensure_fresh(1.0, 3600.0) is False  # the newest attempt failed: no wait at all
    finally:
        log.stop()
        unreachable.dispose()
