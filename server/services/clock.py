"""The real clock, and one moved by hand (policy suites); tests pass their own object with the same two methods."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def utcnow(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock moved by hand: `outrider policy test` runs suites on it, so a rate limit's window or a breaker's
    recovery timeout passes in one `advance:` step instead of real time."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t = 1000.0
        self._base = (start or datetime(2026, 1, 1, tzinfo=UTC)) - timedelta(seconds=self.t)

    def monotonic(self) -> float:
        return self.t

    def utcnow(self) -> datetime:
        return self._base + timedelta(seconds=self.t)

    def advance(self, seconds: float) -> None:
        self.t += seconds

    def set_time(self, when: datetime) -> None:
        """Make utcnow() read `when` from here on (a suite's `now:`); monotonic time does not move."""
        self._base = when - timedelta(seconds=self.t)
