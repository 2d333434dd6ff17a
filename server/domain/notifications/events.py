"""The events worth a message and the versioned JSON document every channel is rendered from.

The document (schema `outrider.notification.v1`, see docs/notifications.md) is built when the event
happens and stored with each outbox row, so a delivery after a restart sends exactly what was decided
then. Its `id` is derived from what happened (`approval.created` of one request, a breaker's generation),
so writing the same event twice collapses to one row per channel, and receivers de-duplicate by it.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from server.domain.masking import mask

SCHEMA = "outrider.notification.v1"
MAX_SUMMARY_VALUE = 200  # characters of one context value in a summary
MAX_SUMMARY_KEYS = 20


class EventKind(enum.StrEnum):
    APPROVAL_CREATED = "approval.created"
    APPROVAL_ESCALATED = "approval.escalated"
    APPROVAL_EXPIRING = "approval.expiring"
    APPROVAL_DECIDED = "approval.decided"
    APPROVAL_EXPIRED = "approval.expired"
    KILL_COMPLETED = "kill.completed"
    CASCADE_DETECTED = "cascade.detected"
    BREAKER_OPENED = "breaker.opened"
    BUDGET_SIGSTOP = "budget.sigstop"
    GATEWAY_TOOL_CHANGED = "gateway.tool_changed"  # written by `outrider mcp-gateway`, never by a sidecar


APPROVAL_KINDS = frozenset(k for k in EventKind if k.value.startswith("approval."))


@dataclass(frozen=True, slots=True)
class NotificationEvent:
    """One thing that happened, as every channel renders it."""

    event_id: str
    kind: EventKind
    occur_time: datetime
    agent_id: str
    subject: str  # the approval, kill, cascade or breaker it is about
    title: str  # one line for humans
    link: str = ""  # the console page, when console.public_url is set
    data: Mapping[str, Any] | None = None  # kind-specific fields (documented per kind)

    def document(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "id": self.event_id,
            "type": self.kind.value,
            "time": iso(self.occur_time),
            "agent_id": self.agent_id,
            "subject": self.subject,
            "title": self.title,
            "link": self.link,
            "data": dict(self.data or {}),
        }


def event_id(kind: EventKind, *key: object) -> str:
    """Stable for the same happening (so a retry of the write or a second sidecar adds nothing)."""
    raw = json.dumps([kind.value, *[str(k) for k in key]], separators=(",", ":"))
    return "evt_" + hashlib.sha256(raw.encode()).hexdigest()[:32]


def iso(when: datetime | None) -> str:
    if when is None:
        return ""
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def summarize(
    context: Mapping[str, Any], allowed_keys: Sequence[str] | None, sensitive_keys: Sequence[str]
) -> dict[str, str]:
    """What of an action's context may leave the host: top-level keys (only `allowed_keys` when the
    config names them), masked by the usual rules, each value shortened to one line."""
    masked = mask(dict(context), tuple(sensitive_keys))
    out: dict[str, str] = {}
    for key in sorted(masked):
        if allowed_keys is not None and key not in allowed_keys:
            continue
        if len(out) >= MAX_SUMMARY_KEYS:
            break
        value = masked[key]
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        text = " ".join(text.split())
        if len(text) > MAX_SUMMARY_VALUE:
            text = text[: MAX_SUMMARY_VALUE - 1] + "…"
        out[str(key)[:MAX_SUMMARY_VALUE]] = text
    return out
