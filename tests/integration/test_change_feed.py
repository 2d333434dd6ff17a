"""The change feed of workers sharing a SQLite file (server/storage/fleet/changes.py, `shared=True`): two
ChangeLogs on two engines over one real file stand for two workers. A committed change reaches the other's
handlers (never its own writer's), a rolled-back one reaches nobody, a change it missed (pruned before it
read it) makes it reload the topic, and the feed stays bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from server.domain.errors import StorageUnavailable
from server.storage.db import create_db_engine, migrate
from server.storage.fleet import changes as changes_module
from server.storage.fleet.changes import ChangeLog

WAIT = 30.0  # a condition's generous deadline, never a duration asserted


class Seen:
    def __init__(self) -> None:
        self.keys: list[str] = []
        self.resyncs = 0
        self.cond = threading.Condition()

    def change(self, key: str) -> None:
        with self.cond:
            self.keys.append(key)
            self.cond.notify_all()

    def resync(self) -> None:
        with self.cond:
            self.resyncs += 1
            self.cond.notify_all()

    def wait(self, what: object, timeout: float = WAIT) -> bool:
        with self.cond:
            return self.cond.wait_for(what, timeout)  # type: ignore[arg-type]


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    a, b = create_db_engine(url), create_db_engine(url)
    migrate(a)
    yield a, b
    a.dispose()
    b.dispose()


def _pair(engines: tuple[Engine, Engine], poll: float = 0.2) -> tuple[ChangeLog, ChangeLog, Seen, Seen]:
    a = ChangeLog(engines[0], "worker-a", poll_interval=poll, shared=True)
    b = ChangeLog(engines[1], "worker-b", poll_interval=poll, shared=True)
    seen_a, seen_b = Seen(), Seen()
    a.subscribe("budgets", seen_a.change, seen_a.resync)
    b.subscribe("budgets", seen_b.change, seen_b.resync)
    a.start()
    b.start()
    assert a.wait_connected(WAIT) and b.wait_connected(WAIT)
    return a, b, seen_a, seen_b


def _until(condition: Callable[[], bool]) -> bool:
    """Poll a condition no handler announces (the listener's own state), within WAIT."""
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _bump(log: ChangeLog, key: str) -> int:
    with log.engine.begin() as conn:
        return log.bump(conn, "budgets", key)


def test_a_committed_change_reaches_the_other_worker_only(engines: tuple[Engine, Engine]) -> None:
    a, b, seen_a, seen_b = _pair(engines)
    try:
        assert a.enabled and a.feed and not a.stale(WAIT)
        versions = [_bump(a, f"agent-{i}") for i in range(3)]
        assert versions == sorted(versions) and len(set(versions)) == 3  # one counter, no gaps
        assert seen_b.wait(lambda: seen_b.keys[-1:] == ["agent-2"])
        assert set(seen_b.keys) == {"agent-0", "agent-1", "agent-2"}
        _bump(b, "agent-b")
        assert seen_a.wait(lambda: "agent-b" in seen_a.keys)
        assert "agent-b" not in seen_b.keys and not {"agent-0", "agent-1", "agent-2"} & set(seen_a.keys)
    finally:
        a.stop()
        b.stop()


def test_a_rolled_back_change_reaches_nobody(engines: tuple[Engine, Engine]) -> None:
    a, b, _, seen_b = _pair(engines)
    try:
        conn = a.engine.connect()
        tx = conn.begin()
        a.bump(conn, "budgets", "undone")
        tx.rollback()
        conn.close()
        _bump(a, "done")
        assert seen_b.wait(lambda: "done" in seen_b.keys)
        assert "undone" not in seen_b.keys
    finally:
        a.stop()
        b.stop()


def test_a_change_pruned_before_it_was_read_makes_the_worker_reload(engines: tuple[Engine, Engine]) -> None:
    """Worker B is stopped (as a paused process would be) while A writes and the feed is pruned under it: B,
    started again, finds the counter ahead of what it read and reloads the topic."""
    a, b, _, seen_b = _pair(engines)
    b.stop()
    try:
        _bump(a, "missed-1")
        _bump(a, "missed-2")
        with engines[0].begin() as conn:  # pruned (as FEED_KEEP would, later)
            conn.execute(text("DELETE FROM fleet_change_feed"))
        resyncs = seen_b.resyncs
        b2 = ChangeLog(engines[1], "worker-b", poll_interval=0.2, shared=True)
        b2.subscribe("budgets", seen_b.change, seen_b.resync)
        b2._topics["budgets"].seen = 0  # it had read up to nothing before its pause
        b2.start()
        assert seen_b.wait(lambda: seen_b.resyncs > resyncs)
        assert "missed-1" not in seen_b.keys  # not delivered one by one: the reload covers them
        b2.stop()
    finally:
        a.stop()


def test_old_rows_are_pruned_and_seq_never_goes_back(engines: tuple[Engine, Engine]) -> None:
    a = ChangeLog(engines[0], "worker-a", shared=True)
    for i in range(3):
        _bump(a, f"k-{i}")
    with engines[0].begin() as conn:
        old = datetime.now(UTC) - timedelta(seconds=changes_module.FEED_KEEP + 5)
        conn.execute(text("UPDATE fleet_change_feed SET create_time = :t WHERE key != 'k-2'"), {"t": old})
    a._prune_feed()
    with engines[0].connect() as conn:
        assert [r[0] for r in conn.execute(text("SELECT key FROM fleet_change_feed"))] == ["k-2"]
        last = conn.execute(text("SELECT MAX(seq) FROM fleet_change_feed")).scalar_one()
        conn.execute(text("DELETE FROM fleet_change_feed"))
        conn.commit()
    _bump(a, "k-3")
    with engines[0].connect() as conn:
        assert conn.execute(text("SELECT seq FROM fleet_change_feed")).scalar_one() > last  # AUTOINCREMENT


def test_alone_on_sqlite_nothing_is_written_or_read(engines: tuple[Engine, Engine]) -> None:
    alone = ChangeLog(engines[0], "sidecar", shared=False)
    assert not alone.enabled and not alone.feed
    counters = text("SELECT topic, version FROM fleet_changes ORDER BY topic")
    with engines[0].connect() as conn:
        before = conn.execute(counters).all()
    assert _bump(alone, "x") == 0
    alone.start()  # no thread
    assert alone._thread is None
    with engines[0].connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM fleet_change_feed")).scalar_one() == 0
        assert conn.execute(counters).all() == before


def test_a_sidecar_alone_prunes_what_the_cli_left_in_the_feed_when_it_starts(engines: tuple[Engine, Engine]) -> None:
    cli = ChangeLog(engines[1], "cli", shared=True)  # the CLI writes the feed: workers may be serving
    for key in ("old", "new"):
        _bump(cli, key)
    with engines[0].begin() as conn:
        old = datetime.now(UTC) - timedelta(seconds=changes_module.FEED_KEEP + 5)
        conn.execute(text("UPDATE fleet_change_feed SET create_time = :t WHERE key = 'old'"), {"t": old})
    alone = ChangeLog(engines[0], "sidecar", shared=False)
    alone.start()
    assert alone._thread is None  # still no listener
    with engines[0].connect() as conn:
        assert [r[0] for r in conn.execute(text("SELECT key FROM fleet_change_feed"))] == ["new"]


def test_a_worker_that_cannot_read_the_feed_says_so_and_catches_up(engines: tuple[Engine, Engine]) -> None:
    """Storage gone while B reads (StorageUnavailable, as the engine makes of SQLite's errors): B is not
    connected meanwhile (its caches answer as unconfirmed), nothing is lost, and once it reads again the
    change made during the outage arrives."""
    a, b, _, seen_b = _pair(engines)
    failing = threading.Event()
    failing.set()
    read = b._read_feed

    def read_or_fail(last: int) -> int:
        if failing.is_set():
            raise StorageUnavailable()
        return read(last)

    b._read_feed = read_or_fail  # type: ignore[method-assign]
    try:
        _bump(a, "during-the-outage")
        assert _until(lambda: not b.stats.connected)
        assert not b.ensure_fresh(0.0, WAIT)  # the outage is reported, not waited out
        failing.clear()
        assert seen_b.wait(lambda: "during-the-outage" in seen_b.keys)
        assert _until(lambda: b.stats.connected)
    finally:
        a.stop()
        b.stop()
