"""Slack: an incoming webhook, or the Web API (chat.postMessage, then chat.update when the request is
decided anywhere, and views.open for the Reject modal)."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from server.adapters.notifications.http import _OPENER, USER_AGENT, post_json
from server.adapters.notifications.render import slack_message
from server.services.notifications.ports import DeliveryFailed, SlackApiError, SlackMessages
from server.services.notifications.settings import ChannelSettings

log = logging.getLogger(__name__)

_MAX_READ = 1 << 20
_ASKING = ("approval.created", "approval.escalated", "approval.expiring")
_CLOSING = ("approval.decided", "approval.expired")
# Slack errors that retrying cannot fix (a wrong token or channel, a message that is gone).
_FINAL = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "channel_not_found", "not_in_channel"}
    | {"is_archived", "invalid_blocks", "message_not_found", "cant_update_message", "missing_scope"}
)


class SlackWebApi:
    """Slack's Web API with one bot token: JSON bodies, `ok: false` raised as SlackApiError."""

    def __init__(self, base_url: str, token: str, timeout: float) -> None:
        self.base_url, self.token, self.timeout = base_url.rstrip("/"), token, timeout

    def call(self, method: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        request = urllib.request.Request(f"{self.base_url}/{method}", data=json.dumps(payload).encode(), method="POST")
        request.add_header("content-type", "application/json; charset=utf-8")
        request.add_header("authorization", f"Bearer {self.token}")
        request.add_header("user-agent", USER_AGENT)
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                answer = json.loads(response.read(_MAX_READ) or b"{}")
        except urllib.error.HTTPError as exc:
            raise SlackApiError(f"{method}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise SlackApiError(f"{method}: cannot reach Slack: {getattr(exc, 'reason', exc)}") from None
        except ValueError:
            raise SlackApiError(f"{method}: the answer is not JSON") from None
        if not isinstance(answer, dict) or answer.get("ok") is not True:
            error = answer.get("error", "unknown") if isinstance(answer, dict) else "unknown"
            raise SlackApiError(f"{method}: {error}")
        return answer

    def respond(self, response_url: str, payload: Mapping[str, Any]) -> None:
        try:
            post_json(response_url, json.dumps(payload).encode(), {}, self.timeout)
        except DeliveryFailed as exc:
            raise SlackApiError(f"response_url: {exc.message}") from None


class SlackSender:
    """With `bot_token` and `channel`: posts through the Web API and remembers each approval's messages, so
    its decision or expiry updates them in place; otherwise posts to the incoming webhook `url`."""

    def __init__(
        self, channel: ChannelSettings, messages: SlackMessages | None = None, now: Callable[[], datetime] | None = None
    ) -> None:
        self.c = channel
        self.messages = messages
        self.now = now or _now  # the sidecar's clock: the messages are pruned by it
        self.api = SlackWebApi(channel.api_base_url, channel.bot_token, channel.timeout) if channel.bot_token else None

    def send(self, document: Mapping[str, Any]) -> None:
        message = slack_message(document, interactive=self.c.interactive)
        if self.api is None:
            post_json(self.c.url, json.dumps(message).encode(), {}, self.c.timeout)
            return
        kind = str(document.get("type", ""))
        approval_id = str((document.get("data") or {}).get("approval_id", ""))
        try:
            posted = self.messages.find(approval_id, self.c.name) if self.messages and approval_id else []
            if kind in _CLOSING and posted:
                for slack_channel, ts in posted:
                    self.api.call("chat.update", {"channel": slack_channel, "ts": ts, **_update(message)})
                return
            answer = self.api.call("chat.postMessage", {"channel": self.c.slack_channel, **message})
        except SlackApiError as exc:
            raise DeliveryFailed(str(exc), final=str(exc).rsplit(": ", 1)[-1] in _FINAL) from None
        if self.messages is not None and approval_id and kind in _ASKING:
            self.messages.add(
                approval_id, self.c.name, str(answer.get("channel", "")), str(answer.get("ts", "")), self.now()
            )


def _update(message: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k in ("text", "blocks")}


def _now() -> datetime:
    return datetime.fromtimestamp(time.time(), UTC)
