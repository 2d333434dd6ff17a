"""What the notification service needs: the outbox storage and one sender per channel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from server.domain.notifications.delivery import DeliveryState, Notification, NotificationFilter
from server.services.ports import Page


class DeliveryFailed(Exception):
    """A channel did not take a notification; `final` when trying again cannot help."""

    def __init__(self, message: str, final: bool = False) -> None:
        super().__init__(message)
        self.message, self.final = message, final


class Sender(Protocol):
    """One channel's transport. Blocking (the worker calls it on its own threads); raises DeliveryFailed."""

    def send(self, document: Mapping[str, Any]) -> None: ...


class NotificationRepository(Protocol):
    def add(self, items: Sequence[Notification]) -> None: ...

    def claim(self, now: datetime, until: datetime, worker: str, limit: int) -> list[Notification]: ...

    def finish(self, n: Notification, worker: str) -> bool: ...

    def release_claims(self, now: datetime) -> int: ...

    def retry(self, notification_id: str, now: datetime) -> Notification | None: ...

    def prune(self, before: datetime) -> int: ...

    def get(self, notification_id: str) -> Notification | None: ...

    def counts(self) -> dict[DeliveryState, int]: ...

    def list(self, flt: NotificationFilter, page_size: int, page_token: str) -> Page[Notification]: ...
