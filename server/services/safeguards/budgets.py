"""Token budgets as a service: allocations, consumption, reservations, the global pool and signals.

Counts live in memory, changed under one lock (exact under any concurrency), and are written through to
storage before each answer (group commits: see journal.py), so they survive a restart. Signals
(SIGWARN / SIGSTOP / SIGRESUME) go to every `SignalSink` once the change that caused them is durable.
"""

from __future__ import annotations

import functools
import heapq
import logging
import secrets
import threading
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from server.domain.agents import validate_id
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards import budgets as rules
from server.domain.safeguards.budgets import (
    Allocation,
    BudgetSignal,
    Fit,
    GlobalBudget,
    Priority,
    Reservation,
    ReservationState,
    SignalType,
    Usage,
)
from server.services import observability as obs
from server.services.dispatch import Dispatcher
from server.services.pages import page_after
from server.services.ports import AuditSink, Clock, Page
from server.services.safeguards.journal import Change, Journal
from server.services.safeguards.settings import BudgetSettings

log = logging.getLogger(__name__)

_REQUEST_LIMIT = 10_000  # request ids remembered for idempotent retries
_KEEP_ENDED = 600.0  # seconds an ended reservation is kept (for idempotent Settle repeats) ...
_ENDED_LIMIT = 100_000  # ... and at most this many
_MAX_TTL = 86400.0


class SignalSink(Protocol):
    """Where budget signals go: the agent's control channel and the event stream (RecoveryService).

    `publish_budget_signal` is called once per signal, in order, after the change that caused it is
    durable, on the service's one signal thread (never the event loop, never under a lock).
    `agent_id` is the agent to tell; it is "" for a global signal no agent's request caused (a new
    global total), meaning every agent. `detail` is a sentence for people and logs.
    """

    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None: ...


class BudgetRepository(Protocol):
    def load_budgets(self) -> tuple[GlobalBudget | None, list[Allocation], list[Reservation]]: ...

    def save_budgets(self, changes: Sequence[Change]) -> None:
        """("global", "global", GlobalBudget), ("allocation", agent_id, Allocation) and
        ("reservation", id, Reservation or None to delete), in one transaction."""
        ...


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
        repo: BudgetRepository,
        clock: Clock,
        settings: BudgetSettings,
        audit: AuditSink,
        sinks: Sequence[SignalSink] = (),
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.audit = audit
        self.sinks = list(sinks)
        self._lock = threading.RLock()
        self._global = GlobalBudget(settings.global_total, clock.utcnow())
        self._allocations: dict[str, Allocation] = {}
        self._reservations: dict[str, Reservation] = {}
        self._expiry: list[tuple[float, str]] = []  # open reservations: (expires_at, id)
        self._ended: deque[tuple[float, str]] = deque()  # (monotonic end, id), for pruning
        self._requests: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
        self._settled: dict[str, Consumed] = {}
        self._journal = Journal(self._lock, self._snapshot, repo.save_budgets, "token budgets")
        self.events = Dispatcher("budget-signals")

    def add_sink(self, sink: SignalSink) -> None:
        self.sinks.append(sink)

    # ---- lifecycle -------------------------------------------------------------------------

    def load(self) -> None:
        glob, allocations, reservations = self.repo.load_budgets()
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        version = 0
        with self._lock:
            if glob is not None:
                self._global = glob
            if glob is None or (glob.source == "config" and glob.total != self.settings.global_total):
                # The file is the source of truth until SetGlobalBudget overrides it at runtime.
                self._global.total, self._global.source = self.settings.global_total, "config"
                version = self._journal.mark("global", "global")
            self._allocations = {a.agent_id: a for a in allocations}
            for r in reservations:
                self._reservations[r.reservation_id] = r
                if r.state is ReservationState.OPEN:
                    r.expires_at = now + (r.expire_time - wall).total_seconds()
                    heapq.heappush(self._expiry, (r.expires_at, r.reservation_id))
                else:
                    ended = now - ((wall - r.end_time).total_seconds() if r.end_time else 0.0)
                    self._ended.append((ended, r.reservation_id))
            self._ended = deque(sorted(self._ended))
        self._journal.commit(version)
        log.info("token budgets loaded", extra={"allocations": len(allocations), "global_total": self._global.total})

    def _snapshot(self, kind: str, key: str) -> Any:
        if kind == "global":
            return self._global.copy()
        if kind == "allocation":
            a = self._allocations.get(key)
            return a.copy() if a else None
        r = self._reservations.get(key)
        return r.copy() if r else None

    def _finish(self, version: int, signals: Sequence[BudgetSignal]) -> None:
        self._journal.commit(version)
        for signal in signals:
            obs.budget_signal(signal)  # an event on the current span (the call that caused it)
            for sink in self.sinks:
                self.events.submit(
                    functools.partial(sink.publish_budget_signal, signal.agent_id, signal, describe(signal))
                )

    def _remember(self, key: tuple[str, str, str], value: Any) -> None:
        self._requests[key] = value
        while len(self._requests) > _REQUEST_LIMIT:
            self._requests.popitem(last=False)

    def _alloc(self, agent_id: str) -> Allocation:
        a = self._allocations.get(agent_id)
        if a is None:
            raise FailedPrecondition(
                f"agent {agent_id!r} has no token allocation; Allocate first", reason="NO_ALLOCATION", field="agent_id"
            )
        return a

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
        with self._lock:
            if request_id and ("allocate", agent_id, request_id) in self._requests:
                done: Allocated = self._requests[("allocate", agent_id, request_id)]
                return done
            wall = self.clock.utcnow()
            version = 0
            for r in [r for r in self._reservations.values() if r.agent_id == agent_id]:
                if r.state is ReservationState.OPEN:
                    rules.unhold(None, self._global, r, ReservationState.CANCELLED, wall)
                    self._ended.append((self.clock.monotonic(), r.reservation_id))
                    version = self._journal.mark("reservation", r.reservation_id)
            before = self._allocations.get(agent_id)
            a = Allocation(agent_id, tokens, prio, wall, wall, priority_set=bool(priority))
            if before is not None:  # the flags carry over, so a stopped agent gets its SIGRESUME
                a.warned, a.stopped = before.warned, before.stopped
            self._allocations[agent_id] = a
            signals = rules.evaluate(a, self._global, agent_id, wall)
            self._journal.mark("allocation", agent_id)
            version = self._journal.mark("global", "global")
            result = Allocated(a.copy(), tuple(signals))
            if request_id:
                self._remember(("allocate", agent_id, request_id), result)
        self._finish(version, signals)
        self.audit.record(actor, "budget.allocate", agent_id, {"tokens": tokens, "priority": prio.name})
        return result

    def consume(self, agent_id: str, tokens: int, request_id: str = "") -> Consumed:
        """Record usage (never refused); warnings from 90%, signals on the edges."""
        validate_id(agent_id, "agent_id")
        _positive(tokens, "tokens")
        with self._lock:
            if request_id and ("consume", agent_id, request_id) in self._requests:
                done: Consumed = self._requests[("consume", agent_id, request_id)]
                return done
            a = self._alloc(agent_id)
            usage = rules.consume(a, self._global, tokens, self.clock.utcnow())
            self._journal.mark("allocation", agent_id)
            version = self._journal.mark("global", "global")
            result = Consumed(a.copy(), self._global.copy(), usage)
            if request_id:
                self._remember(("consume", agent_id, request_id), result)
        if usage.warnings:
            log.warning("token budget warning", extra={"agent_id": agent_id, "warnings": list(usage.warnings)})
        self._finish(version, usage.signals)
        return result

    def can_consume(self, agent_id: str, tokens: int) -> Fit:
        validate_id(agent_id, "agent_id")
        _positive(tokens, "tokens")
        with self._lock:
            return rules.fits(self._allocations.get(agent_id), self._global, tokens, self.settings.min_context)

    def usage_after(self, agent_id: str, tokens: int) -> float | None:
        with self._lock:
            a = self._allocations.get(agent_id)
            return (a.used + a.reserved + tokens) / a.allocated * 100 if a else None

    def remaining(self, agent_id: str) -> int:
        validate_id(agent_id, "agent_id")
        with self._lock:
            a = self._allocations.get(agent_id)
            return a.remaining if a else 0

    def global_remaining(self) -> int:
        with self._lock:
            return self._global.remaining

    def usage_percent(self, agent_id: str) -> float:
        validate_id(agent_id, "agent_id")
        with self._lock:
            a = self._allocations.get(agent_id)
            return a.usage_percent if a else 0.0

    def global_usage_percent(self) -> float:
        with self._lock:
            return self._global.usage_percent

    def get(self, agent_id: str) -> Allocation:
        validate_id(agent_id, "agent_id")
        with self._lock:
            a = self._allocations.get(agent_id)
            if a is None:
                raise NotFound(f"agent {agent_id!r} has no token allocation", field="agent_id")
            return a.copy()

    def global_budget(self) -> GlobalBudget:
        with self._lock:
            return self._global.copy()

    def list(self, page_size: int, page_token: str) -> tuple[Page[Allocation], GlobalBudget]:
        with self._lock:
            items = [a.copy() for _, a in sorted(self._allocations.items())]
            glob = self._global.copy()
        page, token = page_after(items, lambda a: a.agent_id, page_size, page_token)
        return Page(page, token), glob

    def set_global(self, tokens: int, actor: str = "system") -> tuple[GlobalBudget, tuple[BudgetSignal, ...]]:
        """A new global total (kept across restarts, over the file's); the used count stays."""
        _positive(tokens, "tokens")
        with self._lock:
            wall = self.clock.utcnow()
            self._global.total, self._global.source, self._global.update_time = tokens, "runtime", wall
            signals = tuple(rules.evaluate(None, self._global, "", wall))
            version = self._journal.mark("global", "global")
            glob = self._global.copy()
        self._finish(version, signals)
        self.audit.record(actor, "budget.set_global", "global", {"tokens": tokens})
        return glob, signals

    # ---- reservations ----------------------------------------------------------------------

    def reserve(self, agent_id: str, estimate: int, ttl: float | None = None, request_id: str = "") -> Reserved:
        """Set `estimate` tokens aside when they fit (granted=False, not an error, when not)."""
        validate_id(agent_id, "agent_id")
        _positive(estimate, "estimate")
        if ttl is not None and not 0 < ttl <= _MAX_TTL:
            raise InvalidArgument(f"ttl must be positive and at most {_MAX_TTL:g}s", field="ttl")
        seconds = ttl or self.settings.reservation_ttl
        with self._lock:
            if request_id and ("reserve", agent_id, request_id) in self._requests:
                done: Reserved = self._requests[("reserve", agent_id, request_id)]
                return done
            a = self._alloc(agent_id)
            fit = rules.fits(a, self._global, estimate, self.settings.min_context)
            if not fit.allowed:
                return Reserved(False, None, fit.reason, a.copy(), False, ())
            now, wall = self.clock.monotonic(), self.clock.utcnow()
            r = Reservation(
                "rsv_" + secrets.token_hex(10),
                agent_id,
                estimate,
                wall,
                wall + timedelta(seconds=seconds),
                now + seconds,
                request_id,
            )
            self._reservations[r.reservation_id] = r
            heapq.heappush(self._expiry, (r.expires_at, r.reservation_id))
            rules.hold(a, self._global, estimate, wall)
            signals = tuple(rules.evaluate(a, self._global, agent_id, wall))
            self._journal.mark("reservation", r.reservation_id)
            self._journal.mark("allocation", agent_id)
            version = self._journal.mark("global", "global")
            result = Reserved(True, r.copy(), "", a.copy(), fit.priority_floor_applied, signals)
            if request_id:
                self._remember(("reserve", agent_id, request_id), result)
        self._finish(version, signals)
        return result

    def settle(self, reservation_id: str, actual: int, caller: str | None = None) -> Consumed:
        """End a reservation and consume `actual` (0: nothing). Repeats with the same actual answer the same."""
        if not reservation_id:
            raise InvalidArgument("reservation_id is required", field="reservation_id")
        if actual < 0:
            raise InvalidArgument(f"actual must not be negative, got {actual}", field="actual")
        with self._lock:
            r = self._reservations.get(reservation_id)
            if r is None:
                raise NotFound(f"no reservation has id {reservation_id!r}", field="reservation_id")
            if caller is not None and r.agent_id != caller:
                raise PermissionDenied(
                    f"agent credential {caller!r} may only settle its own reservations",
                    reason="NOT_YOUR_AGENT",
                    field="reservation_id",
                )
            if r.actual is not None:
                if r.actual != actual:
                    raise FailedPrecondition(
                        f"reservation {reservation_id!r} was already settled with actual {r.actual}",
                        reason="ALREADY_SETTLED",
                    )
                return self._settled.get(reservation_id) or Consumed(
                    self._alloc(r.agent_id).copy(), self._global.copy(), Usage(False, (), ())
                )
            a = self._alloc(r.agent_id)
            now, wall = self.clock.monotonic(), self.clock.utcnow()
            if r.state is ReservationState.OPEN:
                rules.unhold(a, self._global, r, ReservationState.SETTLED, wall)
                self._ended.append((now, reservation_id))
            r.actual = actual
            usage = rules.consume(a, self._global, actual, wall) if actual else rules.usage(a, self._global, wall)
            self._journal.mark("reservation", reservation_id)
            self._journal.mark("allocation", r.agent_id)
            version = self._journal.mark("global", "global")
            result = self._settled[reservation_id] = Consumed(a.copy(), self._global.copy(), usage)
        self._finish(version, usage.signals)
        return result

    def expire_reservations(self) -> int:
        """The scheduler's job: unsettled reservations past their TTL give their tokens back; ended ones
        older than ten minutes are forgotten."""
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        signals: list[BudgetSignal] = []
        version = expired = 0
        with self._lock:
            if len(self._expiry) > 4 * len(self._reservations) + 1024:  # settled ones leave entries behind
                self._expiry = [
                    (r.expires_at, r.reservation_id)
                    for r in self._reservations.values()
                    if r.state is ReservationState.OPEN
                ]
                heapq.heapify(self._expiry)
            while self._expiry and self._expiry[0][0] <= now:
                _, rid = heapq.heappop(self._expiry)
                r = self._reservations.get(rid)
                if r is None or r.state is not ReservationState.OPEN:
                    continue
                a = self._allocations.get(r.agent_id)
                rules.unhold(a, self._global, r, ReservationState.EXPIRED, wall)
                self._ended.append((now, rid))
                signals += rules.evaluate(a, self._global, r.agent_id, wall)
                self._journal.mark("reservation", rid)
                if a is not None:
                    self._journal.mark("allocation", a.agent_id)
                version = self._journal.mark("global", "global")
                expired += 1
            while self._ended and (self._ended[0][0] <= now - _KEEP_ENDED or len(self._ended) > _ENDED_LIMIT):
                _, rid = self._ended.popleft()
                if self._reservations.pop(rid, None) is not None:
                    self._settled.pop(rid, None)
                    version = self._journal.mark("reservation", rid)
        self._finish(version, signals)
        return expired

    def reservation(self, reservation_id: str) -> Reservation:
        with self._lock:
            r = self._reservations.get(reservation_id)
            if r is None:
                raise NotFound(f"no reservation has id {reservation_id!r}", field="reservation_id")
            return r.copy()
