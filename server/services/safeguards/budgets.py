"""Token budgets as a service: allocations, consumption, reservations, the global pool and signals.

The database is the truth, for one sidecar or a fleet: every change is one transaction of deltas
(server/storage/safeguards/budgets.py), exact under any concurrency across sidecars, and a
reservation cannot overspend. This process keeps a cache of allocations and the global budget for
reads (the budget guardrail in CheckAction, Remaining, CanConsume): refreshed from what each change
returns, and from the database when another sidecar's change is announced (within ~100 ms with
notifications, within fleet.resync_interval plus a reload without). Signals (SIGWARN / SIGSTOP /
SIGRESUME) are decided in the transaction that crosses the threshold, so each fires once fleet-wide, and
go to every `SignalSink` once that transaction committed.
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from server.domain.agents import validate_id
from server.domain.errors import InvalidArgument, NotFound
from server.domain.safeguards import budgets as rules
from server.domain.safeguards.budgets import (
    Allocation,
    BudgetSignal,
    Fit,
    GlobalBudget,
    Priority,
    Reservation,
    SignalType,
    Usage,
)
from server.services import observability as obs
from server.services.dispatch import Dispatcher
from server.services.fleet.ports import ChangeFeed
from server.services.pages import page_after
from server.services.ports import AuditSink, Clock, Page
from server.services.safeguards.settings import BudgetSettings

log = logging.getLogger(__name__)

_REQUEST_LIMIT = 10_000  # request ids remembered for idempotent retries
_KEEP_ENDED = timedelta(seconds=600)  # how long an ended reservation is kept (for idempotent Settle repeats)
_MAX_TTL = 86400.0
TOPIC = "budgets"  # the change-feed topic; keys are agent ids, or "global"
GLOBAL_KEY = "global"


class SignalSink(Protocol):
    """Where budget signals go: the agent's control channel and the event stream (RecoveryService).

    `publish_budget_signal` is called once per signal, in order, after the change that caused it is
    durable, on the service's one signal thread (never the event loop, never under a lock).
    `agent_id` is the agent to tell; it is "" for a global signal no agent's request caused (a new
    global total), meaning every agent. `detail` is a sentence for people and logs.
    """

    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None: ...


# Decides the warned/stopped flags after a change (mutating them) and returns the signals it crossed.
Evaluate = Callable[[Allocation | None, GlobalBudget], list[BudgetSignal]]


@dataclass(frozen=True, slots=True)
class Change:
    """The rows as one change left them (the ledger's RETURNING), and the signals it crossed."""

    allocation: Allocation | None
    global_budget: GlobalBudget
    signals: tuple[BudgetSignal, ...]


@dataclass(frozen=True, slots=True)
class ReserveOutcome:
    change: Change | None  # None when refused
    reservation: Reservation | None
    refused: str  # "agent" or "global" when refused
    floor_applied: bool
    allocation: Allocation | None  # fresh, for a refusal's answer
    global_budget: GlobalBudget | None


class BudgetLedger(Protocol):
    """The budgets in storage; each method is one transaction (see server/storage/safeguards/budgets.py).
    Missing allocations raise FailedPrecondition NO_ALLOCATION; storage failures raise Unavailable."""

    def load(self) -> tuple[GlobalBudget | None, list[Allocation]]: ...

    def read(self, agent_id: str) -> tuple[Allocation | None, GlobalBudget | None]: ...

    def reservation(self, reservation_id: str) -> Reservation | None: ...

    def init_global(self, total: int, now: datetime) -> GlobalBudget: ...

    def set_global(self, total: int, now: datetime, evaluate: Evaluate) -> Change: ...

    def allocate(
        self,
        agent_id: str,
        tokens: int,
        priority: Priority,
        now: datetime,
        evaluate: Evaluate,
        priority_set: bool = False,
    ) -> Change:
        """`priority_set`: the priority was given explicitly (only then do its floors apply)."""
        ...

    def consume(self, agent_id: str, tokens: int, now: datetime, evaluate: Evaluate) -> Change: ...

    def reserve(
        self, reservation: Reservation, min_context: Mapping[Priority, int], now: datetime, evaluate: Evaluate
    ) -> ReserveOutcome: ...

    def settle(
        self, reservation_id: str, actual: int, caller: str | None, now: datetime, evaluate: Evaluate
    ) -> tuple[Change, bool]: ...

    def expire(self, now: datetime, keep_ended: timedelta, evaluate: Evaluate) -> tuple[int, list[BudgetSignal]]: ...


class LoggingSignalSink:
    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None:
        log.info(
            "budget signal",
            extra={"agent_id": agent_id, "signal": signal.type.name, "global": signal.is_global, "detail": detail},
        )


def describe(s: BudgetSignal) -> str:
    """`SIGWARN: agent-7's allocation reached 90% (27000 of 30000 tokens used)`."""
    whose = "the global budget" if s.is_global else f"{s.agent_id}'s allocation"
    what = {
        SignalType.SIGWARN: "reached 90%",
        SignalType.SIGSTOP: "is exhausted",
        SignalType.SIGRESUME: "has room again",
    }
    return f"{s.type.name}: {whose} {what[s.type]} ({s.used} of {s.allocated} tokens used)"


@dataclass(frozen=True, slots=True)
class Consumed:
    allocation: Allocation
    global_budget: GlobalBudget
    usage: Usage


@dataclass(frozen=True, slots=True)
class Allocated:
    allocation: Allocation
    signals: tuple[BudgetSignal, ...]


@dataclass(frozen=True, slots=True)
class Reserved:
    granted: bool
    reservation: Reservation | None
    reason: str
    allocation: Allocation
    priority_floor_applied: bool
    signals: tuple[BudgetSignal, ...]


def _positive(value: int, field_name: str) -> int:
    if value <= 0:
        raise InvalidArgument(f"{field_name} must be a positive number of tokens, got {value}", field=field_name)
    return value


class BudgetService:
    def __init__(
        self,
        ledger: BudgetLedger,
        clock: Clock,
        settings: BudgetSettings,
        audit: AuditSink,
        sinks: Sequence[SignalSink] = (),
        changes: ChangeFeed | None = None,
    ) -> None:
        self.ledger = ledger
        self.clock = clock
        self.settings = settings
        self.audit = audit
        self.sinks = list(sinks)
        self._lock = threading.Lock()  # guards the cache and the request memory, never held over I/O
        self._global = GlobalBudget(settings.global_total, clock.utcnow())
        self._allocations: dict[str, Allocation] = {}
        self._requests: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
        self.events = Dispatcher("budget-signals")
        if changes is not None:
            changes.subscribe(TOPIC, self._changed_elsewhere, self.resync)

    def add_sink(self, sink: SignalSink) -> None:
        self.sinks.append(sink)

    # ---- lifecycle and the cache ---------------------------------------------------------------

    def load(self) -> None:
        glob = self.ledger.init_global(self.settings.global_total, self.clock.utcnow())
        self._cache(None, glob)
        self.resync()
        log.info("token budgets loaded", extra={"allocations": len(self._allocations), "global_total": glob.total})

    def resync(self) -> None:
        """Reload everything cached (after a reconnect or a missed change notification)."""
        glob, allocations = self.ledger.load()
        for a in allocations:
            self._cache(a, None)
        if glob is not None:
            self._cache(None, glob)

    def _changed_elsewhere(self, key: str) -> None:
        a, g = self.ledger.read(key) if key != GLOBAL_KEY else (None, self.ledger.read("")[1])
        self._cache(a, g)

    def _cache(self, a: Allocation | None, g: GlobalBudget | None) -> None:
        """Keep the newest of each row: concurrent answers and reloads may arrive out of order."""
        with self._lock:
            if a is not None:
                mine = self._allocations.get(a.agent_id)
                if mine is None or a.version > mine.version:
                    self._allocations[a.agent_id] = a.copy()
            if g is not None and g.version > self._global.version:
                self._global = g.copy()

    def _evaluate(self, agent_id: str) -> Evaluate:
        wall = self.clock.utcnow()
        return lambda a, g: rules.evaluate(a, g, agent_id, wall)

    def _finish(self, change: Change) -> None:
        self._cache(change.allocation, change.global_budget)
        self._publish(change.signals)

    def _publish(self, signals: Sequence[BudgetSignal]) -> None:
        for signal in signals:
            obs.budget_signal(signal)  # an event on the current span (the call that caused it)
            for sink in self.sinks:
                self.events.submit(
                    functools.partial(sink.publish_budget_signal, signal.agent_id, signal, describe(signal))
                )

    def _done(self, key: tuple[str, str, str]) -> Any:
        with self._lock:
            return self._requests.get(key) if key[2] else None

    def _remember(self, key: tuple[str, str, str], value: Any) -> None:
        if not key[2]:
            return
        with self._lock:
            self._requests[key] = value
            while len(self._requests) > _REQUEST_LIMIT:
                self._requests.popitem(last=False)

    # ---- the source's TokenBudget --------------------------------------------------------------

    def allocate(
        self, agent_id: str, tokens: int, priority: int = 0, actor: str = "system", request_id: str = ""
    ) -> Allocated:
        """Set (or replace) the allocation; the count restarts from zero and open reservations end."""
        validate_id(agent_id, "agent_id")
        _positive(tokens, "tokens")
        if priority and priority not in Priority._value2member_map_:
            raise InvalidArgument("priority must be LOW, NORMAL, HIGH or CRITICAL", field="priority")
        prio = Priority(priority) if priority else Priority.NORMAL
        key = ("allocate", agent_id, request_id)
        if (done := self._done(key)) is not None:
            return done  # type: ignore[no-any-return]
        change = self.ledger.allocate(
            agent_id, tokens, prio, self.clock.utcnow(), self._evaluate(agent_id), priority_set=bool(priority)
        )
        result = self.allocated_from(change)
        self._remember(key, result)
        self._finish(change)
        self.audit.record(actor, "budget.allocate", agent_id, {"tokens": tokens, "priority": prio.name})
        return result

    @staticmethod
    def allocated_from(change: Change) -> Allocated:
        """What Allocate answers for a ledger change (also rendered inside its transaction, for idempotency)."""
        assert change.allocation is not None
        return Allocated(change.allocation.copy(), change.signals)

    def consume(self, agent_id: str, tokens: int, request_id: str = "") -> Consumed:
        """Record usage (never refused); warnings from 90%, signals on the edges."""
        validate_id(agent_id, "agent_id")
        _positive(tokens, "tokens")
        key = ("consume", agent_id, request_id)
        if (done := self._done(key)) is not None:
            return done  # type: ignore[no-any-return]
        change = self.ledger.consume(agent_id, tokens, self.clock.utcnow(), self._evaluate(agent_id))
        result = self.consumed_from(change)
        self._remember(key, result)
        if result.usage.warnings:
            log.warning("token budget warning", extra={"agent_id": agent_id, "warnings": list(result.usage.warnings)})
        self._finish(change)
        return result

    @staticmethod
    def consumed_from(change: Change) -> Consumed:
        """What Consume answers for a ledger change (also rendered inside its transaction, for idempotency)."""
        a, g = change.allocation, change.global_budget
        assert a is not None
        over = a.used > a.allocated or g.used > g.total
        return Consumed(a.copy(), g.copy(), Usage(over, rules.warnings_for(a, g), change.signals))

    # Reads. CheckAction's budget guardrail reads the cache (`can_consume`, `usage_after`: no database
    # round trip on the hot path, stale by at most the notification bound); the RPCs read the database.

    def _fresh(self, agent_id: str) -> tuple[Allocation | None, GlobalBudget]:
        a, g = self.ledger.read(agent_id)
        self._cache(a, g)
        return a, (g or self.global_budget())

    def can_consume(self, agent_id: str, tokens: int, fresh: bool = False) -> Fit:
        validate_id(agent_id, "agent_id")
        _positive(tokens, "tokens")
        if fresh:
            a, g = self._fresh(agent_id)
            return rules.fits(a, g, tokens, self.settings.min_context)
        with self._lock:
            return rules.fits(self._allocations.get(agent_id), self._global, tokens, self.settings.min_context)

    def usage_after(self, agent_id: str, tokens: int) -> float | None:
        with self._lock:
            a = self._allocations.get(agent_id)
            return (a.used + a.reserved + tokens) / a.allocated * 100 if a else None

    def remaining(self, agent_id: str) -> int:
        validate_id(agent_id, "agent_id")
        a, _ = self._fresh(agent_id)
        return a.remaining if a else 0

    def global_remaining(self) -> int:
        return self._fresh("")[1].remaining

    def usage_percent(self, agent_id: str) -> float:
        validate_id(agent_id, "agent_id")
        a, _ = self._fresh(agent_id)
        return a.usage_percent if a else 0.0

    def global_usage_percent(self) -> float:
        return self._fresh("")[1].usage_percent

    def get(self, agent_id: str) -> Allocation:
        validate_id(agent_id, "agent_id")
        a, _ = self._fresh(agent_id)
        if a is None:
            raise NotFound(f"agent {agent_id!r} has no token allocation", field="agent_id")
        return a.copy()

    def global_budget(self) -> GlobalBudget:
        """As cached (the hot path's view)."""
        with self._lock:
            return self._global.copy()

    def list(self, page_size: int, page_token: str) -> tuple[Page[Allocation], GlobalBudget]:
        glob, allocations = self.ledger.load()
        for a in allocations:
            self._cache(a, None)
        if glob is not None:
            self._cache(None, glob)
        page, token = page_after(allocations, lambda a: a.agent_id, page_size, page_token)
        return Page(page, token), glob or self.global_budget()

    def set_global(self, tokens: int, actor: str = "system") -> tuple[GlobalBudget, tuple[BudgetSignal, ...]]:
        """A new global total (kept across restarts, over the file's); the used count stays."""
        _positive(tokens, "tokens")
        change = self.ledger.set_global(tokens, self.clock.utcnow(), self._evaluate(""))
        self._finish(change)
        self.audit.record(actor, "budget.set_global", "global", {"tokens": tokens})
        return change.global_budget.copy(), change.signals

    # ---- reservations ----------------------------------------------------------------------

    def reserve(self, agent_id: str, estimate: int, ttl: float | None = None, request_id: str = "") -> Reserved:
        """Set `estimate` tokens aside when they fit (granted=False, not an error, when not)."""
        validate_id(agent_id, "agent_id")
        _positive(estimate, "estimate")
        if ttl is not None and not 0 < ttl <= _MAX_TTL:
            raise InvalidArgument(f"ttl must be positive and at most {_MAX_TTL:g}s", field="ttl")
        seconds = ttl or self.settings.reservation_ttl
        key = ("reserve", agent_id, request_id)
        if (done := self._done(key)) is not None:
            return done  # type: ignore[no-any-return]
        wall = self.clock.utcnow()
        wanted = Reservation(
            "rsv_" + secrets.token_hex(10),
            agent_id,
            estimate,
            wall,
            wall + timedelta(seconds=seconds),
            self.clock.monotonic() + seconds,
            request_id,
        )
        out = self.ledger.reserve(wanted, self.settings.min_context, wall, self._evaluate(agent_id))
        if out.change is None:
            assert out.allocation is not None
            self._cache(out.allocation, out.global_budget)
            glob = out.global_budget or self.global_budget()
            fit = rules.fits(out.allocation, glob, estimate, self.settings.min_context)
            reason = fit.reason or (
                f"agent budget: {out.allocation.remaining} of {out.allocation.allocated} left"
                if out.refused == "agent"
                else f"global budget: {glob.remaining} left"
            )
            return Reserved(False, None, reason, out.allocation.copy(), False, ())
        result = self.reserved_from(out)
        self._remember(key, result)
        self._finish(out.change)
        return result

    @staticmethod
    def reserved_from(out: ReserveOutcome) -> Reserved:
        """What Reserve answers for a granted reservation (also rendered inside its transaction)."""
        assert out.change is not None and out.allocation is not None and out.reservation is not None
        return Reserved(True, out.reservation.copy(), "", out.allocation.copy(), out.floor_applied, out.change.signals)

    def settle(self, reservation_id: str, actual: int, caller: str | None = None) -> Consumed:
        """End a reservation and consume `actual` (0: nothing). Repeats with the same actual answer the same."""
        if not reservation_id:
            raise InvalidArgument("reservation_id is required", field="reservation_id")
        if actual < 0:
            raise InvalidArgument(f"actual must not be negative, got {actual}", field="actual")
        change, repeated = self.ledger.settle(
            reservation_id, actual, caller, self.clock.utcnow(), self._evaluate_settle()
        )
        if repeated:
            assert change.allocation is not None
            return Consumed(change.allocation.copy(), change.global_budget.copy(), Usage(False, (), ()))
        self._finish(change)
        return self.consumed_from(change)

    def _evaluate_settle(self) -> Evaluate:
        wall = self.clock.utcnow()
        return lambda a, g: rules.evaluate(a, g, a.agent_id if a else "", wall)

    def expire_reservations(self) -> int:
        """The scheduler's job: unsettled reservations past their TTL give their tokens back; ended ones
        older than ten minutes are forgotten. Each sidecar runs it; each reservation expires once."""
        expired, signals = self.ledger.expire(self.clock.utcnow(), _KEEP_ENDED, self._evaluate_settle())
        if expired:
            self.resync()  # several agents changed: reload rather than track each row
        self._publish(signals)
        return expired

    def reservation(self, reservation_id: str) -> Reservation:
        r = self.ledger.reservation(reservation_id)
        if r is None:
            raise NotFound(f"no reservation has id {reservation_id!r}", field="reservation_id")
        return r
