"""Change counters and the one notification listener of a sidecar (PostgreSQL LISTEN/NOTIFY).

Writers call `ChangeLog.bump(conn, topic, key)` inside the transaction that changes the state: it adds
one to the topic's counter in `fleet_changes` and queues `NOTIFY outrider_<topic>, '<version> <origin>
<key>'`. PostgreSQL delivers the notification at commit (never for a rolled-back change) and, because the
counter row stays locked until commit, versions of one topic are committed in order and without gaps.
Payloads carry ids only (the limit is 8,000 bytes); a listener reads the data back.

The listener holds one dedicated autocommit connection (psycopg's `notifies()` blocks its connection, so
it cannot be a pooled one). Notifications sent while it is disconnected are lost, so it resynchronises:
- on every (re)connection, after LISTEN, each topic whose counter moved since it last looked;
- on a gap in a topic's versions (a notification it never got);
- every `poll_interval`, when a counter moved and no notification for it arrived (LISTEN broken by a
  transaction-mode pooler, a notification queue that filled up): the staleness bound without
  notifications is then one poll interval plus the time to reload.
A change the sidecar made itself is not delivered back to it (its own cache already has it).

Freshness: each completed poll records when it started. `stale(max_age)` says (without I/O) whether the
caches were last confirmed longer ago than that; `ensure_fresh` asks for a poll now and waits for it (a
sidecar resumed from a pause answers nothing from a cache before; server/services/fleet/freshness.py);
`resync_all` marks every topic for a full reload (a sidecar that finds it was declared gone).

The API other features build on (kept stable): `bump(conn, topic, key) -> version` for writers, inside
their transaction; `subscribe(topic, on_change, on_resync)` before `start()` for caches (the `ChangeFeed`
port in server/services/fleet/ports.py, where the topic names live); `start()`, `stop()`,
`wait_connected(timeout)`, `stats`. Topics so far (key in parentheses): `budgets` (agent id or
`global`), `approvals` (approval id), `agents` (agent id: record or standing), `access` (token id or
certificate fingerprint), `recovery_policies` (group, `*`), `recovery_states` (agent id),
`health_checks` (agent id), `substitutes` (agent id), `guardrails` (chain version), `policy` (the
fleet policy version, server/services/fleet/policy.py), `recovery_settings` (setting key),
`recovery_events` (agent id; its counter is the event sequence, see SqlRecoveryEventRepository),
`commands` (routed commands). A new topic needs
no schema change: its counter row appears on the first bump.

On SQLite a sidecar alone on its database file (server/storage/db.py) has nobody to tell: `bump` does nothing
and the listener does not run. The workers of `outrider serve --workers N` share one SQLite file (`shared`):
SQLite has no NOTIFY, so `bump` also appends `(topic, version, origin, key)` to `fleet_change_feed` in the
writer's transaction, and the listener thread reads the rows past the last one it saw every `FEED_INTERVAL`
(the staleness bound between workers, plus the time to reload) and hands them to the same dispatch as
notifications. SQLite has one writer at a time, so rows commit in `seq` order and a reader never skips one
that commits later. Rows older than `FEED_KEEP` are deleted; a listener paused for longer finds a topic's
counter ahead of what it read and reloads that topic, as after a lost notification. The commands that change
the database directly (`outrider tokens`, `certs`, `agents`) write the feed too on SQLite (their few rows wait
for a worker's prune), so the workers take their changes at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

from server.domain.errors import StorageUnavailable

if TYPE_CHECKING:  # imported by the listener thread only: SQLite and the CLI never load the driver
    import psycopg

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "outrider_"
MAX_PAYLOAD = 7_999  # PostgreSQL refuses payloads of 8,000 bytes and more
_BUMP = text(
    "INSERT INTO fleet_changes (topic, version) VALUES (:topic, 1) "
    "ON CONFLICT (topic) DO UPDATE SET version = fleet_changes.version + 1 RETURNING version"
)
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
_FEED = text(
    "INSERT INTO fleet_change_feed (topic, version, origin, key, create_time) "
    "VALUES (:topic, :version, :origin, :key, :now)"
)
_FEED_READ = text(
    "SELECT seq, topic, version, origin, key FROM fleet_change_feed WHERE seq > :last ORDER BY seq LIMIT 5000"
)
_FEED_END = text("SELECT COALESCE(MAX(seq), 0) FROM fleet_change_feed")
_FEED_PRUNE = text("DELETE FROM fleet_change_feed WHERE create_time < :before")
_FEED_OLD = text("SELECT 1 FROM fleet_change_feed WHERE create_time < :before LIMIT 1")
_COUNTERS = "SELECT topic, version FROM fleet_changes"
FEED_INTERVAL = 0.05  # seconds between two reads of the feed by a worker's listener (SQLite)
FEED_KEEP = 120.0  # seconds a feed row is kept
_FEED_PRUNE_EVERY = 10.0
LISTENER_PREFIX = "outrider-listener "  # the listener session's application name, before the sidecar id
_WAIT_SLICE = 0.25  # how often the listener looks up from its socket (stop requests, new topics)
_LATE_NOTIFY_GRACE = 0.05  # a commit is visible a moment before its notification is sent


def _feed_horizon() -> datetime:
    """Feed rows written before this are older than FEED_KEEP."""
    return datetime.now(UTC) - timedelta(seconds=FEED_KEEP)


def listener_name(origin: str) -> str:
    """The application name of a sidecar's listener session: while it shows in `pg_stat_activity`, the
    sidecar is running (server/storage/fleet/attachments.py reads it to route commands)."""
    return LISTENER_PREFIX + origin


@dataclass
class _Topic:
    on_change: list[Callable[[str], None]] = field(default_factory=list)
    on_resync: list[Callable[[], None]] = field(default_factory=list)
    seen: int = -1  # the newest version this listener knows its caches reflect; -1: never synchronised
    listening: bool = False


@dataclass(frozen=True, slots=True)
class _Note:
    """A change read from the feed, shaped as psycopg's Notify (what `_deliver_batch` reads)."""

    channel: str
    payload: str


@dataclass
class ListenerStats:
    connected: bool = False
    connections: int = 0
    notifications: int = 0
    resyncs: int = 0
    backend_pid: int = 0


class ChangeLog:
    """Counters and NOTIFY for writers; LISTEN, dispatch and resynchronisation for this sidecar's caches."""

    def __init__(self, engine: Engine, origin: str, *, poll_interval: float = 0.5, shared: bool = False) -> None:
        """`shared`: on SQLite, other processes (the workers of `serve --workers`) share the database file."""
        self.engine = engine
        self.origin = origin
        self.feed = engine.dialect.name == "sqlite" and shared
        self.enabled = engine.dialect.name == "postgresql" or self.feed
        self.poll_interval = poll_interval
        self.stats = ListenerStats()
        self._topics: dict[str, _Topic] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._connected = threading.Event()
        # Freshness: when the last completed poll started (monotonic), and a request for a poll now.
        self._synced_at = float("-inf")
        self._synced = threading.Condition()
        # Connection attempts that failed (notifies ensure_fresh's waiters), and whether the newest one did:
        # only then are the caches answered from unconfirmed (an outage), not while a first connection is on
        # its way (start-up, or a resume from a pause that froze the listener mid-connect).
        self._failures = 0
        self._last_attempt_failed = False
        self._poll_now = threading.Event()
        self._thread: threading.Thread | None = None
        self._dsn = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    # ---- writers ---------------------------------------------------------------------------

    def bump(self, conn: Connection, topic: str, key: str) -> int:
        """Count one change of `topic` (concerning `key`, an id) in the caller's transaction; returns its
        version (0 on SQLite, where no other sidecar listens)."""
        if not self.enabled:
            return 0
        version = int(conn.execute(_BUMP, {"topic": topic}).scalar_one())
        payload = f"{version} {self.origin} {key}"
        if len(payload.encode()) > MAX_PAYLOAD:
            raise ValueError(f"notification payload for {topic!r} is too long ({len(payload)} characters)")
        if self.feed:
            now = datetime.now(UTC)
            conn.execute(_FEED, {"topic": topic, "version": version, "origin": self.origin, "key": key, "now": now})
        else:
            conn.execute(_NOTIFY, {"channel": CHANNEL_PREFIX + topic, "payload": payload})
        return version

    # ---- listeners -------------------------------------------------------------------------

    def subscribe(self, topic: str, on_change: Callable[[str], None], on_resync: Callable[[], None]) -> None:
        with self._lock:
            t = self._topics.setdefault(topic, _Topic())
            t.on_change.append(on_change)
            t.on_resync.append(on_resync)
            t.seen = -1  # the new subscriber has not been synchronised by this listener yet

    def start(self) -> None:
        if self._thread is not None:
            return
        if not self.enabled:
            if self.engine.dialect.name == "sqlite":
                self._prune_alone()
            return
        run = self._run_feed if self.feed else self._run
        self._thread = threading.Thread(target=run, name="fleet-listener", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def wait_connected(self, timeout: float) -> bool:
        """True once the listener is connected and has synchronised every topic (for start-up and tests)."""
        return self._connected.wait(timeout)

    # ---- freshness -------------------------------------------------------------------------

    def stale(self, max_age: float) -> bool:
        """True when the caches were last confirmed against the counters more than `max_age` seconds ago
        (the process was paused, or the listener starved); never on SQLite. No I/O: the hot path's check."""
        return self.enabled and time.monotonic() - self._synced_at > max_age

    def ensure_fresh(self, max_age: float, timeout: float) -> bool:
        """Block until a poll that started after this call has completed (every cache then reflects every
        change committed before it), unless the caches are fresh already. False when the listener's newest
        connection attempt failed (the database is unreachable: the caches are all there is), when one fails
        meanwhile, or when the poll did not come within `timeout`. A listener still making its first connection
        (start-up, or a sidecar resumed from a pause that froze it mid-connect) or making a dropped one again
        is waited for: its caches may be as old as the pause."""
        if not self.stale(max_age):
            return True
        with self._synced:
            failures = self._failures
            if not self.stats.connected and self._last_attempt_failed:
                return False  # the database is unreachable (an outage): the caches are all there is
            # Connected, or connecting for the first time since start-up or since the last good connection
            # (a sidecar resumed from a pause mid-connect): wait for the poll, unless an attempt fails meanwhile.
            asked = time.monotonic()
            self._poll_now.set()
            self._synced.wait_for(lambda: self._synced_at >= asked or self._failures > failures, timeout)
            return self._synced_at >= asked

    def resync_all(self) -> None:
        """Reload every cache at the next poll (asked for at once), whether its counter moved or not: for a
        sidecar that finds it was declared gone (paused past fleet.sidecar_timeout)."""
        with self._lock:
            for t in self._topics.values():
                t.seen = -1
        with self._synced:
            self._synced_at = float("-inf")
        self._poll_now.set()

    def _polled(self, started: float) -> None:
        with self._synced:
            self._synced_at = max(self._synced_at, started)
            self._synced.notify_all()

    # ---- the listener thread ---------------------------------------------------------------

    def _run(self) -> None:
        import psycopg

        backoff = 0.1
        while not self._stop.is_set():
            established = False
            try:
                with psycopg.connect(
                    self._dsn, autocommit=True, connect_timeout=5, application_name=listener_name(self.origin)
                ) as conn:
                    self.stats.connections += 1
                    self.stats.backend_pid = conn.info.backend_pid
                    self._listen(conn)
                    started = time.monotonic()
                    self._poll(conn)
                    self._polled(started)
                    self.stats.connected = True
                    established = True
                    with self._synced:
                        self._last_attempt_failed = False
                    self._connected.set()
                    backoff = 0.1
                    self._serve(conn)
            except (psycopg.Error, OSError) as exc:
                if not self._stop.is_set():
                    log.warning(
                        "fleet listener disconnected; resynchronising after reconnecting",
                        extra={"error": str(exc), "retry_seconds": backoff},
                    )
            except Exception:
                log.exception("fleet listener failed; restarting it")
            finally:
                self.stats.connected = False
                self._connected.clear()
                if not established or self._stop.is_set():
                    # A connection that could not be made (or none will be): the waiters answer from the
                    # caches now. One that dropped is made again at once, and they wait for it.
                    with self._synced:
                        self._failures += 1
                        self._last_attempt_failed = True
                        self._synced.notify_all()
                with self._lock:
                    for t in self._topics.values():
                        t.listening = False
            self._stop.wait(backoff)
            backoff = min(backoff * 2, 2.0)

    def _serve(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        next_poll = time.monotonic() + self.poll_interval
        while not self._stop.is_set():
            if self._poll_now.is_set():
                next_poll = time.monotonic()
            wait = max(0.0, min(_WAIT_SLICE, next_poll - time.monotonic()))
            batch = list(conn.notifies(timeout=wait, stop_after=1))
            if batch:  # whatever else arrived meanwhile, so a burst on one key costs one reload
                batch += conn.notifies(timeout=0)
            self._deliver_batch(batch)
            self._listen(conn)  # topics subscribed since
            if time.monotonic() >= next_poll or self._poll_now.is_set():
                self._poll_now.clear()
                started = time.monotonic()
                self._poll(conn)
                self._polled(started)
                next_poll = time.monotonic() + self.poll_interval

    def _listen(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        with self._lock:
            new = [name for name, t in self._topics.items() if not t.listening]
        from psycopg import sql

        for name in new:
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL_PREFIX + name)))
            with self._lock:
                self._topics[name].listening = True
                self._topics[name].seen = -1

    def _deliver_batch(self, batch: Sequence[psycopg.Notify | _Note]) -> None:
        """Deliver in order, but each (channel, key) of another sidecar's changes once, at its last
        position: handlers read the state back, so one read after the newest change covers the earlier
        ones. This sidecar's own notifications pass through `_deliver` (which counts them and skips the
        handlers): one of them must never stand in for another sidecar's earlier change, whose read-back
        its own cache would then miss (a ForceOpen on A followed by B's own write of the same key left B
        granting permits on its stale cache)."""
        last: dict[tuple[str, str], int] = {}
        for i, n in enumerate(batch):
            parts = n.payload.split(" ", 2)
            if len(parts) < 2 or parts[1] != self.origin:
                last[(n.channel, parts[-1])] = i
        for i, n in enumerate(batch):
            parts = n.payload.split(" ", 2)
            if last.get((n.channel, parts[-1]), i) == i:
                self._deliver(n.channel, n.payload)
            else:
                self._seen_only(n.channel, n.payload)

    def _seen_only(self, channel: str, payload: str) -> None:
        """Count a notification a later one in the same batch supersedes (keeps gap detection exact)."""
        self.stats.notifications += 1
        try:
            version = int(payload.split(" ", 1)[0])
        except ValueError:
            return
        with self._lock:
            t = self._topics.get(channel.removeprefix(CHANNEL_PREFIX))
            if t is not None:
                if t.seen >= 0 and version > t.seen + 1:
                    t.seen = -1  # a gap: the next poll resynchronises
                else:
                    t.seen = max(t.seen, version)

    def _deliver(self, channel: str, payload: str) -> None:
        self.stats.notifications += 1
        name = channel.removeprefix(CHANNEL_PREFIX)
        version_text, origin, key = ([*payload.split(" ", 2), "", ""])[:3]
        try:
            version = int(version_text)
        except ValueError:
            log.warning("fleet listener: a notification it cannot read", extra={"channel": channel})
            return
        with self._lock:
            t = self._topics.get(name)
            if t is None:
                return
            gap = t.seen >= 0 and version > t.seen + 1
            t.seen = max(t.seen, version)
            changes, resyncs = list(t.on_change), list(t.on_resync)
        if gap:
            log.info("fleet listener: missed a change; resynchronising", extra={"topic": name})
            self._resync(name, resyncs)
        elif origin != self.origin:
            for on_change in changes:
                try:
                    on_change(key)
                except Exception:
                    log.exception("fleet listener: a change handler failed", extra={"topic": name, "key": key})
                    self._mark_unsynchronised(name)

    def _poll(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        """Resynchronise every topic whose counter is ahead of the notifications this listener got."""
        counters = {str(topic): int(str(v)) for topic, v in conn.execute(_COUNTERS)}
        if self._lagging(counters):
            self._deliver_batch(list(conn.notifies(timeout=_LATE_NOTIFY_GRACE)))
        self._resync_lagging(counters)

    def _resync_lagging(self, counters: dict[str, int]) -> None:
        for name in self._lagging(counters):
            with self._lock:
                t = self._topics[name]
                t.seen = max(t.seen, counters.get(name, 0))
                resyncs = list(t.on_resync)
            self._resync(name, resyncs)

    def _lagging(self, counters: dict[str, int]) -> list[str]:
        with self._lock:
            return [name for name, t in self._topics.items() if t.seen < 0 or t.seen < counters.get(name, 0)]

    def _resync(self, name: str, resyncs: list[Callable[[], None]]) -> None:
        self.stats.resyncs += 1
        for resync in resyncs:
            try:
                resync()
            except Exception:
                log.exception("fleet listener: resynchronising failed; retrying", extra={"topic": name})
                self._mark_unsynchronised(name)

    def _mark_unsynchronised(self, name: str) -> None:
        with self._lock:
            self._topics[name].seen = -1

    # ---- the listener thread on a shared SQLite file ----------------------------------------

    def _run_feed(self) -> None:
        """Read the feed every FEED_INTERVAL and the counters every `poll_interval` (see the module docstring).
        Each read is its own short transaction: an open one would keep SQLite from checkpointing its WAL."""
        last: int | None = None
        next_poll = next_prune = 0.0
        while not self._stop.is_set():
            try:
                if last is None:  # (re)start: from the feed's end, every topic reloaded by the poll below
                    with self.engine.connect() as conn:
                        last = int(conn.execute(_FEED_END).scalar_one())
                    next_poll = 0.0
                if self._poll_now.is_set():
                    next_poll = 0.0
                now = time.monotonic()
                if now >= next_poll:
                    self._poll_now.clear()  # before the poll starts: a request made from now on gets this poll
                    started = time.monotonic()
                    with self.engine.connect() as conn:
                        counters = {str(t): int(v) for t, v in conn.execute(text(_COUNTERS))}
                    last = self._read_feed(last)  # the rows behind those counters first: no needless reload
                    self._resync_lagging(counters)
                    self._polled(started)
                    next_poll = time.monotonic() + self.poll_interval
                    if not self.stats.connected:
                        self.stats.connected = True
                        self.stats.connections += 1
                        with self._synced:
                            self._last_attempt_failed = False
                        self._connected.set()
                else:
                    last = self._read_feed(last)
                if now >= next_prune:
                    self._prune_feed()
                    next_prune = now + _FEED_PRUNE_EVERY
            except (SQLAlchemyError, StorageUnavailable) as exc:
                self._feed_failed(exc)
            except Exception:
                log.exception("fleet listener failed; restarting it")
                self._feed_failed(None)
            self._poll_now.wait(FEED_INTERVAL)  # ensure_fresh asks for a poll: at once

    def _read_feed(self, last: int) -> int:
        with self.engine.connect() as conn:
            rows = conn.execute(_FEED_READ, {"last": last}).all()
        if rows:
            self._deliver_batch([_Note(CHANNEL_PREFIX + str(t), f"{v} {o} {k}") for _, t, v, o, k in rows])
            last = int(rows[-1][0])
        return last

    def _prune_alone(self) -> None:
        """A sidecar alone on its SQLite file reads no feed, but the CLI's commands (`shared`: workers may be
        serving) still write to it: what they left more than FEED_KEEP ago goes when the sidecar starts."""
        try:
            with self.engine.connect() as conn:  # a read first: no write lock taken when there is nothing to do
                old = conn.execute(_FEED_OLD, {"before": _feed_horizon()}).first()
            if old is not None:
                self._prune_feed()
        except Exception as exc:  # housekeeping: the sidecar starts all the same
            log.warning("change feed: old rows were not pruned", extra={"error": type(exc).__name__})

    def _prune_feed(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(_FEED_PRUNE, {"before": _feed_horizon()})

    def _feed_failed(self, exc: BaseException | None) -> None:
        if exc is not None and not self._stop.is_set():
            log.warning("fleet listener: the change feed cannot be read", extra={"error": type(exc).__name__})
        self.stats.connected = False
        self._connected.clear()
        with self._synced:
            self._failures += 1
            self._last_attempt_failed = True
            self._synced.notify_all()
        self._stop.wait(0.5)
