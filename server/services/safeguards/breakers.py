"""Circuit breakers as a service: one breaker per key, permits, outcomes, timers, operator controls.

State lives in memory and is written through to storage (server/services/safeguards/journal.py) before an answer
that changed it: a breaker's state, failure count, generation, settings and cached result survive a
restart. Permits are in memory only: they are short-lived (permit_ttl), and after a restart an unknown
permit id answers NOT_FOUND while the breaker itself carries on (a HALF_OPEN breaker has its probe
slots free again). The hot path — a permit in CLOSED, a success that changes nothing — touches no
storage.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.domain.agents import is_agent_id
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards import breakers as rules
from server.domain.safeguards.breakers import (
    Admission,
    Breaker,
    BreakerChange,
    BreakerState,
    Outcome,
    Permit,
    PermitState,
    Settlement,
    config_for,
    validate_key,
)
from server.services import observability as obs
from server.services.dispatch import Dispatcher
from server.services.pages import page_after
from server.services.ports import AuditSink, Clock, Page
from server.services.safeguards.journal import Change, Journal
from server.services.safeguards.settings import BreakerSettings

log = logging.getLogger(__name__)

_DONE_LIMIT = 50_000  # settled permits remembered for idempotent repeats
_REQUEST_LIMIT = 10_000  # AcquirePermit request ids remembered


class BreakerListener(Protocol):
    """Receives every state change, in order, after it is durable (the event stream, the cascade detector).

    Called on the service's one event thread (never the event loop, never under a lock), so it may
    block briefly. A change with to_state OPEN is an opening to report to the cascade detector —
    except reason "cascade", which the detector caused itself (BreakerService.trip).
    """

    def on_breaker_change(self, change: BreakerChange) -> None: ...


class BreakerRepository(Protocol):
    def load_breakers(self) -> list[Breaker]: ...

    def save_breakers(self, changes: Sequence[Change]) -> None:
        """Upsert each ("breaker", key, Breaker snapshot) in one transaction."""
        ...


class CascadeReporter:
    """Reports each opening to the cascade detector as a failure of the dependency (or of the agent, for a
    key without one) suffered by the key's agent: `report(from_agent, to_agent, detail)`."""

    def __init__(self, report: Any) -> None:
        self.report = report

    def on_breaker_change(self, change: BreakerChange) -> None:
        if change.to_state is not BreakerState.OPEN or change.reason == "cascade":
            return
        agent, _, dependency = change.key.partition(":")
        if not (is_agent_id(agent) and is_agent_id(dependency or agent)):
            # Breaker keys are free text; only keys naming agents describe a failure between agents.
            log.debug("breaker key names no agents; not reported as a cascade failure", extra={"key": change.key})
            return
        self.report(dependency or agent, agent, f"circuit {change.key!r} opened: {change.reason}")


class LoggingBreakerListener:
    def on_breaker_change(self, change: BreakerChange) -> None:
        log.info(
            "breaker state change",
            extra={
                "key": change.key,
                "from": change.from_state.name,
                "to": change.to_state.name,
                "generation": change.generation,
                "failure_count": change.failure_count,
                "reason": change.reason,
            },
        )


@dataclass
class _Pending:
    """What a call changed: committed (and its events sent) before the call answers."""

    version: int = 0
    changes: list[BreakerChange] = field(default_factory=list)


class BreakerService:
    def __init__(
        self,
        repo: BreakerRepository,
        clock: Clock,
        settings: BreakerSettings,
        audit: AuditSink,
        listeners: Sequence[BreakerListener] = (),
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.audit = audit
        self.listeners = list(listeners)
        self._lock = threading.RLock()
        self._breakers: dict[str, Breaker] = {}
        self._permits: dict[str, Permit] = {}  # active
        self._done: OrderedDict[str, Permit] = OrderedDict()  # reported, released or expired
        self._expiry: list[tuple[float, str]] = []  # (expires_at, permit_id)
        self._due: list[tuple[float, str, int]] = []  # (half-open time, key, generation)
        self._requests: OrderedDict[tuple[str, str], Admission] = OrderedDict()
        self._journal = Journal(self._lock, self._snapshot, repo.save_breakers, "circuit breakers")
        self.events = Dispatcher("breaker-events")

    def add_listener(self, listener: BreakerListener) -> None:
        self.listeners.append(listener)

    # ---- lifecycle -------------------------------------------------------------------------

    def load(self) -> None:
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        with self._lock:
            for b in self.repo.load_breakers():
                b.reconfigure(self._config(b.key, b.runtime_config))
                if b.state is BreakerState.OPEN and b.open_time is not None:
                    b.opened_at = now - max(0.0, (wall - b.open_time).total_seconds())
                    self._schedule(b)
                self._breakers[b.key] = b
        log.info("circuit breakers loaded", extra={"breakers": len(self._breakers)})

    def _config(self, key: str, runtime: Mapping[str, Any]) -> rules.BreakerConfig:
        return config_for(key, self.settings.defaults, self.settings.keys, runtime)

    def _snapshot(self, kind: str, key: str) -> Breaker | None:
        b = self._breakers.get(key)
        return b.copy() if b is not None else None

    # ---- internals (caller holds the lock) --------------------------------------------------

    def _breaker(self, key: str, pending: _Pending, create: bool = True) -> Breaker:
        b = self._breakers.get(key)
        if b is None:
            if not create:
                raise NotFound(f"no circuit breaker has key {key!r}", field="key")
            wall = self.clock.utcnow()
            b = self._breakers[key] = Breaker(key, self._config(key, {}), wall, wall)
            pending.version = self._journal.mark("breaker", key)
        return b

    def _schedule(self, b: Breaker) -> None:
        if b.state is BreakerState.OPEN and not b.forced and b.opened_at is not None:
            heapq.heappush(self._due, (b.opened_at + b.config.recovery_timeout, b.key, b.generation))

    def _changed(self, b: Breaker, changes: Sequence[BreakerChange], pending: _Pending) -> None:
        pending.version = self._journal.mark("breaker", b.key)
        pending.changes.extend(changes)
        if any(c.to_state is BreakerState.OPEN for c in changes):
            self._schedule(b)

    def _retire(self, p: Permit) -> None:
        self._permits.pop(p.permit_id, None)
        self._done[p.permit_id] = p
        while len(self._done) > _DONE_LIMIT:
            self._done.popitem(last=False)

    def _housekeep(self, pending: _Pending) -> None:
        """Expire permits past their TTL and move OPEN breakers whose timeout passed to HALF_OPEN."""
        now = self.clock.monotonic()
        wall = None
        if len(self._expiry) > 4 * len(self._permits) + 1024:
            # Settled permits leave their heap entry behind; drop them now and then (amortised O(1)).
            self._expiry = [(p.expires_at, p.permit_id) for p in self._permits.values()]
            heapq.heapify(self._expiry)
        while self._expiry and self._expiry[0][0] <= now:
            _, permit_id = heapq.heappop(self._expiry)
            p = self._permits.get(permit_id)
            if p is None or p.state is not PermitState.ACTIVE:
                continue
            b = self._breakers[p.key]
            wall = wall or self.clock.utcnow()
            before = (b.state, b.failure_count)
            change = rules.expire(b, p, now, wall)
            self._retire(p)
            if change is not None or before != (b.state, b.failure_count):
                self._changed(b, [change] if change else [], pending)
        while self._due and self._due[0][0] <= now:
            _, key, generation = heapq.heappop(self._due)
            due = self._breakers.get(key)
            if due is None or due.generation != generation:
                continue
            wall = wall or self.clock.utcnow()
            opened = rules.advance(due, now, wall)
            if opened is not None:
                self._changed(due, [opened], pending)
            else:
                self._schedule(due)  # the timeout was lengthened meanwhile

    def _finish(self, pending: _Pending) -> None:
        self._journal.commit(pending.version)
        for change in pending.changes:
            obs.breaker_change(change)  # an event on the current span (the call that caused it)
            for listener in self.listeners:
                self.events.submit(functools.partial(listener.on_breaker_change, change))

    async def _finish_async(self, pending: _Pending) -> None:
        if not self._journal.is_durable(pending.version):
            await asyncio.to_thread(self._journal.commit, pending.version)
        self._finish(pending)  # durable now: only hands the events over

    # ---- permits ---------------------------------------------------------------------------

    def _acquire(self, key: str, request_id: str) -> tuple[Admission, _Pending]:
        validate_key(key)
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
            if request_id and (key, request_id) in self._requests:
                return self._requests[(key, request_id)], pending
            b = self._breaker(key, pending)
            now, wall = self.clock.monotonic(), self.clock.utcnow()
            admission, changes = rules.admit(b, "pmt_" + secrets.token_hex(10), now, wall, request_id)
            if changes:
                self._changed(b, changes, pending)
            if admission.permit is not None:
                p = admission.permit
                self._permits[p.permit_id] = p
                heapq.heappush(self._expiry, (p.expires_at, p.permit_id))
            if request_id:
                self._requests[(key, request_id)] = admission
                while len(self._requests) > _REQUEST_LIMIT:
                    self._requests.popitem(last=False)
        return admission, pending

    def acquire(self, key: str, request_id: str = "") -> Admission:
        """A permit to run one guarded call, or the refusal with what to do instead."""
        admission, pending = self._acquire(key, request_id)
        self._finish(pending)
        return admission

    async def acquire_async(self, key: str, request_id: str = "") -> Admission:
        """As `acquire`, for the event loop: storage (rarely needed here) is written off the loop."""
        admission, pending = self._acquire(key, request_id)
        await self._finish_async(pending)
        return admission

    def guardrail_permit(self, key: str) -> Admission:
        """For the `breaker` guardrail inside CheckAction (PermitSource)."""
        return self.acquire(key)

    def preview_permit(self, key: str) -> Admission:
        """What `guardrail_permit` would answer now, on a copy: no permit, no new breaker, no change stored."""
        validate_key(key)
        with self._lock:
            wall = self.clock.utcnow()
            found = self._breakers.get(key)
            b = found.copy() if found is not None else Breaker(key, self._config(key, {}), wall, wall)
            admission, _ = rules.admit(b, "pmt_preview", self.clock.monotonic(), wall)
        return admission

    def _permit(self, permit_id: str, caller: str | None) -> Permit:
        if not permit_id:
            raise InvalidArgument("permit_id is required", field="permit_id")
        p = self._permits.get(permit_id) or self._done.get(permit_id)
        if p is None:
            raise NotFound(f"no permit has id {permit_id!r} (permits do not survive a restart)", field="permit_id")
        if caller is not None and p.owner != caller:
            raise PermissionDenied(
                f"agent credential {caller!r} may only report its own permits",
                reason="NOT_YOUR_AGENT",
                field="permit_id",
            )
        return p

    def _report(
        self, permit_id: str, outcome: int, result: Any, has_result: bool, caller: str | None
    ) -> tuple[Settlement, _Pending, bool]:
        if outcome not in (Outcome.SUCCESS, Outcome.FAILURE):
            raise InvalidArgument("outcome must be SUCCESS or FAILURE", field="outcome")
        out = Outcome(outcome)
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
            p = self._permit(permit_id, caller)
            b = self._breakers[p.key]
            if p.answer is not None:
                if p.answer.outcome is not out:
                    raise FailedPrecondition(
                        f"permit {permit_id!r} was already reported as {p.answer.outcome.name}",
                        reason="ALREADY_REPORTED",
                    )
                return p.answer, pending, True
            if p.state is PermitState.ACTIVE:
                now, wall = self.clock.monotonic(), self.clock.utcnow()
                before = (b.state, b.failure_count, b.generation)
                answer, changes = rules.settle(b, p, out, now, wall)
                self._retire(p)
                if changes or before != (b.state, b.failure_count, b.generation):
                    self._changed(b, changes, pending)
            else:  # released or expired: not counted, but the answer is kept for repeats
                answer = p.answer = rules.ignored(b, out)
            if out is Outcome.SUCCESS and has_result and rules.remember_result(b, result):
                pending.version = self._journal.mark("breaker", b.key)
        return answer, pending, False

    def report(
        self, permit_id: str, outcome: int, result: Any = None, has_result: bool = False, caller: str | None = None
    ) -> Settlement:
        """Settle a permit with the call's outcome; the answer says what the client does (the SupervisorAgent library).

        `caller` is the agent id of an agent credential (None for operators): it must own the permit.
        """
        answer, pending, _ = self._report(permit_id, outcome, result, has_result, caller)
        self._finish(pending)
        return answer

    async def report_async(
        self, permit_id: str, outcome: int, result: Any = None, has_result: bool = False, caller: str | None = None
    ) -> tuple[Settlement, bool]:
        """As `report`, for the event loop; also says whether this was a repeat of an earlier report."""
        answer, pending, repeated = self._report(permit_id, outcome, result, has_result, caller)
        await self._finish_async(pending)
        return answer, repeated

    def release(self, permit_id: str, caller: str | None = None) -> tuple[bool, BreakerState]:
        """Give a permit back unused: nothing counted, a probe slot freed. False when already settled."""
        answer, pending = self._release(permit_id, caller)
        self._finish(pending)
        return answer

    async def release_async(self, permit_id: str, caller: str | None = None) -> tuple[bool, BreakerState]:
        answer, pending = self._release(permit_id, caller)
        await self._finish_async(pending)
        return answer

    def _release(self, permit_id: str, caller: str | None) -> tuple[tuple[bool, BreakerState], _Pending]:
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
            p = self._permit(permit_id, caller)
            b = self._breakers[p.key]
            released = p.state is PermitState.ACTIVE
            if released:
                rules.release(b, p)
                self._retire(p)
            state = b.state
        return (released, state), pending

    def tick(self) -> int:
        """The scheduler's job: expire permits, move OPEN breakers to HALF_OPEN on time. Returns changes."""
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
        self._finish(pending)
        return len(pending.changes)

    # ---- inspection and operator controls ----------------------------------------------------

    def get(self, key: str) -> Breaker:
        validate_key(key)
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
            b = self._breaker(key, pending, create=False).copy()
        self._finish(pending)
        return b

    def list(self, state: int, prefix: str, page_size: int, page_token: str) -> Page[Breaker]:
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
            chosen = [
                b.copy()
                for key, b in sorted(self._breakers.items())
                if (not state or b.state == state) and key.startswith(prefix)
            ]
        self._finish(pending)
        items, next_token = page_after(chosen, lambda b: b.key, page_size, page_token)
        return Page(items, next_token)

    def _control(self, key: str, actor: str, action: str, details: dict[str, Any], apply: Any, create: bool) -> Breaker:
        validate_key(key)
        pending = _Pending()
        with self._lock:
            self._housekeep(pending)
            b = self._breaker(key, pending, create=create)
            now, wall = self.clock.monotonic(), self.clock.utcnow()
            change = apply(b, now, wall)
            self._changed(b, [change] if change is not None else [], pending)
            snapshot = b.copy()
        self._finish(pending)
        self.audit.record(actor, action, key, {**details, "state": snapshot.state.name})
        return snapshot

    def reset(self, key: str, actor: str = "system") -> Breaker:
        """CLOSED, count 0, hold ended; the cached value stays."""
        return self._control(key, actor, "breaker.reset", {}, rules.reset, create=False)

    def force_open(self, key: str, reason: str = "", actor: str = "system") -> Breaker:
        return self._control(
            key,
            actor,
            "breaker.force_open",
            {"reason": reason},
            lambda b, n, w: rules.force_open(b, reason, n, w),
            True,
        )

    def force_close(self, key: str, reason: str = "", actor: str = "system") -> Breaker:
        return self._control(
            key,
            actor,
            "breaker.force_close",
            {"reason": reason},
            lambda b, n, w: rules.force_close(b, reason, n, w),
            True,
        )

    def trip(self, key: str, reason: str = "cascade", actor: str = "system") -> Breaker:
        """Open as a failure-threshold open would (the cascade detector's OPEN_BREAKERS action)."""
        return self._control(
            key, actor, "breaker.trip", {"reason": reason}, lambda b, n, w: rules.trip(b, reason, n, w), True
        )

    def set_config(self, key: str, override: Mapping[str, Any], actor: str = "system") -> Breaker:
        """The key's own settings (unset fields: the policy's or the defaults). State and counts stay."""
        validate_key(key)
        runtime = rules.parse_override(override, "config")

        def apply(b: Breaker, now: float, wall: Any) -> None:
            b.runtime_config = runtime
            b.reconfigure(self._config(key, runtime))
            b.update_time = wall
            self._schedule(b)

        return self._control(key, actor, "breaker.set_config", {"config": runtime}, apply, True)

    def degradation(self, b: Breaker) -> rules.Degradation:
        """What a refused call of this breaker gets now."""
        return rules.degradation(b, self.clock.monotonic())
