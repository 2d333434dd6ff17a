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


class SlackMessages(Protocol):
    """Where each approval's Slack messages were posted (`chat.postMessage` answers), so a decision
    taken anywhere updates them with `chat.update`."""

    def add(self, approval_id: str, channel: str, slack_channel: str, ts: str, now: datetime) -> None: ...

    def find(self, approval_id: str, channel: str) -> list[tuple[str, str]]:
        """(Slack channel id, message ts) of each message posted for the approval on `channel`."""
        ...

    def prune(self, before: datetime) -> int:
        """Forget the messages posted before `before` (a later decision no longer updates them)."""
        ...


class SlackApiError(Exception):
    """Slack's Web API answered `ok: false`, or could not be reached."""


class SlackApi(Protocol):
    """One Slack app's Web API (blocking)."""

    def call(self, method: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """POST `payload` to `method` (chat.postMessage, chat.update, views.open); raises SlackApiError."""
        ...

    def respond(self, response_url: str, payload: Mapping[str, Any]) -> None:
        """POST to an interaction's `response_url` (replace the message, or an ephemeral reply)."""
        ...
