"""Notification senders: a signed webhook POST, a Slack incoming webhook, SMTP email (stdlib only)."""

from __future__ import annotations

from collections.abc import Mapping

from server.adapters.notifications.email import EmailSender
from server.adapters.notifications.http import SlackSender, WebhookSender
from server.services.notifications.ports import Sender
from server.services.notifications.settings import ChannelSettings


def build_senders(channels: tuple[ChannelSettings, ...]) -> Mapping[str, Sender]:
    senders: dict[str, Sender] = {}
    for c in channels:
        if c.kind == "webhook":
            senders[c.name] = WebhookSender(c.url, c.secret, c.timeout)
        elif c.kind == "slack":
            senders[c.name] = SlackSender(c.url, c.timeout)
        else:
            senders[c.name] = EmailSender(c)
    return senders
