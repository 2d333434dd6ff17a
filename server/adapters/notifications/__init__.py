"""Notification senders: a signed webhook POST, Slack (incoming webhook or Web API), SMTP email (stdlib only)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from server.adapters.notifications.email import EmailSender
from server.adapters.notifications.http import WebhookSender
from server.adapters.notifications.slack import SlackSender
from server.services.notifications.ports import Sender, SlackMessages
from server.services.notifications.settings import ChannelSettings


def build_senders(
    channels: tuple[ChannelSettings, ...],
    slack_messages: SlackMessages | None = None,
    now: Callable[[], datetime] | None = None,
) -> Mapping[str, Sender]:
    senders: dict[str, Sender] = {}
    for c in channels:
        if c.kind == "webhook":
            senders[c.name] = WebhookSender(c.url, c.secret, c.timeout)
        elif c.kind == "slack":
            senders[c.name] = SlackSender(c, slack_messages, now)
        else:
            senders[c.name] = EmailSender(c)
    return senders
