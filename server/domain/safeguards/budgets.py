"""Token budgets (the SupervisorAgent library's "Token budgets") and context signals (the Agent Governance Toolkit,
section 10), without I/O.

The SupervisorAgent library's rules: `allocate` sets an agent's allocation (again: replaces it and restarts
its count); `consume` adds to the agent's and the global count, records usage beyond the budget and warns from
90%; a request fits when both the agent and the global budget have room. Beyond the source: reservations set
tokens aside so concurrent calls cannot overspend together, and kernel-style signals are edge-triggered on the
level (used + reserved): SIGWARN once per crossing of 90%, SIGSTOP when the level reaches the budget,
SIGRESUME when it drops below again. When only the global pool is short, a request up to the priority's
minimum context size still fits, for an agent whose priority was set explicitly: an agent that never chose one
gets the token-budget rule as the source states it (both the agent and the pool must have room), not a NORMAL
floor it never asked for.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

WARN_FRACTION = 0.9


class Priority(enum.IntEnum):
    # Values match outrider.v1.ContextPriority; numeric order is priority order.
    LOW = 1
    NORMAL = 2
    HIGH = 3
    CRITICAL = 4


DEFAULT_MIN_CONTEXT: Mapping[Priority, int] = {
    Priority.CRITICAL: 4000,
    Priority.HIGH: 2000,
    Priority.NORMAL: 1000,
    Priority.LOW: 500,
}


class SignalType(enum.IntEnum):
    # Values match outrider.v1.BudgetSignalType.
    SIGWARN = 1
    SIGSTOP = 2
    SIGRESUME = 3


class ReservationState(enum.Enum):
    OPEN = "open"
    SETTLED = "settled"
    EXPIRED = "expired"
    CANCELLED = "cancelled"  # the agent's allocation was replaced


@dataclass(slots=True)
class Allocation:
    agent_id: str
    allocated: int
    priority: Priority
    allocate_time: datetime
    update_time: datetime
    used: int = 0
    reserved: int = 0
    warned: bool = False
    stopped: bool = False
    priority_set: bool = False  # the priority was given explicitly (only then do its floors apply)
    version: int = 0  # the stored row's change count: a cache keeps the newest it has seen

    @property
    def remaining(self) -> int:
        return max(0, self.allocated - self.used - self.reserved)

    @property
    def usage_percent(self) -> float:
        return self.used / self.allocated * 100 if self.allocated else 0.0

    def copy(self) -> Allocation:
        return replace(self)


@dataclass(slots=True)
class GlobalBudget:
    total: int
    update_time: datetime
    used: int = 0
    reserved: int = 0
    warned: bool = False
    stopped: bool = False
    source: str = "config"  # "config" (follows the file) or "runtime" (SetGlobalBudget)
    version: int = 0  # the stored row's change count

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.used - self.reserved)

    @property
    def usage_percent(self) -> float:
        return self.used / self.total * 100 if self.total else 0.0

    def copy(self) -> GlobalBudget:
        return replace(self)


@dataclass(slots=True)
class Reservation:
    reservation_id: str
    agent_id: str
    tokens: int
    create_time: datetime
    expire_time: datetime
    expires_at: float  # monotonic
    request_id: str = ""
    state: ReservationState = ReservationState.OPEN
    actual: int | None = None
    end_time: datetime | None = None

    def copy(self) -> Reservation:
        return replace(self)


@dataclass(frozen=True, slots=True)
class BudgetSignal:
    agent_id: str  # the agent concerned; for a global signal, the one whose request caused it ("" for none)
    type: SignalType
    is_global: bool
    used: int
    allocated: int
    usage_percent: float
    signal_time: datetime


@dataclass(frozen=True, slots=True)
class Fit:
    allowed: bool
    reason: str
    agent_remaining: int
    global_remaining: int
    priority_floor_applied: bool = False


def fits(alloc: Allocation | None, glob: GlobalBudget, tokens: int, min_context: Mapping[Priority, int]) -> Fit:
    """Both budgets have room, or only the global pool is short and `tokens` is within the floor of a
    priority the agent set explicitly."""
    if alloc is None:
        return Fit(False, "no allocation", 0, glob.remaining)
    agent_left, global_left = alloc.remaining, glob.remaining
    if tokens > agent_left:
        return Fit(False, f"agent budget: {agent_left} of {alloc.allocated} left", agent_left, global_left)
    if tokens <= global_left:
        return Fit(True, "", agent_left, global_left)
    if alloc.priority_set and tokens <= min_context.get(alloc.priority, 0):
        return Fit(True, "", agent_left, global_left, priority_floor_applied=True)
    return Fit(False, f"global budget: {global_left} left", agent_left, global_left)


def _edges(used: int, reserved: int, budget: int, warned: bool, stopped: bool) -> tuple[bool, bool, list[SignalType]]:
    level = used + reserved
    signals: list[SignalType] = []
    warn_now = level >= WARN_FRACTION * budget
    stop_now = level >= budget
    if warn_now and not warned:
        signals.append(SignalType.SIGWARN)
    if stop_now and not stopped:
        signals.append(SignalType.SIGSTOP)
    if stopped and not stop_now:
        signals.append(SignalType.SIGRESUME)
    return warn_now, stop_now, signals


def evaluate(alloc: Allocation | None, glob: GlobalBudget, agent_id: str, wall: datetime) -> list[BudgetSignal]:
    """Edge-triggered signals after a change, updating the warned/stopped flags (agent first, then global)."""
    out: list[BudgetSignal] = []
    if alloc is not None:
        alloc.warned, alloc.stopped, kinds = _edges(
            alloc.used, alloc.reserved, alloc.allocated, alloc.warned, alloc.stopped
        )
        out += [
            BudgetSignal(alloc.agent_id, k, False, alloc.used, alloc.allocated, alloc.usage_percent, wall)
            for k in kinds
        ]
    glob.warned, glob.stopped, kinds = _edges(glob.used, glob.reserved, glob.total, glob.warned, glob.stopped)
    out += [BudgetSignal(agent_id, k, True, glob.used, glob.total, glob.usage_percent, wall) for k in kinds]
    return out


@dataclass(frozen=True, slots=True)
class Usage:
    """What a consumption (or settle) led to."""

    over_budget: bool
    warnings: tuple[str, ...]
    signals: tuple[BudgetSignal, ...]


def warnings_for(alloc: Allocation, glob: GlobalBudget) -> tuple[str, ...]:
    """The source's warning from 90% usage, for the agent and for the global budget."""
    out = []
    if alloc.used >= WARN_FRACTION * alloc.allocated:
        out.append(f"{alloc.agent_id} at {alloc.usage_percent:.0f}% of its {alloc.allocated}-token allocation")
    if glob.used >= WARN_FRACTION * glob.total:
        out.append(f"global budget at {glob.usage_percent:.0f}% of {glob.total} tokens")
    return tuple(out)


def consume(alloc: Allocation, glob: GlobalBudget, tokens: int, wall: datetime) -> Usage:
    """Add to both counts; never refuses (usage beyond the budget is recorded)."""
    alloc.used += tokens
    glob.used += tokens
    alloc.update_time = glob.update_time = wall
    return usage(alloc, glob, wall)


def usage(alloc: Allocation, glob: GlobalBudget, wall: datetime) -> Usage:
    signals = evaluate(alloc, glob, alloc.agent_id, wall)
    over = alloc.used > alloc.allocated or glob.used > glob.total
    return Usage(over, warnings_for(alloc, glob), tuple(signals))


def hold(alloc: Allocation, glob: GlobalBudget, tokens: int, wall: datetime) -> None:
    alloc.reserved += tokens
    glob.reserved += tokens
    alloc.update_time = glob.update_time = wall


def unhold(
    alloc: Allocation | None, glob: GlobalBudget, r: Reservation, state: ReservationState, wall: datetime
) -> None:
    """End an open reservation: its tokens return to the agent (when still its allocation) and the pool."""
    if r.state is not ReservationState.OPEN:
        return
    if alloc is not None:
        alloc.reserved = max(0, alloc.reserved - r.tokens)
        alloc.update_time = wall
    glob.reserved = max(0, glob.reserved - r.tokens)
    glob.update_time = wall
    r.state, r.end_time = state, wall
