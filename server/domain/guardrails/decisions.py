"""A CheckAction outcome as recorded in the decision log."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.domain.guardrails.base import Severity
from server.domain.guardrails.chain import ShadowOutcome

# ListDecisions' `shadow_outcome` filter: decisions a shadow guardrail would have blocked (asking a human
# included), those where it would have asked a human, and those with no shadow outcome.
SHADOW_FILTERS = ("", "blocked", "would_ask", "none")


@dataclass(frozen=True, slots=True)
class Decision:
    decision_id: str
    agent_id: str
    action: str
    context_digest: str
    allowed: bool
    reason: str
    severity: Severity
    guardrail: str
    warnings: tuple[tuple[str, str], ...]
    latency_us: int
    create_time: datetime
    request_id: str = ""
    trace_id: str = ""
    # Shadow mode (migration 0050): what a shadow guardrail would have answered; empty guardrail: nothing.
    shadow_guardrail: str = ""
    shadow_reason: str = ""
    shadow_needs_approval: bool = False
    # Context capture (migration 0051, `decision_log.capture: masked`): the masked context, None when not
    # captured; truncated to `decision_log.capture_max_bytes` when it was over it.
    context: Mapping[str, Any] | None = None
    context_truncated: bool = False

    def plain(self) -> dict[str, Any]:
        """Every field as a plain value (the severity a number, the warnings lists, the context a dict), keyed by
        field name: what the SQL repository inserts and the decision journal writes (it also makes the time text)."""
        return {
            "decision_id": self.decision_id,
            "agent_id": self.agent_id,
            "action": self.action,
            "context_digest": self.context_digest,
            "allowed": self.allowed,
            "reason": self.reason,
            "severity": int(self.severity),
            "guardrail": self.guardrail,
            "warnings": [list(w) for w in self.warnings],
            "latency_us": self.latency_us,
            "create_time": self.create_time,
            "request_id": self.request_id,
            "trace_id": self.trace_id,
            "shadow_guardrail": self.shadow_guardrail,
            "shadow_reason": self.shadow_reason,
            "shadow_needs_approval": self.shadow_needs_approval,
            "context": dict(self.context) if self.context is not None else None,
            "context_truncated": self.context_truncated,
        }

    @property
    def shadow(self) -> ShadowOutcome | None:
        if not self.shadow_guardrail:
            return None
        return ShadowOutcome(self.shadow_guardrail, self.shadow_reason, Severity.BLOCK, self.shadow_needs_approval)


@dataclass(frozen=True, slots=True)
class DecisionFilter:
    agent_id: str = ""
    action: str = ""
    outcome: str = ""  # "", "allowed" or "blocked"
    guardrail: str = ""
    start_time: datetime | None = None
    end_time: datetime | None = None
    shadow_outcome: str = ""  # one of SHADOW_FILTERS
    shadow_guardrail: str = ""

    def admits_shadow(self, d: Decision) -> bool:
        """The shadow filters, for repositories that filter in memory."""
        if self.shadow_guardrail and d.shadow_guardrail != self.shadow_guardrail:
            return False
        if self.shadow_outcome == "none":
            return not d.shadow_guardrail
        if self.shadow_outcome == "blocked":
            return bool(d.shadow_guardrail)
        if self.shadow_outcome == "would_ask":
            return bool(d.shadow_guardrail) and d.shadow_needs_approval
        return True
