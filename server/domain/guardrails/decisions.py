"""A CheckAction outcome as recorded in the decision log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from server.domain.guardrails.base import Severity


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


@dataclass(frozen=True, slots=True)
class DecisionFilter:
    agent_id: str = ""
    action: str = ""
    outcome: str = ""  # "", "allowed" or "blocked"
    guardrail: str = ""
    start_time: datetime | None = None
    end_time: datetime | None = None
