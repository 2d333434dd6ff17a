"""The kill switch with saga handoff (the Agent Governance Toolkit, section 4 and 6): reasons, the handoff state
machine,
the kill result, and how substitutes are chosen.

A step's handoff goes PENDING -> HANDED_OFF (a substitute acked) or PENDING -> COMPENSATED (no
substitute took it). Each try at one substitute is an attempt: PENDING -> HANDED_OFF or FAILED.
The kill intent is recorded before anything else; the agent is unregistered whatever happens.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from server.domain.agents import validate_id
from server.domain.errors import InvalidArgument

DEFAULT_CALLBACK_TIMEOUT = 5.0  # the Agent Governance Toolkit: DEFAULT_CALLBACK_TIMEOUT_SECONDS
DEFAULT_HANDOFF_TIMEOUT = 5.0
KILL_ID = re.compile(r"^kill:[0-9a-f]{8}$")
MAX_STEP_ID = 256


class KillReason(enum.IntEnum):
    # Exactly the six of the Agent Governance Toolkit; values match outrider.v1.KillReason.
    BEHAVIORAL_DRIFT = 1
    RATE_LIMIT = 2
    RING_BREACH = 3
    MANUAL = 4
    QUARANTINE_TIMEOUT = 5
    SESSION_TIMEOUT = 6


class HandoffStatus(enum.IntEnum):
    PENDING = 1
    HANDED_OFF = 2
    FAILED = 3  # attempts only
    COMPENSATED = 4  # steps only


@dataclass(frozen=True, slots=True)
class CompensatingAction:
    description: str = ""
    action: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    effectiveness: int = 0  # outrider.v1.CompensationEffectiveness
    time_window: float | None = None  # seconds


@dataclass(frozen=True, slots=True)
class SagaStep:
    saga_id: str
    step_id: str
    action: str = ""
    payload: Mapping[str, Any] = field(default_factory=dict)
    compensation: tuple[CompensatingAction, ...] = ()


@dataclass(frozen=True, slots=True)
class HandoffAttempt:
    to_agent: str
    command_id: str
    status: HandoffStatus = HandoffStatus.PENDING
    detail: str = ""
    send_time: datetime | None = None
    settle_time: datetime | None = None


@dataclass(frozen=True, slots=True)
class StepHandoff:
    step: SagaStep
    from_agent: str
    kill_id: str
    session_id: str
    to_agent: str = ""
    status: HandoffStatus = HandoffStatus.PENDING
    attempts: tuple[HandoffAttempt, ...] = ()
    compensating_actions: tuple[CompensatingAction, ...] = ()
    update_time: datetime | None = None


@dataclass(frozen=True, slots=True)
class KillResult:
    kill_id: str
    agent_id: str
    session_id: str
    reason: KillReason
    handoffs: tuple[StepHandoff, ...]
    kill_time: datetime
    request_details: str = ""
    requested_by: str = ""
    request_id: str = ""
    callback_timeout: float = DEFAULT_CALLBACK_TIMEOUT
    handoff_timeout: float = DEFAULT_HANDOFF_TIMEOUT
    terminated: bool = False
    detail: str = ""
    cancelled_approval_count: int = 0
    revoked_lease_count: int = 0
    complete_time: datetime | None = None

    @property
    def handoff_success_count(self) -> int:
        return sum(1 for h in self.handoffs if h.status is HandoffStatus.HANDED_OFF)

    @property
    def compensation_triggered(self) -> bool:
        return any(h.status is HandoffStatus.COMPENSATED for h in self.handoffs)

    @property
    def complete(self) -> bool:
        return self.complete_time is not None


@dataclass(frozen=True, slots=True)
class KillFilter:
    agent_id: str = ""
    session_id: str = ""
    reason: KillReason | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None


@dataclass(frozen=True, slots=True)
class KillNotice:
    """What a kill hook (cancel approvals, revoke leases, ...) is told."""

    kill_id: str
    agent_id: str
    session_id: str
    reason: KillReason
    requested_by: str


@dataclass(frozen=True, slots=True)
class KillPayload:
    """The KILL command's payload."""

    kill_id: str
    reason: KillReason
    details: str


@dataclass(frozen=True, slots=True)
class HandoffPayload:
    """The HANDOFF command's payload: the step to take over."""

    kill_id: str
    session_id: str
    from_agent: str
    step: SagaStep


def new_kill_id(random_hex: str) -> str:
    """`kill:` + 8 lowercase hex digits (the caller supplies the randomness)."""
    kill_id = f"kill:{random_hex.lower()}"
    if not KILL_ID.match(kill_id):
        raise ValueError(f"not 8 hex digits: {random_hex!r}")
    return kill_id


def validate_steps(steps: Sequence[SagaStep], where: str = "in_flight_steps") -> None:
    """Every step names its saga and step; no (saga_id, step_id) twice."""
    seen: set[tuple[str, str]] = set()
    for i, step in enumerate(steps):
        for name in ("saga_id", "step_id"):
            value = getattr(step, name)
            if not value:
                raise InvalidArgument(f"{where}[{i}].{name} is required", field=f"{where}[{i}].{name}")
            if len(value) > MAX_STEP_ID:
                raise InvalidArgument(
                    f"{where}[{i}].{name} must be at most {MAX_STEP_ID} characters", field=f"{where}[{i}].{name}"
                )
        key = (step.saga_id, step.step_id)
        if key in seen:
            raise InvalidArgument(
                f"{where}[{i}]: step {step.step_id!r} of saga {step.saga_id!r} is given twice", field=f"{where}[{i}]"
            )
        seen.add(key)


def start_kill(
    kill_id: str,
    agent_id: str,
    session_id: str,
    reason: KillReason,
    steps: Sequence[SagaStep],
    now: datetime,
    *,
    details: str = "",
    requested_by: str = "",
    request_id: str = "",
    callback_timeout: float = DEFAULT_CALLBACK_TIMEOUT,
    handoff_timeout: float = DEFAULT_HANDOFF_TIMEOUT,
) -> KillResult:
    """The kill intent: every step PENDING, not terminated, not complete."""
    validate_id(agent_id, "agent_id")
    if session_id:
        validate_id(session_id, "session_id")
    validate_steps(steps)
    for name, value in (("callback_timeout", callback_timeout), ("handoff_timeout", handoff_timeout)):
        if value <= 0:
            raise InvalidArgument(f"{name} must be positive", field=name)
    handoffs = tuple(StepHandoff(s, agent_id, kill_id, session_id, update_time=now) for s in steps)
    return KillResult(
        kill_id,
        agent_id,
        session_id,
        reason,
        handoffs,
        now,
        request_details=details,
        requested_by=requested_by,
        request_id=request_id,
        callback_timeout=callback_timeout,
        handoff_timeout=handoff_timeout,
    )


def begin_attempt(h: StepHandoff, to_agent: str, command_id: str, now: datetime) -> StepHandoff:
    if h.status is not HandoffStatus.PENDING:
        raise ValueError(f"step {h.step.step_id} is already {h.status.name}")
    if h.attempts and h.attempts[-1].status is HandoffStatus.PENDING:
        raise ValueError(f"step {h.step.step_id} has an unsettled attempt")
    attempt = HandoffAttempt(to_agent, command_id, HandoffStatus.PENDING, "", now)
    return replace(h, attempts=(*h.attempts, attempt), update_time=now)


def settle_attempt(h: StepHandoff, accepted: bool, detail: str, now: datetime) -> StepHandoff:
    """The substitute acked SUCCESS (HANDED_OFF, the step goes to it) or did not (the attempt FAILED)."""
    if not h.attempts or h.attempts[-1].status is not HandoffStatus.PENDING:
        raise ValueError(f"step {h.step.step_id} has no attempt in flight")
    last = h.attempts[-1]
    status = HandoffStatus.HANDED_OFF if accepted else HandoffStatus.FAILED
    settled = replace(last, status=status, detail=detail, settle_time=now)
    h = replace(h, attempts=(*h.attempts[:-1], settled), update_time=now)
    if accepted:
        h = replace(h, status=HandoffStatus.HANDED_OFF, to_agent=last.to_agent)
    return h


def compensate(h: StepHandoff, actions: Sequence[CompensatingAction], now: datetime) -> StepHandoff:
    """No substitute took the step: record its compensating actions for execution."""
    if h.status is not HandoffStatus.PENDING:
        raise ValueError(f"step {h.step.step_id} is already {h.status.name}")
    if h.attempts and h.attempts[-1].status is HandoffStatus.PENDING:
        raise ValueError(f"step {h.step.step_id} has an unsettled attempt")
    return replace(h, status=HandoffStatus.COMPENSATED, compensating_actions=tuple(actions), update_time=now)


def interrupt_attempt(h: StepHandoff, now: datetime, detail: str = "interrupted by a restart") -> StepHandoff:
    """An attempt left in flight by a crash failed: the next substitute is tried."""
    if h.attempts and h.attempts[-1].status is HandoffStatus.PENDING:
        return settle_attempt(h, False, detail, now)
    return h


def kill_command_id(kill_id: str) -> str:
    """The id of a kill's KILL command: the same for whichever sidecar runs the kill, so one that takes the
    kill over finds the command (and the agent's acknowledgement) the first owner routed."""
    return "cmd-" + kill_id.replace(":", "-")


def record_termination(k: KillResult, terminated: bool, detail: str) -> KillResult:
    """The KILL command's outcome, stored before the kill completes (a take-over must not ask again)."""
    return replace(k, terminated=terminated, detail=detail or ("terminated" if terminated else "not terminated"))


def termination_recorded(k: KillResult) -> bool:
    return not k.complete and bool(k.detail)


def complete_kill(
    k: KillResult, terminated: bool, detail: str, cancelled_approvals: int, revoked_leases: int, now: datetime
) -> KillResult:
    return replace(
        k,
        terminated=terminated,
        detail=detail,
        cancelled_approval_count=cancelled_approvals,
        revoked_lease_count=revoked_leases,
        complete_time=now,
    )


def with_handoff(k: KillResult, index: int, h: StepHandoff) -> KillResult:
    return replace(k, handoffs=(*k.handoffs[:index], h, *k.handoffs[index + 1 :]))


def handoff_candidates(substitutes: Iterable[str], killed_agent: str, eligible: Callable[[str], bool]) -> list[str]:
    """First registered first; never the killed agent; only eligible ones (live, healthy); no repeats."""
    out: list[str] = []
    for agent_id in substitutes:
        if agent_id == killed_agent or agent_id in out or not eligible(agent_id):
            continue
        out.append(agent_id)
    return out


def parse_reason(value: Any, field: str) -> KillReason:
    """`behavioral_drift`, `BEHAVIORAL_DRIFT` or `KILL_REASON_BEHAVIORAL_DRIFT`."""
    if isinstance(value, str):
        name = value.strip().upper().removeprefix("KILL_REASON_")
        if name in KillReason.__members__:
            return KillReason[name]
    names = ", ".join(r.name.lower() for r in KillReason)
    raise InvalidArgument(f"{field}: {value!r} is not a kill reason; use one of {names}", field=field)


class SubstituteScope(enum.Enum):
    SESSION = "session"  # kill handoffs of a session
    GROUP = "group"  # REPLACE promotion into a group


@dataclass(frozen=True, slots=True)
class Substitute:
    scope: SubstituteScope
    scope_id: str
    agent_id: str
    position: int
    register_time: datetime
    request_id: str = ""
