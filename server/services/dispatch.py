"""Delivers events to listeners on one background thread, in order, so that a slow listener (the event
log writes to storage, the cascade detector waits for the event loop) never holds up an answer, and no
listener ever runs on the event loop or under a service's lock."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

_STOP = object()


class Dispatcher:
    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._closed = False

    def submit(self, deliver: Callable[[], None]) -> None:
        if self._closed:
            return
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                    self._thread.start()
        self._queue.put(deliver)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            try:
                item()  # type: ignore[operator]
            except Exception:
                log.exception("%s: listener failed", self.name)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything submitted so far is delivered (tests, shutdown)."""
        if self._thread is None:
            return True
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def close(self, timeout: float = 2.0) -> None:
        self._closed = True
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout)
