"""The notification outbox in memory: the same contract as server/storage/notifications (one row per event and
channel, claims by compare-and-set, outcomes only from the claim's holder, newest first)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from server.domain.notifications.delivery import DeliveryState, Notification, NotificationFilter
from server.services.ports import Page


class MemoryNotifications:
    def __init__(self) -> None:
        self.rows: dict[int, Notification] = {}
        self._seq = itertools.count(1)

    def add(self, items: Sequence[Notification]) -> None:
        taken = {(n.event_id, n.channel) for n in self.rows.values()}
        for n in items:
            if (n.event_id, n.channel) not in taken:
                taken.add((n.event_id, n.channel))
                self.rows[next(self._seq)] = copy.deepcopy(n)

    def claim(self, now: datetime, until: datetime, worker: str, limit: int) -> list[Notification]:
        due = sorted(
            (seq for seq, n in self.rows.items() if n.state is DeliveryState.PENDING and n.next_attempt_time <= now),
            key=lambda seq: self.rows[seq].next_attempt_time,
        )[:limit]
        out = []
        for seq in due:
            n = self.rows[seq]
            self.rows[seq] = replace(n, attempts=n.attempts + 1, next_attempt_time=until, claimed_by=worker)
            out.append(copy.deepcopy(self.rows[seq]))
        return out

    def _seq_of(self, notification_id: str) -> int | None:
        return next((seq for seq, n in self.rows.items() if n.notification_id == notification_id), None)

    def finish(self, n: Notification, worker: str) -> bool:
        seq = self._seq_of(n.notification_id)
        if seq is None:
            return False
        current = self.rows[seq]
        if current.claimed_by != worker or current.attempts != n.attempts or current.state is not DeliveryState.PENDING:
            return False
        self.rows[seq] = copy.deepcopy(n)
        return True

    def release_claims(self, now: datetime) -> int:
        count = 0
        for seq, n in self.rows.items():
            if n.state is DeliveryState.PENDING and n.claimed_by:
                self.rows[seq] = replace(n, next_attempt_time=now, claimed_by="")
                count += 1
        return count

    def retry(self, notification_id: str, now: datetime) -> Notification | None:
        seq = self._seq_of(notification_id)
        if seq is None:
            return None
        n = self.rows[seq]
        if n.state is DeliveryState.FAILED:
            self.rows[seq] = replace(n, state=DeliveryState.PENDING, next_attempt_time=now, claimed_by="")
        return copy.deepcopy(self.rows[seq])

    def prune(self, before: datetime) -> int:
        old = [s for s, n in self.rows.items() if n.state is not DeliveryState.PENDING and n.create_time < before]
        for seq in old:
            del self.rows[seq]
        return len(old)

    def get(self, notification_id: str) -> Notification | None:
        seq = self._seq_of(notification_id)
        return copy.deepcopy(self.rows[seq]) if seq is not None else None

    def counts(self) -> dict[DeliveryState, int]:
        out = dict.fromkeys(DeliveryState, 0)
        for n in self.rows.values():
            out[n.state] += 1
        return out

    def list(self, flt: NotificationFilter, page_size: int, page_token: str) -> Page[Notification]:
        from server.adapters.memory import _newest_first

        def ok(n: Notification) -> bool:
            return (
                (flt.state is None or n.state is flt.state)
                and (not flt.channel or n.channel == flt.channel)
                and (not flt.kind or n.kind == flt.kind)
            )

        return _newest_first([(seq, n) for seq, n in self.rows.items() if ok(n)], page_size, page_token)


class MemorySlackMessages:
    """The Slack messages posted for approvals, in memory (server/storage/notifications/slack.py's twin)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, datetime]] = []

    def add(self, approval_id: str, channel: str, slack_channel: str, ts: str, now: datetime) -> None:
        if not any(r[2:4] == (slack_channel, ts) for r in self.rows):
            self.rows.append((approval_id, channel, slack_channel, ts, now))

    def find(self, approval_id: str, channel: str) -> list[tuple[str, str]]:
        return [(r[2], r[3]) for r in self.rows if r[:2] == (approval_id, channel)]

    def prune(self, before: datetime) -> int:
        kept = [r for r in self.rows if r[4] >= before]
        removed, self.rows = len(self.rows) - len(kept), kept
        return removed
