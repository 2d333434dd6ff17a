"""`Budget`: one agent's token budget (the SupervisorAgent library's TokenBudget), plus reservations that settle
themselves.

    b = Budget(client, "worker-1")
    if b.can_consume(2_000):
        with b.reserve(2_000) as r:      # set aside, so concurrent calls cannot overspend together
            r.actual = run_call()        # settled with what the call used (the estimate if unset)

The SupervisorAgent library's rules, served by the sidecar: `consume` never refuses (usage beyond the budget
is recorded, with warnings from 90%); `can_consume` is true when the agent's and the global budget both have room.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._common import duration
from .aio import AsyncClient
from .client import Client
from .enums import Priority, SignalType, from_proto
from .errors import BudgetExhaustedError
from .v1 import safeguard_pb2 as spb
from .v1 import safeguard_service_pb2 as pb

PRIORITIES = {
    "low": spb.CONTEXT_PRIORITY_LOW,
    "normal": spb.CONTEXT_PRIORITY_NORMAL,
    "high": spb.CONTEXT_PRIORITY_HIGH,
    "critical": spb.CONTEXT_PRIORITY_CRITICAL,
}


@dataclass(frozen=True)
class Signal:
    """SIGWARN (90% crossed), SIGSTOP (exhausted) or SIGRESUME (room again), the agent's or the global."""

    agent_id: str
    type: SignalType  # SIGWARN, SIGSTOP or SIGRESUME
    is_global: bool
    used: int
    allocated: int
    usage_percent: float


def signal_from(s: spb.BudgetSignal) -> Signal:
    return Signal(
        agent_id=s.agent_id,
        type=from_proto(SignalType, spb.BudgetSignalType, s.type),
        is_global=getattr(s, "global"),
        used=s.used,
        allocated=s.allocated,
        usage_percent=s.usage_percent,
    )


@dataclass(frozen=True)
class Allocation:
    agent_id: str
    allocated: int
    used: int  # may exceed `allocated`: usage beyond the budget is recorded
    reserved: int
    remaining: int  # max(0, allocated - used - reserved)
    usage_percent: float
    priority: Priority


def allocation_from(a: spb.Allocation) -> Allocation:
    return Allocation(
        agent_id=a.agent_id,
        allocated=a.allocated,
        used=a.used,
        reserved=a.reserved,
        remaining=a.remaining,
        usage_percent=a.usage_percent,
        priority=from_proto(Priority, spb.ContextPriority, a.priority),
    )


@dataclass(frozen=True)
class Usage:
    """What a consumption (or a settle) led to."""

    allocation: Allocation
    global_remaining: int
    over_budget: bool
    warnings: tuple[str, ...]  # from 90%, e.g. "worker-1 at 93% of its 30000-token allocation"
    signals: tuple[Signal, ...]


def _usage(r: pb.ConsumeResponse | pb.SettleResponse) -> Usage:
    return Usage(
        allocation_from(r.allocation),
        r.global_budget.remaining,
        r.over_budget,
        tuple(r.warnings),
        tuple(signal_from(s) for s in r.signals),
    )


@dataclass
class Reservation:
    reservation_id: str
    estimate: int
    actual: int | None = None  # set it to what the call used; the estimate is settled otherwise
    signals: tuple[Signal, ...] = ()  # what setting the tokens aside caused
    usage: Usage | None = field(default=None)  # the settle's answer, after the block


def _priority(name: Priority | str) -> Any:
    try:
        return PRIORITIES[name.lower()]
    except KeyError:
        raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, got {name!r}") from None


def _reserve_request(agent_id: str, estimate: int, ttl: float | None) -> pb.ReserveRequest:
    return pb.ReserveRequest(
        agent_id=agent_id,
        estimate=estimate,
        ttl=duration(ttl) if ttl is not None else None,
        request_id=uuid.uuid4().hex,
    )


def _reservation(agent_id: str, estimate: int, r: pb.ReserveResponse) -> Reservation:
    if not r.granted:
        raise BudgetExhaustedError(agent_id, estimate, r.reason)
    return Reservation(r.reservation.reservation_id, estimate, signals=tuple(signal_from(s) for s in r.signals))


def _settle_request(held: Reservation) -> pb.SettleRequest:
    actual = held.actual if held.actual is not None else held.estimate
    return pb.SettleRequest(reservation_id=held.reservation_id, actual=actual, request_id=uuid.uuid4().hex)


class Budget:
    """Token budget helpers for one agent over a sync `Client`."""

    def __init__(self, client: Client, agent_id: str) -> None:
        self.client, self.agent_id = client, agent_id

    def allocate(self, tokens: int, priority: Priority | str = Priority.NORMAL) -> Allocation:
        """Set (or replace: the count restarts) the allocation. Operator credential."""
        request = pb.AllocateRequest(
            agent_id=self.agent_id, tokens=tokens, priority=_priority(priority), request_id=uuid.uuid4().hex
        )
        return allocation_from(self.client.call(self.client.safeguard.Allocate, request).allocation)

    def can_consume(self, tokens: int) -> bool:
        request = pb.CanConsumeRequest(agent_id=self.agent_id, tokens=tokens)
        return bool(self.client.call(self.client.safeguard.CanConsume, request).allowed)

    def consume(self, tokens: int) -> Usage:
        """Record usage (never refused; FailedPreconditionError without an allocation)."""
        request = pb.ConsumeRequest(agent_id=self.agent_id, tokens=tokens, request_id=uuid.uuid4().hex)
        return _usage(self.client.call(self.client.safeguard.Consume, request))

    def remaining(self) -> int:
        """Tokens left (0 without an allocation)."""
        request = pb.RemainingRequest(agent_id=self.agent_id)
        return int(self.client.call(self.client.safeguard.Remaining, request).remaining)

    def usage_percent(self) -> float:
        request = pb.UsagePercentRequest(agent_id=self.agent_id)
        return float(self.client.call(self.client.safeguard.UsagePercent, request).usage_percent)

    def global_remaining(self) -> int:
        return int(self.client.call(self.client.safeguard.GlobalRemaining, pb.GlobalRemainingRequest()).remaining)

    def allocation(self) -> Allocation:
        """The allocation with its counts; NotFoundError without one."""
        request = pb.GetAllocationRequest(agent_id=self.agent_id)
        return allocation_from(self.client.call(self.client.safeguard.GetAllocation, request).allocation)

    @contextlib.contextmanager
    def reserve(self, estimate: int, ttl: float | None = None) -> Iterator[Reservation]:
        """Set `estimate` tokens aside for the block, then settle with ``r.actual`` (the estimate when
        unset, also when the block raises). BudgetExhaustedError when they do not fit. Unsettled after
        `ttl` seconds (default: the sidecar's, 60 s unless configured), the tokens go back to the pool."""
        request = _reserve_request(self.agent_id, estimate, ttl)
        held = _reservation(self.agent_id, estimate, self.client.call(self.client.safeguard.Reserve, request))
        try:
            yield held
        finally:
            held.usage = _usage(self.client.call(self.client.safeguard.Settle, _settle_request(held)))


class AsyncBudget:
    """`Budget` over an `AsyncClient`."""

    def __init__(self, client: AsyncClient, agent_id: str) -> None:
        self.client, self.agent_id = client, agent_id

    async def allocate(self, tokens: int, priority: Priority | str = Priority.NORMAL) -> Allocation:
        request = pb.AllocateRequest(
            agent_id=self.agent_id, tokens=tokens, priority=_priority(priority), request_id=uuid.uuid4().hex
        )
        return allocation_from((await self.client.call(self.client.safeguard.Allocate, request)).allocation)

    async def can_consume(self, tokens: int) -> bool:
        request = pb.CanConsumeRequest(agent_id=self.agent_id, tokens=tokens)
        return bool((await self.client.call(self.client.safeguard.CanConsume, request)).allowed)

    async def consume(self, tokens: int) -> Usage:
        request = pb.ConsumeRequest(agent_id=self.agent_id, tokens=tokens, request_id=uuid.uuid4().hex)
        return _usage(await self.client.call(self.client.safeguard.Consume, request))

    async def remaining(self) -> int:
        request = pb.RemainingRequest(agent_id=self.agent_id)
        return int((await self.client.call(self.client.safeguard.Remaining, request)).remaining)

    async def usage_percent(self) -> float:
        request = pb.UsagePercentRequest(agent_id=self.agent_id)
        return float((await self.client.call(self.client.safeguard.UsagePercent, request)).usage_percent)

    async def global_remaining(self) -> int:
        answer = await self.client.call(self.client.safeguard.GlobalRemaining, pb.GlobalRemainingRequest())
        return int(answer.remaining)

    async def allocation(self) -> Allocation:
        request = pb.GetAllocationRequest(agent_id=self.agent_id)
        return allocation_from((await self.client.call(self.client.safeguard.GetAllocation, request)).allocation)

    @contextlib.asynccontextmanager
    async def reserve(self, estimate: int, ttl: float | None = None) -> AsyncIterator[Reservation]:
        request = _reserve_request(self.agent_id, estimate, ttl)
        held = _reservation(self.agent_id, estimate, await self.client.call(self.client.safeguard.Reserve, request))
        try:
            yield held
        finally:
            held.usage = _usage(await self.client.call(self.client.safeguard.Settle, _settle_request(held)))


def budget(client: Client, agent_id: str) -> Budget:
    return Budget(client, agent_id)
