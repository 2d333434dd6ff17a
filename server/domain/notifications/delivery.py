"""One notification to one channel, its states, and when to try again.

PENDING -> DELIVERED, or PENDING -> FAILED once the retry window (24 h by default) is spent or the
channel cannot take it at all (no such channel). A claimed row stays PENDING with its next attempt time
pushed out by the claim timeout: a worker that dies mid-send leaves it to be claimed again (at least once).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any


class DeliveryState(enum.StrEnum):
    PENDING = "PENDING"
    DELIVERED = "DELIVERED"
    FAILED = "FAILED"


@dataclass(frozen=True, slots=True)
class Notification:
    notification_id: str
    event_id: str
    kind: str
    channel: str
    agent_id: str
    subject: str
    document: Mapping[str, Any]
    create_time: datetime
    next_attempt_time: datetime
    state: DeliveryState = DeliveryState.PENDING
    attempts: int = 0
    last_error: str = ""
    deliver_time: datetime | None = None
    claimed_by: str = ""


@dataclass(frozen=True, slots=True)
class NotificationFilter:
    state: DeliveryState | None = None
    channel: str = ""
    kind: str = ""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with jitter: the n-th failure waits `initial * 2**(n-1)` (capped at `max_delay`)
    scaled by a random factor in [0.5, 1), so many failing rows do not retry in lock-step; after
    `give_up_after` from the event, a failure is final."""

    initial: float = 5.0
    max_delay: float = 3600.0
    give_up_after: float = 86400.0

    def delay(self, attempts: int, jitter: float) -> float:
        base = min(self.max_delay, self.initial * float(2 ** max(0, min(attempts - 1, 30))))
        return base * (0.5 + 0.5 * min(max(jitter, 0.0), 1.0))


MAX_ERROR = 500


def after_failure(
    n: Notification, error: str, now: datetime, policy: RetryPolicy, jitter: float, final: bool = False
) -> Notification:
    """The row after a failed attempt: scheduled again, or FAILED for good."""
    error = error[:MAX_ERROR]
    retry_at = now + timedelta(seconds=policy.delay(n.attempts, jitter))
    if final or retry_at > n.create_time + timedelta(seconds=policy.give_up_after):
        return replace(n, state=DeliveryState.FAILED, last_error=error, claimed_by="")
    return replace(n, next_attempt_time=retry_at, last_error=error, claimed_by="")


def after_success(n: Notification, now: datetime) -> Notification:
    return replace(n, state=DeliveryState.DELIVERED, deliver_time=now, last_error="", claimed_by="")
