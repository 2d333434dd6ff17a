"""A token bucket: `rate` requests a second on average, bursts up to `burst`."""

from __future__ import annotations


class TokenBucket:
    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, float(burst)
        self.level, self.stamp = float(burst), now

    def take(self, now: float) -> float:
        """Take one token; returns 0.0 when allowed, else the seconds until one is available."""
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= 1.0:
            self.level -= 1.0
            return 0.0
        return (1.0 - self.level) / self.rate
