"""What to send where: turns an approval change, a finished kill or a recovery event into outbox rows
(one per routed channel), for the caller to write in its own transaction. Pure apart from ids."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from server.domain.approvals.requests import Approval, ApprovalState
from server.domain.notifications.delivery import Notification
from server.domain.notifications.events import EventKind, NotificationEvent, event_id, iso, summarize
from server.domain.notifications.routing import Routes, unique
from server.domain.recovery.cascade import Cascade
from server.domain.recovery.events import RecoveryEvent, RecoveryEventType
from server.domain.recovery.kill import KillResult
from server.domain.safeguards.breakers import BreakerState
from server.domain.safeguards.budgets import SignalType

_TITLES = {
    EventKind.APPROVAL_CREATED: "Approval needed",
    EventKind.APPROVAL_ESCALATED: "Approval escalated",
    EventKind.APPROVAL_EXPIRING: "Approval about to expire",
    EventKind.APPROVAL_DECIDED: "Approval decided",
    EventKind.APPROVAL_EXPIRED: "Approval expired",
}


class NotificationPlanner:
    def __init__(
        self,
        routes: Routes,
        public_url: str | None,
        sensitive_keys: Sequence[str],
        context_keys: Sequence[str] | None = None,
        in_place: Sequence[str] = (),
    ) -> None:
        # Channels whose messages are updated in place (Slack through the Web API): they also hear the
        # decision of every request they were asked about, to change that message.
        self.in_place = frozenset(in_place)
        self.routes = routes
        self.public_url = (public_url or "").rstrip("/")
        self.sensitive_keys = tuple(sensitive_keys)
        self.context_keys = tuple(context_keys) if context_keys is not None else None

    def _link(self, path: str) -> str:
        return f"{self.public_url}{path}" if self.public_url else ""

    def _rows(self, event: NotificationEvent, channels: Sequence[str]) -> tuple[Notification, ...]:
        document = event.document()
        return tuple(
            Notification(
                notification_id="ntf_" + secrets.token_hex(8),
                event_id=event.event_id,
                kind=event.kind.value,
                channel=channel,
                agent_id=event.agent_id,
                subject=event.subject,
                document=document,
                create_time=event.occur_time,
                next_attempt_time=event.occur_time,
            )
            for channel in channels
        )

    # ---- approvals ---------------------------------------------------------------------------

    def for_approval(self, kind: EventKind, a: Approval, now: datetime) -> tuple[Notification, ...]:
        channels = self.routes.channels(kind, notify=a.policy.notify, approvers=a.approvers, owner=a.owner)
        if kind in (EventKind.APPROVAL_DECIDED, EventKind.APPROVAL_EXPIRED) and self.in_place:
            # Every channel asked about it: the first approvers' and, once escalated, the escalation's.
            approvers = (*a.policy.approvers, *a.approvers)
            asked = self.routes.channels(EventKind.APPROVAL_CREATED, notify=a.policy.notify, approvers=approvers)
            channels = unique((*channels, *(c for c in asked if c in self.in_place)))
        if not channels:
            return ()
        return self._rows(self.approval_event(kind, a, now), channels)

    def approval_event(self, kind: EventKind, a: Approval, now: datetime) -> NotificationEvent:
        """The event of `kind` about request `a` as it is at `now` (also what a Slack message is updated to)."""
        # One event per request and kind; an escalation or an expiry warning once per stage.
        key: tuple[object, ...] = (a.approval_id, a.stage) if kind in _PER_STAGE else (a.approval_id,)
        approved_by = [v.reviewer for v in a.votes if v.approve]
        data: dict[str, Any] = {
            "approval_id": a.approval_id,
            "action": a.action,
            "guardrail": a.guardrail,
            "state": a.state.name,
            "stage": a.stage,
            "approvers": list(a.approvers),
            "owner": a.owner,
            "context": summarize(a.context, self.context_keys, self.sensitive_keys),
            "create_time": iso(a.create_time),
            "expire_time": iso(a.expire_time),
            "waiting_seconds": max(0, int((now - a.create_time).total_seconds())),
            "approvals_needed": a.policy.min_approvals,
            "approvals_given": len(approved_by),
            "approved_by": approved_by,
        }
        if kind is EventKind.APPROVAL_DECIDED:
            data |= {"decided_by": a.decided_by, "comment": a.comment[:500], "decide_time": iso(a.decide_time)}
        title = f"{_TITLES[kind]}: {a.action} by {a.agent_id}"
        if kind is EventKind.APPROVAL_DECIDED:
            title = f"{a.state.name.capitalize()}: {a.action} by {a.agent_id} ({a.decided_by})"
        link = self._link(f"/approvals/{a.approval_id}")
        return NotificationEvent(event_id(kind, *key), kind, now, a.agent_id, a.approval_id, title, link, data)

    def current_approval_event(self, a: Approval, now: datetime) -> NotificationEvent:
        """The event that describes `a` now: asked (pending), expired, or decided (approved, rejected,
        cancelled)."""
        if a.state is ApprovalState.PENDING:
            kind = EventKind.APPROVAL_ESCALATED if a.stage else EventKind.APPROVAL_CREATED
        elif a.state is ApprovalState.EXPIRED:
            kind = EventKind.APPROVAL_EXPIRED
        else:
            kind = EventKind.APPROVAL_DECIDED
        return self.approval_event(kind, a, now)

    # ---- the kill switch ---------------------------------------------------------------------

    def for_kill(self, k: KillResult) -> tuple[Notification, ...]:
        kind = EventKind.KILL_COMPLETED
        channels = self.routes.channels(kind)
        if not channels or k.complete_time is None:
            return ()
        data = {
            "kill_id": k.kill_id,
            "session_id": k.session_id,
            "reason": k.reason.name,
            "requested_by": k.requested_by,
            "terminated": k.terminated,
            "detail": k.detail[:500],
            "handoffs": len(k.handoffs),
            "cancelled_approval_count": k.cancelled_approval_count,
            "revoked_lease_count": k.revoked_lease_count,
            "kill_time": iso(k.kill_time),
        }
        title = f"Agent {k.agent_id} killed ({k.reason.name.lower()})"
        event = NotificationEvent(
            event_id(kind, k.kill_id), kind, k.complete_time, k.agent_id, k.kill_id, title, self._link("/agents"), data
        )
        return self._rows(event, channels)

    # ---- recovery and safeguard events -------------------------------------------------------

    def for_recovery_event(self, e: RecoveryEvent) -> tuple[Notification, ...]:
        found = _recovery_event(e)
        if found is None:
            return ()
        kind, subject, title, path, data = found
        channels = self.routes.channels(kind)
        if not channels:
            return ()
        event = NotificationEvent(
            event_id(kind, e.sequence, subject), kind, e.event_time, e.agent_id, subject, title, self._link(path), data
        )
        return self._rows(event, channels)


_PER_STAGE = frozenset({EventKind.APPROVAL_ESCALATED, EventKind.APPROVAL_EXPIRING})


def _recovery_event(e: RecoveryEvent) -> tuple[EventKind, str, str, str, dict[str, Any]] | None:
    data: dict[str, Any]
    if e.type is RecoveryEventType.CASCADE and isinstance(e.payload, Cascade):
        c = e.payload
        data = {
            "cascade_id": c.cascade_id,
            "root_agent": c.root_agent,
            "agent_ids": list(c.agent_ids),
            "action": c.action.name,
            "kill_id": c.kill_id,
            "opened_breakers": list(c.opened_breakers),
            "detect_time": iso(c.detect_time),
        }
        title = f"Cascade detected from {c.root_agent} ({len(c.agent_ids)} agents)"
        return EventKind.CASCADE_DETECTED, c.cascade_id, title, "/agents", data
    payload: Mapping[str, Any] = e.payload if isinstance(e.payload, Mapping) else {}
    if e.type is RecoveryEventType.BREAKER_STATE_CHANGE and payload.get("to_state") == int(BreakerState.OPEN):
        key = str(payload.get("key", ""))
        data = {k: payload.get(k) for k in ("key", "generation", "failure_count", "reason", "change_time")}
        return EventKind.BREAKER_OPENED, key, f"Breaker {key} opened", "/breakers", data
    if e.type is RecoveryEventType.BUDGET_SIGNAL and payload.get("type") == int(SignalType.SIGSTOP):
        who = "the global budget" if payload.get("global") else f"agent {e.agent_id}"
        fields = ("agent_id", "global", "used", "allocated", "usage_percent", "signal_time")
        data = {k: payload.get(k) for k in fields}
        return EventKind.BUDGET_SIGSTOP, e.agent_id or "global", f"Budget SIGSTOP for {who}", "/budgets", data
    return None
