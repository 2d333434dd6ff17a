"""The recovery ladder of the SupervisorAgent library (AgentRecoveryManager): policies, the action choice, results.

The rules, exactly:
- within the cooldown of the agent's previous attempt nothing happens: a failed result, no state change;
- otherwise the action is EJECT once the retry count reaches `max_retries`, ESCALATE once it reaches
  `escalate_after`, the policy's `default_action` before that;
- the retry count goes up by one; the result joins the history and goes to the listeners.
Defaults: max_retries 3, escalate_after 3, cooldown 5 s, default_action RESTART (so, with the defaults,
an agent is ejected without being escalated).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.domain.agents import DEFAULT_GROUP, Agent, validate_id
from server.domain.errors import InvalidArgument, OutriderError
from server.domain.recovery.health import HealthCheckSpec, HealthStatus
from server.domain.values import format_number, is_number, parse_duration

DEFAULT_MAX_RETRIES = 3
DEFAULT_ESCALATE_AFTER = 3
DEFAULT_COOLDOWN = 5.0
# Where EJECT (and REPLACE) put an agent: it is then no longer a member of its group, health checks skip
# it, and group-scoped guardrails stop applying. RegisterAgent with its group takes it back.
EJECTED_GROUP = "ejected"


class RecoveryAction(enum.IntEnum):
    # Values match outrider.v1.RecoveryAction.
    EJECT = 1
    REPLACE = 2
    RESTART = 3
    RESTART_CLEAN = 4
    ESCALATE = 5


class RecoveryTrigger(enum.IntEnum):
    HEALTH_CHECK = 1
    MANUAL = 2


DEFAULT_ACTION = RecoveryAction.RESTART


@dataclass(frozen=True, slots=True)
class RecoveryPolicy:
    group: str = DEFAULT_GROUP
    max_retries: int = DEFAULT_MAX_RETRIES
    escalate_after: int = DEFAULT_ESCALATE_AFTER
    cooldown: float = DEFAULT_COOLDOWN  # seconds
    default_action: RecoveryAction = DEFAULT_ACTION
    source: str = "builtin"  # "runtime", "policy" or "builtin"
    update_time: datetime | None = None


def new_policy(
    group: str,
    max_retries: int | None = None,
    escalate_after: int | None = None,
    cooldown: float | None = None,
    default_action: RecoveryAction | None = None,
    *,
    source: str = "runtime",
    now: datetime | None = None,
    where: str = "policy",
) -> RecoveryPolicy:
    """A validated policy; unset values take the source's defaults."""
    group = group or DEFAULT_GROUP
    validate_id(group, f"{where}.group")
    for name, value in (("max_retries", max_retries), ("escalate_after", escalate_after)):
        if value is not None and value < 0:
            raise InvalidArgument(f"{where}.{name} must not be negative, got {value}", field=f"{where}.{name}")
    if cooldown is not None and cooldown < 0:
        raise InvalidArgument(f"{where}.cooldown must not be negative", field=f"{where}.cooldown")
    return RecoveryPolicy(
        group=group,
        max_retries=DEFAULT_MAX_RETRIES if max_retries is None else max_retries,
        escalate_after=DEFAULT_ESCALATE_AFTER if escalate_after is None else escalate_after,
        cooldown=DEFAULT_COOLDOWN if cooldown is None else cooldown,
        default_action=default_action or DEFAULT_ACTION,
        source=source,
        update_time=now,
    )


def builtin_policy(group: str) -> RecoveryPolicy:
    return RecoveryPolicy(group=group or DEFAULT_GROUP)


@dataclass(frozen=True, slots=True)
class AttemptPlan:
    """What an attempt will do: `action` is None when refused in cooldown (`cooldown_left` seconds)."""

    action: RecoveryAction | None
    retries_before: int
    cooldown_left: float = 0.0


def plan_attempt(policy: RecoveryPolicy, retry_count: int, last_attempt: datetime | None, now: datetime) -> AttemptPlan:
    """The source's choice: cooldown first, then EJECT ≥ max_retries, ESCALATE ≥ escalate_after, else default."""
    if last_attempt is not None:
        elapsed = (now - last_attempt).total_seconds()
        if elapsed < policy.cooldown:
            return AttemptPlan(None, retry_count, policy.cooldown - elapsed)
    if retry_count >= policy.max_retries:
        action = RecoveryAction.EJECT
    elif retry_count >= policy.escalate_after:
        action = RecoveryAction.ESCALATE
    else:
        action = policy.default_action
    return AttemptPlan(action, retry_count)


def cooldown_detail(seconds_left: float) -> str:
    return f"within cooldown ({format_number(round(max(seconds_left, 0.0), 1))}s left)"


@dataclass(frozen=True, slots=True)
class RecoveryResult:
    """One recovery attempt (the SupervisorAgent library's RecoveryResult). `retry_count` is the count this
    attempt brought the agent to (for EJECT/REPLACE the stored count is then removed, so GetRetryCount
    answers 0)."""

    recovery_id: str
    agent_id: str
    group: str
    action_taken: RecoveryAction | None
    success: bool
    detail: str
    reason: str
    trigger: RecoveryTrigger
    retry_count: int
    in_cooldown: bool = False
    replacement_agent_id: str = ""
    command_id: str = ""
    attempt_time: datetime | None = None
    request_id: str = ""


@dataclass(frozen=True, slots=True)
class Escalation:
    agent_id: str
    group: str
    failed_attempts: int  # the retry count that reached escalate_after (the library's onEscalation failedAttempts)
    reason: str
    recovery_id: str
    escalate_time: datetime


@dataclass(frozen=True, slots=True)
class RecoveryState:
    """What recovery remembers about one agent between attempts (durable)."""

    retry_count: int = 0
    last_attempt_time: datetime | None = None
    last_recovery: RecoveryResult | None = None

    @property
    def escalated(self) -> bool:
        last = self.last_recovery
        return self.retry_count > 0 and last is not None and last.action_taken is RecoveryAction.ESCALATE


def state_after(state: RecoveryState, result: RecoveryResult) -> RecoveryState:
    """The retry count goes up by one; EJECT and REPLACE remove it (the cooldown still runs)."""
    removed = result.action_taken in (RecoveryAction.EJECT, RecoveryAction.REPLACE)
    return RecoveryState(0 if removed else result.retry_count, result.attempt_time, result)


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    agent_id: str = ""
    group: str = ""
    action: RecoveryAction | None = None
    trigger: RecoveryTrigger | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None


@dataclass(frozen=True, slots=True)
class AgentRecoveryStatus:
    agent: Agent
    health_check: HealthCheckSpec | None
    last_status: HealthStatus | None
    retry_count: int
    connected: bool
    connect_time: datetime | None
    last_seen_time: datetime | None
    last_recovery: RecoveryResult | None
    escalated: bool


def parse_action(value: Any, field: str) -> RecoveryAction:
    """`restart`, `RESTART` or `RECOVERY_ACTION_RESTART`."""
    if isinstance(value, str):
        name = value.strip().upper().removeprefix("RECOVERY_ACTION_")
        if name in RecoveryAction.__members__:
            return RecoveryAction[name]
    names = ", ".join(a.name.lower() for a in RecoveryAction)
    raise InvalidArgument(f"{field}: {value!r} is not a recovery action; use one of {names}", field=field)


_POLICY_KEYS = {"group", "max_retries", "escalate_after", "cooldown", "default_action"}


def parse_policies(raw: Any, where: str = "recovery.policies") -> list[RecoveryPolicy]:
    """The policy file's per-group recovery policies (source "policy")."""
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise InvalidArgument(f"{where}: must be a list of policies", field=where)
    policies: dict[str, RecoveryPolicy] = {}
    for i, entry in enumerate(raw):
        label = f"{where}[{i}]"
        if not isinstance(entry, Mapping):
            raise InvalidArgument(f"{label}: must be a mapping with group and the policy's options", field=label)
        unknown = sorted(set(entry) - _POLICY_KEYS)
        if unknown:
            raise InvalidArgument(
                f"{label}.{unknown[0]}: unknown key; known keys: {', '.join(sorted(_POLICY_KEYS))}", field=label
            )
        try:
            policy = new_policy(
                str(entry.get("group") or ""),
                _count(entry.get("max_retries"), f"{label}.max_retries"),
                _count(entry.get("escalate_after"), f"{label}.escalate_after"),
                _cooldown(entry.get("cooldown"), f"{label}.cooldown"),
                parse_action(entry["default_action"], f"{label}.default_action") if "default_action" in entry else None,
                source="policy",
                where=label,
            )
        except OutriderError as exc:
            raise InvalidArgument(exc.message, field=exc.field or label) from exc
        if policy.group in policies:
            raise InvalidArgument(f"{label}: group {policy.group!r} has two policies", field=label)
        policies[policy.group] = policy
    return list(policies.values())


def _count(value: Any, field: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidArgument(f"{field}: must be a whole number, 0 or more, got {value!r}", field=field)
    return value


def _cooldown(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if is_number(value) and value == 0:
        return 0.0
    return parse_duration(value, field)
