"""The real clock; tests pass their own object with the same two methods."""

from __future__ import annotations

import time
from datetime import UTC, datetime


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def utcnow(self) -> datetime:
        return datetime.now(UTC)
