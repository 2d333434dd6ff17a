"""The durable recovery event log and its live fan-out (WatchRecoveryEvents, in-process listeners).

Every event is committed before it is announced, and watchers are fed from the stored log in sequence
order (this sidecar's events and every other sidecar's), so a listener that resumes from the last
sequence it saw, on any sidecar, misses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from server.domain.errors import Aborted, OutOfRange
from server.domain.recovery.events import EventFilter, RecoveryEvent, RecoveryEventType
from server.services.fleet.ports import EVENTS_TOPIC, ChangeFeed
from server.services.ports import AuditSink, Clock, Page
from server.services.recovery.ports import RecoveryEventRepository, RecoveryRepository

log = logging.getLogger(__name__)

EventListener = Callable[[RecoveryEvent], None]
# A watcher this far behind is disconnected (ABORTED); it resumes with its last sequence.
MAX_BACKLOG = 10_000
_PRUNED_KEY = "events_pruned"
_CATCH_UP_BATCH = 500
_NO_LIMIT = 2**62  # `after`'s upper bound when reading everything stored


class Subscription:
    """One live watcher: events arrive on its own loop's queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop, snapshot: int) -> None:
        self.loop = loop
        self.snapshot = snapshot  # the latest sequence when it subscribed
        self.queue: asyncio.Queue[RecoveryEvent | None] = asyncio.Queue()
        self.overflow = False

    def offer(self, event: RecoveryEvent) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: the watcher is gone
            self.loop.call_soon_threadsafe(self._put, event)

    def _put(self, event: RecoveryEvent) -> None:
        if self.overflow:
            return
        if self.queue.qsize() >= MAX_BACKLOG:
            self.overflow = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(event)

    async def next(self) -> RecoveryEvent:
        event = await self.queue.get()
        if event is None:
            raise Aborted(
                "this watcher fell too far behind; resume with the last sequence it received", reason="WATCHER_TOO_SLOW"
            )
        return event


class RecoveryEventLog:
    """The log and its watchers. Watchers are fed from the stored log in sequence order, never from the
    emitting call: an event this sidecar appended is offered at once when it is the next sequence, and
    any other (appended on another sidecar, or committed here by a concurrent call) is read back from the
    database after the last sequence offered. The database's sequences are contiguous in commit order
    (see SqlRecoveryEventRepository), so reading "after the last one offered" never skips an event. With
    a change feed (PostgreSQL), another sidecar's append wakes this one (NOTIFY on the `recovery_events`
    topic); without notifications the feed's counter poll does (`fleet.resync_interval`)."""

    def __init__(
        self,
        repo: RecoveryEventRepository,
        settings: RecoveryRepository,
        clock: Clock,
        max_rows: int,
        changes: ChangeFeed | None = None,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.clock = clock
        self.max_rows = max_rows
        self._append = threading.Lock()  # this process's appends, one at a time
        self._lock = threading.Lock()  # watchers and the fan-out position
        self._reading = threading.Lock()  # one catch-up read at a time
        self._subs: set[Subscription] = set()
        self._listeners: list[EventListener] = []
        self._delivered = 0  # every event up to this sequence has been offered to the watchers, in order
        self._pruned_through = 0
        if changes is not None:
            changes.subscribe(EVENTS_TOPIC, lambda _agent_id: self.catch_up(), self.catch_up)

    def load(self) -> None:
        self._delivered = self.repo.latest_sequence()
        self._pruned_through = self._stored_pruned_through()

    def _stored_pruned_through(self) -> int:
        return int((self.settings.get_setting(_PRUNED_KEY) or {}).get("through", 0))

    @property
    def latest_sequence(self) -> int:
        """The newest sequence this sidecar's watchers have been offered (fleet-wide events included,
        within the change feed's bound)."""
        return self._delivered

    def stored_latest(self) -> int:
        """The newest committed sequence fleet-wide (a database read; blocking)."""
        return max(self.repo.latest_sequence(), self._delivered)

    def add_listener(self, listener: EventListener) -> None:
        """Call `listener(event)` after each event this sidecar stores (on the emitting thread; keep it
        quick). Events of other sidecars reach watchers only."""
        self._listeners.append(listener)

    def remove_listener(self, listener: EventListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, event_type: RecoveryEventType, agent_id: str, payload: Any) -> RecoveryEvent:
        """Store one event (committed), then announce it. Blocking: async callers use a worker thread."""
        with self._append:
            event = self.repo.append(event_type, agent_id, self.clock.utcnow(), payload)
        self._offer(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("recovery event listener failed")
        return event

    def _offer(self, event: RecoveryEvent) -> None:
        with self._lock:
            if event.sequence <= self._delivered:
                return  # a catch-up already read it back
            if event.sequence == self._delivered + 1:
                self._deliver([event])
                return
        self.catch_up()  # earlier sequences (another sidecar's, or a concurrent call's) come first

    def catch_up(self) -> None:
        """Offer every stored event after the last one offered, in order (blocking: a database read,
        taken outside the watchers' lock so subscribing on the event loop never waits for it)."""
        with self._reading:
            while True:
                batch = self.repo.after(self._delivered, _NO_LIMIT, EventFilter(), _CATCH_UP_BATCH)
                with self._lock:
                    # Contiguous from the position read from; a direct offer may have moved it meanwhile.
                    self._deliver([e for e in batch if e.sequence > self._delivered])
                if len(batch) < _CATCH_UP_BATCH:
                    return

    def _deliver(self, events: list[RecoveryEvent]) -> None:
        for event in events:
            for sub in list(self._subs):
                sub.offer(event)
            self._delivered = event.sequence

    def subscribe(self) -> Subscription:
        """A new watcher (on the running loop); its snapshot is the newest sequence offered so far (call
        `catch_up` first, off the loop, to make that the newest stored fleet-wide). Later events reach
        its queue."""
        with self._lock:
            sub = Subscription(asyncio.get_running_loop(), self._delivered)
            self._subs.add(sub)
            return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def check_cursor(self, cursor: int, snapshot: int) -> None:
        if cursor < 0:
            raise OutOfRange("start_cursor must not be negative", field="start_cursor")
        if cursor > snapshot:
            raise OutOfRange(
                f"start_cursor {cursor} is above the latest sequence {snapshot}",
                reason="CURSOR_AHEAD",
                field="start_cursor",
            )
        # Another sidecar may have pruned since this one looked (a database read; off the loop).
        self._pruned_through = max(self._pruned_through, self._stored_pruned_through())
        if cursor < self._pruned_through:
            raise OutOfRange(
                f"events after {cursor} were pruned (kept from {self._pruned_through + 1}); "
                "resync with ListRecoveryEvents",
                reason="CURSOR_PRUNED",
                field="start_cursor",
            )

    def stored_after(self, cursor: int, upto: int, flt: EventFilter, limit: int = 500) -> list[RecoveryEvent]:
        return self.repo.after(cursor, upto, flt, limit)

    def list(self, flt: EventFilter, page_size: int, page_token: str) -> Page[RecoveryEvent]:
        return self.repo.list(flt, page_size, page_token)

    def prune(self) -> int:
        """Keep the newest `max_rows` events (a scheduler job); returns the highest pruned sequence.

        The "pruned through" mark is stored BEFORE the rows go: a watch starting from a cursor in between is
        told its events were pruned (a moment early) rather than silently missing them."""
        cut = self.repo.latest_sequence() - self.max_rows
        if cut <= 0:
            return 0
        if cut > self._stored_pruned_through():
            self._pruned_through = max(self._pruned_through, cut)
            self.settings.put_setting(_PRUNED_KEY, {"through": self._pruned_through}, self.clock.utcnow())
        if not self.repo.prune_through(cut):
            return 0
        log.info("recovery events pruned", extra={"through": cut})
        return cut


class EventAuditor:
    """Small helper the recovery services share: emit an event and write an audit record off the loop."""

    def __init__(self, events: RecoveryEventLog, audit: AuditSink) -> None:
        self.events = events
        self.audit = audit

    async def emit(self, event_type: RecoveryEventType, agent_id: str, payload: Any) -> RecoveryEvent:
        return await asyncio.to_thread(self.events.emit, event_type, agent_id, payload)

    async def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        await asyncio.to_thread(self.audit.record, actor, action, subject, details)
