"""Fakes for tests: a clock you move by hand (here); the in-memory repositories live in server/adapters/memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.t = start
        self.base = datetime(2026, 1, 1, tzinfo=UTC)

    def monotonic(self) -> float:
        return self.t

    def utcnow(self) -> datetime:
        return self.base + timedelta(seconds=self.t)

    def advance(self, seconds: float) -> None:
        self.t += seconds
