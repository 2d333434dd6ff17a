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
