"""The durable recovery event log and its live fan-out (WatchRecoveryEvents, in-process listeners).

Every event is committed before it is announced, under one lock, so watchers see sequences in order and a
listener that resumes from the last sequence it saw misses nothing.
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
from server.services.ports import AuditSink, Clock, Page
from server.services.recovery.ports import RecoveryEventRepository, RecoveryRepository

log = logging.getLogger(__name__)

EventListener = Callable[[RecoveryEvent], None]
# A watcher this far behind is disconnected (ABORTED); it resumes with its last sequence.
MAX_BACKLOG = 10_000
_PRUNED_KEY = "events_pruned"


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
    def __init__(
        self, repo: RecoveryEventRepository, settings: RecoveryRepository, clock: Clock, max_rows: int
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.clock = clock
        self.max_rows = max_rows
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self._listeners: list[EventListener] = []
        self._latest = 0
        self._pruned_through = 0

    def load(self) -> None:
        self._latest = self.repo.latest_sequence()
        self._pruned_through = int((self.settings.get_setting(_PRUNED_KEY) or {}).get("through", 0))

    @property
    def latest_sequence(self) -> int:
        return self._latest

    def add_listener(self, listener: EventListener) -> None:
        """Call `listener(event)` after each event is stored (on the emitting thread; keep it quick)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: EventListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, event_type: RecoveryEventType, agent_id: str, payload: Any) -> RecoveryEvent:
        """Store one event (committed), then announce it. Blocking: async callers use a worker thread."""
        with self._lock:
            event = self.repo.append(event_type, agent_id, self.clock.utcnow(), payload)
            self._latest = event.sequence
            for sub in list(self._subs):
                sub.offer(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("recovery event listener failed")
        return event

    def subscribe(self) -> Subscription:
        with self._lock:
            sub = Subscription(asyncio.get_running_loop(), self._latest)
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
        """Keep the newest `max_rows` events (a scheduler job); returns the highest pruned sequence."""
        through = self.repo.prune(self.max_rows)
        if through:
            self._pruned_through = max(self._pruned_through, through)
            self.settings.put_setting(_PRUNED_KEY, {"through": self._pruned_through}, self.clock.utcnow())
            log.info("recovery events pruned", extra={"through": through})
        return through


class EventAuditor:
    """Small helper the recovery services share: emit an event and write an audit record off the loop."""

    def __init__(self, events: RecoveryEventLog, audit: AuditSink) -> None:
        self.events = events
        self.audit = audit

    async def emit(self, event_type: RecoveryEventType, agent_id: str, payload: Any) -> RecoveryEvent:
        return await asyncio.to_thread(self.events.emit, event_type, agent_id, payload)

    async def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        await asyncio.to_thread(self.audit.record, actor, action, subject, details)
