"""The cascade detector's window in this process (one sidecar alone, unit tests)."""

from __future__ import annotations

import threading
from datetime import datetime

from server.domain.recovery.cascade import AgentFailure, CascadePolicy, CascadeWindow


class MemoryCascadeWindow:
    def __init__(self) -> None:
        self._window = CascadeWindow()
        self._lock = threading.Lock()

    def record(
        self, failure: AgentFailure, window: float, threshold: int, cascade_id: str
    ) -> tuple[AgentFailure, ...] | None:
        now = failure.failure_time.timestamp()
        with self._lock:
            return self._window.record(failure, now, CascadePolicy(window=window, threshold=threshold))

    def size(self, window: float, now: datetime) -> int:
        with self._lock:
            return self._window.count_within(now.timestamp(), window)
