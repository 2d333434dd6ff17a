"""Circuit breakers as a service: one breaker per key for the whole fleet, permits, outcomes, timers,
operator controls.

The database is the truth (server/storage/safeguards/breakers.py): each breaker's state, failure count,
generation, HALF_OPEN probes in flight, settings and cached result. Every state change is a
compare-and-set on the generation, so when several sidecars race for one transition (three schedulers
moving OPEN to HALF_OPEN, two sidecars' failures reaching the threshold) exactly one wins it and only
the winner sends the change's event. This process keeps a cache of every breaker, refreshed from what
each write returns and, when another sidecar commits a change, from the database on its notification
(`attach`, topic "breakers"; within ~100 ms with notifications, within fleet.resync_interval plus a
reload without).

The hot path pays no database round trip: a permit in CLOSED (or a refusal in OPEN) is decided from the
cache, in memory, and a key seen for the first time is stored by the next tick, not by the permit. A
success that changes nothing writes nothing. Other outcomes are written in batches: concurrent reports
share one transaction (a group commit) that adds their failures to the stored count (`failure_count +
n`, fleet-wide) and opens the circuit in that transaction when the count reaches the threshold. Only
HALF_OPEN probes (the fleet's `half_open_max_calls`), due OPEN → HALF_OPEN transitions and operator
actions go to the database before answering.

The bound (docs/fleet.md): after the commit that opens a circuit, another sidecar keeps granting CLOSED
permits for that key only until its cache learns the new generation — the notification (p99 well under
100 ms), its own next write for the key (its outcomes' batch finds the generation moved), or the
resynchronisation poll without notifications. Those permits belong to the old generation: their outcomes
are not counted.

Permits are in memory, in the sidecar that granted them: report or release a permit to that sidecar.
After a restart an unknown permit id answers NOT_FOUND while the breaker itself carries on; probes that
a dead sidecar held expire with the generation (the next transition resets the count).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from server.domain.agents import is_agent_id
from server.domain.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    StorageUnavailable,
    Unavailable,
)
from server.domain.safeguards import breakers as rules
from server.domain.safeguards.breakers import (
    Admission,
    Breaker,
    BreakerChange,
    BreakerState,
    Directive,
    Outcome,
    Permit,
    PermitState,
    Settlement,
    Strategy,
    config_for,
    owner_of,
    validate_key,
)
from server.services import observability as obs
from server.services.dispatch import Dispatcher
from server.services.fleet.ports import ChangeFeed
from server.services.idempotency import AlreadyRemembered
from server.services.pages import page_after
from server.services.ports import AuditSink, Clock, Page
from server.services.safeguards.settings import BreakerSettings

log = logging.getLogger(__name__)

TOPIC = "breakers"  # the change-feed topic; keys are breaker keys
_DONE_LIMIT = 50_000  # settled permits remembered for idempotent repeats: at most this many ...
_DONE_KEPT = 300.0  # ... for 5 minutes after settling (a retry comes within it), so memory is flat after that
_REQUEST_LIMIT = 10_000  # AcquirePermit request ids remembered
_CAS_ATTEMPTS = 16


class BreakerListener(Protocol):
    """Receives every state change this sidecar won, in order, after it is durable (the event stream,
    the cascade detector). A change another sidecar won is that sidecar's event, not this one's.

    Called on the service's one event thread (never the event loop, never under a lock), so it may
    block briefly. A change with to_state OPEN is an opening to report to the cascade detector —
    except reason "cascade", which the detector caused itself (BreakerService.trip).
    """

    def on_breaker_change(self, change: BreakerChange) -> None: ...


@dataclass(eq=False)
class OutcomeEvent:
    """One reported (or expired) outcome of a CLOSED permit, waiting for its batch to be written."""

    outcome: Outcome
    time: datetime
    expired: bool = False
    cached: tuple[Any] | None = None  # (value,): a success's result to keep for the CACHED strategy
    done: bool = False
    counted: bool = False
    count: int = 0  # the failure count this outcome left
    opened: bool = False  # this failure reached the threshold and its batch opened the circuit


@dataclass
class OutcomeBatch:
    """Outcomes of one key's permits of one generation, in order."""

    key: str
    generation: int
    events: list[OutcomeEvent] = field(default_factory=list)

    def reset(self) -> bool:
        """A success among them: the count restarts from the failures after the last one."""
        return any(e.outcome is Outcome.SUCCESS for e in self.events)

    def failures(self) -> int:
        """Failures after the last success (all of them without a success)."""
        n = 0
        for e in self.events:
            n = 0 if e.outcome is Outcome.SUCCESS else n + 1
        return n

    def last_time(self, outcome: Outcome) -> datetime | None:
        times = [e.time for e in self.events if e.outcome is outcome]
        return max(times) if times else None

    def cached(self) -> tuple[Any] | None:
        found = [e.cached for e in self.events if e.cached is not None]
        return found[-1] if found else None

    def threshold_reason(self) -> str:
        last = next((e for e in reversed(self.events) if e.outcome is Outcome.FAILURE), None)
        return "permit expired" if last is not None and last.expired else "failure threshold reached"


# Applied inside the batch's transaction to the stored breaker after its outcomes: moves it (mutating it)
# when they reached the threshold, returning the change.
Decide = Callable[[Breaker, OutcomeBatch], list[BreakerChange]]


class BreakerRepository(Protocol):
    """The breakers in storage. Every write that another sidecar must see announces the key on the
    "breakers" topic in its transaction. Storage failures raise (the service answers UNAVAILABLE)."""

    def load_breakers(self) -> list[Breaker]: ...

    def get_breaker(self, key: str) -> Breaker | None: ...

    def create_breakers(self, breakers: Sequence[Breaker]) -> None:
        """Store each breaker not stored yet (one transaction); existing rows are left alone."""
        ...

    def add_outcomes(
        self, batches: Sequence[OutcomeBatch], decide: Decide
    ) -> list[tuple[Breaker | None, list[BreakerChange]]]:
        """One transaction. Per batch: create the key's row if missing; where the stored generation is
        still the batch's and the circuit CLOSED, apply the outcomes (`failure_count + failures`, or the
        failures after the last success); then `decide` may move it (compare-and-set on the generation).
        Returns, per batch, the stored breaker after it (None: the generation moved on, nothing counted)
        and the changes `decide` made."""
        ...

    def transition(self, b: Breaker, expected_generation: int, remember: bool = False) -> bool:
        """Write `b` (state, counts, generation, times, probes) if the stored generation is still
        `expected_generation`; False when another writer moved it first. `remember`: the operator call being
        served (ResetBreaker, ForceOpen, ForceClose) writes its idempotency record in the same transaction."""
        ...

    def take_probe(self, key: str, generation: int, limit: int) -> bool:
        """One more HALF_OPEN probe in flight if the generation is current and fewer than `limit` are."""
        ...

    def return_probe(self, key: str, generation: int) -> None: ...

    def set_runtime_config(self, key: str, runtime: Mapping[str, Any], now: datetime) -> None: ...


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
        self._lock = threading.RLock()  # the cache and the permits; never held across storage I/O
        # One tick at a time, storage work included: a GetBreaker's tick waits for the scheduler's tick that took
        # the expired permits (or the due timers) to finish writing them, instead of reading the breaker before.
        self._ticking = threading.RLock()
        self._write_lock = threading.Lock()  # one outcome batch in flight at a time (group commit)
        self._breakers: dict[str, Breaker] = {}
        self._per_owner: dict[str, int] = {}  # breakers cached per owner (the key up to its first ':')
        self._unsaved: set[str] = set()  # keys first seen here, stored by the next flush
        self._pending: dict[tuple[str, int], list[OutcomeEvent]] = {}
        self._waiting: dict[str, OutcomeEvent] = {}  # permit id -> its outcome not yet durable
        self._permits: dict[str, Permit] = {}  # active
        # Reported, released or expired, oldest first, with the monotonic time each was settled.
        self._done: OrderedDict[str, tuple[Permit, float]] = OrderedDict()
        self._expiry: list[tuple[float, str]] = []  # (expires_at, permit_id)
        self._due: list[tuple[float, str, int]] = []  # (half-open time, key, generation)
        self._requests: OrderedDict[tuple[str, str], Admission] = OrderedDict()
        self.events = Dispatcher("breaker-events")
        self.writes = Dispatcher("breaker-writes")  # storage work handed off the event loop

    def add_listener(self, listener: BreakerListener) -> None:
        self.listeners.append(listener)

    # ---- lifecycle and the cache -----------------------------------------------------------

    def load(self) -> None:
        stored = self.repo.load_breakers()
        for b in stored:
            self._merge(b)
        log.info("circuit breakers loaded", extra={"breakers": len(stored)})

    def attach(self, feed: ChangeFeed) -> None:
        """Follow other sidecars' changes: each announced key is read back; a resync reloads all."""
        feed.subscribe(TOPIC, self.refresh, self.load)

    def refresh(self, key: str) -> None:
        """Read one breaker back from storage (another sidecar changed it)."""
        stored = self.repo.get_breaker(key)
        if stored is not None:
            self._merge(stored)

    def _config(self, key: str, runtime: Mapping[str, Any]) -> rules.BreakerConfig:
        return config_for(key, self.settings.defaults, self.settings.keys, runtime)

    def _merge(self, stored: Breaker) -> None:
        """Put a breaker read from storage into the cache, unless the cache already holds a newer
        generation; this process's permits in flight stay counted."""
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        stored.config = self._config(stored.key, stored.runtime_config)
        with self._lock:
            old = self._breakers.get(stored.key)
            if old is not None and old.generation > stored.generation:
                return
            stored.in_flight = old.in_flight if old is not None else 0
            if old is None:
                self._per_owner[owner_of(stored.key)] = self._per_owner.get(owner_of(stored.key), 0) + 1
            if stored.state is BreakerState.OPEN and stored.open_time is not None:
                stored.opened_at = now - max(0.0, (wall - stored.open_time).total_seconds())
                stored.reconfigure(stored.config)
            self._breakers[stored.key] = stored
            self._unsaved.discard(stored.key)
            self._schedule(stored)

    def _adopt(self, b: Breaker, changes: Sequence[BreakerChange]) -> None:
        """A breaker this process wrote (and won): into the cache, its changes to the listeners."""
        self._merge(b)
        self._emit(changes)

    def _emit(self, changes: Sequence[BreakerChange]) -> None:
        for change in changes:
            obs.breaker_change(change)  # an event on the current span (the call that caused it)
            for listener in self.listeners:
                self.events.submit(functools.partial(listener.on_breaker_change, change))

    def _schedule(self, b: Breaker) -> None:
        if b.state is BreakerState.OPEN and not b.forced and b.opened_at is not None:
            heapq.heappush(self._due, (b.opened_at + b.config.recovery_timeout, b.key, b.generation))

    def _cached(self, key: str) -> Breaker:
        """The key's breaker (caller holds the lock); a new key is CLOSED, stored by the next flush."""
        b = self._breakers.get(key)
        if b is None:
            owner, cap = owner_of(key), self.settings.max_keys_per_agent
            if self._per_owner.get(owner, 0) >= cap:
                raise ResourceExhausted(
                    f"{owner!r} already has {cap} circuit breaker keys (safeguards.breakers.max_keys_per_agent); "
                    "reuse a key",
                    reason="BREAKER_KEYS_EXHAUSTED",
                    field="key",
                )
            wall = self.clock.utcnow()
            b = self._breakers[key] = Breaker(key, self._config(key, {}), wall, wall)
            self._per_owner[owner] = self._per_owner.get(owner, 0) + 1
            self._unsaved.add(key)
        return b

    def settled_kept(self) -> int:
        """Settled permits remembered for idempotent repeats (at most _DONE_LIMIT, none older than _DONE_KEPT)."""
        with self._lock:
            return len(self._done)

    def cached_keys(self, owner: str) -> int:
        """Breakers this process holds for `owner` (bounded by safeguards.breakers.max_keys_per_agent, plus
        those an operator created)."""
        with self._lock:
            return self._per_owner.get(owner, 0)

    def _retire(self, p: Permit) -> None:
        self._permits.pop(p.permit_id, None)
        now = self.clock.monotonic()
        self._done[p.permit_id] = (p, now)
        while self._done and (len(self._done) > _DONE_LIMIT or next(iter(self._done.values()))[1] < now - _DONE_KEPT):
            self._done.popitem(last=False)

    def _unavailable(self, exc: Exception) -> Unavailable:
        log.exception("circuit breakers: storage write failed")
        if isinstance(exc, StorageUnavailable):  # the fixed message: callers never see the driver's text
            return exc
        return Unavailable("circuit breakers: storage is not available; the change is not durable")

    # ---- outcome batches (group commit) ----------------------------------------------------

    def _enqueue(self, b: Breaker, event: OutcomeEvent) -> OutcomeEvent:
        """Caller holds the lock."""
        self._pending.setdefault((b.key, b.generation), []).append(event)
        return event

    def _decide(self, stored: Breaker, batch: OutcomeBatch) -> list[BreakerChange]:
        stored.config = self._config(stored.key, stored.runtime_config)
        change = rules.open_on_threshold(stored, batch.threshold_reason(), self.clock.monotonic(), self.clock.utcnow())
        return [change] if change is not None else []

    def _flush(self, until: OutcomeEvent | None = None) -> int:
        """Write every pending outcome and every new key; return once `until` is durable (or, without
        it, once what was pending is). Returns the number of state changes made."""
        made = 0
        while True:
            with self._write_lock:
                if until is not None and until.done:
                    return made
                with self._lock:
                    batches = [OutcomeBatch(k, g, list(evs)) for (k, g), evs in self._pending.items() if evs]
                    new = [self._breakers[k].copy() for k in self._unsaved if k in self._breakers]
                if not batches and not new:
                    return made
                try:
                    if new:
                        self.repo.create_breakers(new)
                    results = self.repo.add_outcomes(batches, self._decide) if batches else []
                except Exception as exc:
                    raise self._unavailable(exc) from exc
                with self._lock:
                    self._unsaved.difference_update(b.key for b in new)
                    for batch, (stored, _changes) in zip(batches, results, strict=True):
                        left = self._pending.get((batch.key, batch.generation), [])
                        del left[: len(batch.events)]
                        if not left:
                            self._pending.pop((batch.key, batch.generation), None)
                        self._settle_events(batch, stored)
                for batch, (stored, changes) in zip(batches, results, strict=True):
                    if stored is not None:
                        self._adopt(stored, changes)
                    else:
                        self.refresh(batch.key)  # the generation moved on: another sidecar changed it
                    made += len(changes)
            if until is None or until.done:
                return made

    def _settle_events(self, batch: OutcomeBatch, stored: Breaker | None) -> None:
        if stored is None:
            for e in batch.events:
                e.done, e.counted = True, False
            return
        threshold = self._config(stored.key, stored.runtime_config).failure_threshold
        if batch.reset():  # failures before the batch's first success add to the count this cache knew
            cached = self._breakers.get(batch.key)
            count = cached.failure_count if cached is not None else 0
        else:  # the stored count right before this batch's failures were added
            count = max(0, stored.failure_count - batch.failures())
        opened = stored.generation != batch.generation
        reached = False
        for e in batch.events:
            count = 0 if e.outcome is Outcome.SUCCESS else count + 1
            e.count, e.counted, e.done = count, True, True
            if opened and not reached and e.outcome is Outcome.FAILURE and count >= threshold:
                e.opened = reached = True

    # ---- housekeeping ----------------------------------------------------------------------

    def _expire_due(self) -> list[Permit]:
        """Permits past their TTL (caller holds the lock): CLOSED ones become failures in the next batch;
        the probes are returned for the caller to settle in storage."""
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        probes: list[Permit] = []
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
            p.state = PermitState.EXPIRED
            b.in_flight = max(0, b.in_flight - 1)
            self._retire(p)
            if p.generation != b.generation:
                continue
            if p.probe:
                probes.append(p)
            else:
                self._enqueue(b, OutcomeEvent(Outcome.FAILURE, wall, expired=True))
        return probes

    def _due_half_open(self) -> list[str]:
        now = self.clock.monotonic()
        keys: list[str] = []
        with self._lock:
            while self._due and self._due[0][0] <= now:
                _, key, generation = heapq.heappop(self._due)
                b = self._breakers.get(key)
                if b is None or b.generation != generation:
                    continue
                if b.half_open_due(now):
                    keys.append(key)
                else:
                    self._schedule(b)  # the timeout was lengthened meanwhile
        return keys

    def tick(self) -> int:
        """The scheduler's job: expire permits, write pending outcomes and new keys, move OPEN breakers
        whose timeout passed to HALF_OPEN (one sidecar of the fleet wins each). Returns changes made."""
        with self._ticking:
            with self._lock:
                probes = self._expire_due()
            made = sum(self._settle_probe(p, Outcome.FAILURE, expired=True)[1] for p in probes)
            made += self._flush()
            for key in self._due_half_open():
                made += self._advance(key)
            return made

    def _advance(self, key: str) -> int:
        """OPEN → HALF_OPEN when due, compare-and-set; returns 1 when this process won it."""
        for _ in range(_CAS_ATTEMPTS):
            with self._lock:
                b = self._breakers.get(key)
                if b is None:
                    return 0
                c = b.copy()
                change = rules.advance(c, self.clock.monotonic(), self.clock.utcnow())
            if change is None:
                return 0
            try:
                won = self.repo.transition(c, b.generation)
            except Exception as exc:
                raise self._unavailable(exc) from exc
            if won:
                self._adopt(c, [change])
                return 1
            self.refresh(key)
        return 0

    # ---- permits ---------------------------------------------------------------------------

    def _grant(self, b: Breaker, request_id: str, probe_granted: bool | None = None) -> Admission:
        """Decide from the cached breaker (caller holds the lock). For HALF_OPEN, `probe_granted` says
        whether storage gave this call one of the fleet's probe slots."""
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        target = b
        if probe_granted is not None:
            target = b.copy()
            target.probes = 0 if probe_granted else b.config.half_open_max_calls
        admission, _ = rules.admit(target, "pmt_" + secrets.token_hex(10), now, wall, request_id)
        if admission.permit is not None:
            p = admission.permit
            if target is not b:
                b.in_flight += 1
                b.probes += 1
            self._permits[p.permit_id] = p
            heapq.heappush(self._expiry, (p.expires_at, p.permit_id))
        if request_id:
            self._requests[(b.key, request_id)] = admission
            while len(self._requests) > _REQUEST_LIMIT:
                self._requests.popitem(last=False)
        return admission

    def _acquire_fast(self, key: str, request_id: str) -> Admission | None:
        """A permit in CLOSED, or the refusal in OPEN before its timeout: from the cache, no storage.
        None: the slow path decides (OPEN and due, or HALF_OPEN)."""
        validate_key(key)
        with self._lock:
            if request_id and (key, request_id) in self._requests:
                return self._requests[(key, request_id)]
            b = self._cached(key)
            if b.state is BreakerState.CLOSED or (
                b.state is BreakerState.OPEN and not b.half_open_due(self.clock.monotonic())
            ):
                return self._grant(b, request_id)
        return None

    def _acquire_slow(self, key: str, request_id: str) -> Admission:
        """HALF_OPEN (or OPEN and due): the fleet's probe slots are counted in storage."""
        for _ in range(_CAS_ATTEMPTS):
            self._advance(key)
            with self._lock:
                if request_id and (key, request_id) in self._requests:
                    return self._requests[(key, request_id)]
                b = self._cached(key)
                if b.state is not BreakerState.HALF_OPEN:
                    if b.state is BreakerState.CLOSED or not b.half_open_due(self.clock.monotonic()):
                        return self._grant(b, request_id)
                    continue
                generation, limit = b.generation, b.config.half_open_max_calls
            try:
                granted = self.repo.take_probe(key, generation, limit)
            except Exception as exc:
                raise self._unavailable(exc) from exc
            if not granted:
                self.refresh(key)  # every slot taken, or the circuit moved on (another sidecar's probe)
            with self._lock:
                b = self._cached(key)
                if b.generation == generation:
                    return self._grant(b, request_id, granted)
            if granted:  # the circuit moved on meanwhile: that slot is of an old generation
                self._return_probe(key, generation)
                self.refresh(key)
        raise Unavailable(f"circuit breaker {key!r} keeps changing; try again")

    def acquire(self, key: str, request_id: str = "") -> Admission:
        """A permit to run one guarded call, or the refusal with what to do instead."""
        return self._acquire_fast(key, request_id) or self._acquire_slow(key, request_id)

    async def acquire_async(self, key: str, request_id: str = "") -> Admission:
        """As `acquire`, for the event loop: the slow path's storage round trips run off the loop."""
        fast = self._acquire_fast(key, request_id)
        if fast is not None:
            return fast
        return await asyncio.to_thread(self._acquire_slow, key, request_id)

    def guardrail_permit(self, key: str) -> Admission:
        """For the `breaker` guardrail outside the event loop (PermitSource)."""
        return self.acquire(key)

    async def guardrail_permit_async(self, key: str) -> Admission:
        """For the `breaker` guardrail inside CheckAction: CLOSED is answered from memory, never
        committing; a HALF_OPEN probe's storage work runs off the event loop."""
        return await self.acquire_async(key)

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
        p = self._permits.get(permit_id)
        if p is None and (done := self._done.get(permit_id)) is not None:
            p = done[0]
        if p is None:
            raise NotFound(
                f"no permit has id {permit_id!r} (permits live in the sidecar that granted them and do not "
                "survive its restart)",
                field="permit_id",
            )
        if caller is not None and p.owner != caller:
            raise PermissionDenied(
                f"agent credential {caller!r} may only report its own permits",
                reason="NOT_YOUR_AGENT",
                field="permit_id",
            )
        return p

    # ---- outcomes --------------------------------------------------------------------------

    def _report_begin(
        self, permit_id: str, outcome: int, result: Any, has_result: bool, caller: str | None
    ) -> tuple[Settlement | None, Callable[[], Settlement] | None, bool]:
        """The answer when memory decides it, else the storage work that will (run it off the loop)."""
        if outcome not in (Outcome.SUCCESS, Outcome.FAILURE):
            raise InvalidArgument("outcome must be SUCCESS or FAILURE", field="outcome")
        out = Outcome(outcome)
        with self._lock:
            p = self._permit(permit_id, caller)
            b = self._breakers[p.key]
            if p.answer is not None:
                if p.answer.outcome is not out:
                    raise FailedPrecondition(
                        f"permit {permit_id!r} was already reported as {p.answer.outcome.name}",
                        reason="ALREADY_REPORTED",
                    )
                return p.answer, None, True
            waiting = self._waiting.get(permit_id)
            if waiting is not None:  # reported before, but its batch could not be written yet
                if waiting.outcome is not out:
                    raise FailedPrecondition(
                        f"permit {permit_id!r} was already reported as {waiting.outcome.name}",
                        reason="ALREADY_REPORTED",
                    )
                return None, functools.partial(self._settle_closed, p, waiting), True
            if p.state is not PermitState.ACTIVE or p.generation != b.generation:
                # released or expired, or of an older generation: not counted (the answer is kept for repeats)
                if p.state is PermitState.ACTIVE:
                    p.state = PermitState.REPORTED
                    b.in_flight = max(0, b.in_flight - 1)
                    self._retire(p)
                p.answer = rules.ignored(b, out)
                return p.answer, None, False
            if p.probe:
                p.state = PermitState.REPORTED
                b.in_flight = max(0, b.in_flight - 1)
                self._retire(p)
                return None, functools.partial(self._settle_probe_answer, p, out, result, has_result), False
            keep = out is Outcome.SUCCESS and has_result and b.config.strategy is Strategy.CACHED
            cached = (result,) if keep and not (b.has_cached and b.cached == result) else None
            p.state = PermitState.REPORTED
            b.in_flight = max(0, b.in_flight - 1)
            self._retire(p)
            wall = self.clock.utcnow()
            if (
                out is Outcome.SUCCESS
                and cached is None
                and b.failure_count == 0
                and not self._pending.get((b.key, b.generation))
            ):
                b.last_success_time = wall  # nothing to write: the count is already 0
                p.answer = Settlement(Directive.RETURN_RESULT, None, b.state, 0, b.generation, True, out)
                return p.answer, None, False
            event = self._enqueue(b, OutcomeEvent(out, wall, cached=cached))
            self._waiting[permit_id] = event
        return None, functools.partial(self._settle_closed, p, event), False

    def _settle_closed(self, p: Permit, event: OutcomeEvent) -> Settlement:
        self._flush(event)
        with self._lock:
            self._waiting.pop(p.permit_id, None)
            b = self._breakers[p.key]
            if not event.counted:
                p.answer = rules.ignored(b, event.outcome)
                return p.answer
            directive = Directive.RETURN_RESULT if event.outcome is Outcome.SUCCESS else Directive.RETHROW
            degraded = None
            if event.opened:
                directive = rules.degraded_directive(b.config)
                degraded = rules.degradation(b, self.clock.monotonic())
            p.answer = Settlement(directive, degraded, b.state, event.count, b.generation, True, event.outcome)
            return p.answer

    def _settle_probe(
        self, p: Permit, out: Outcome, result: Any = None, has_result: bool = False, expired: bool = False
    ) -> tuple[Settlement, int]:
        """A probe's outcome moves the circuit (compare-and-set): CLOSED on success, OPEN on failure."""
        for _ in range(_CAS_ATTEMPTS):
            with self._lock:
                b = self._breakers[p.key]
                if b.generation != p.generation or b.state is not BreakerState.HALF_OPEN:
                    return rules.ignored(b, out), 0
                c = b.copy()
                now, wall = self.clock.monotonic(), self.clock.utcnow()
                c.in_flight += 1  # the permit already left this process's count; settle takes it again
                if expired:
                    change = rules.expire(c, p, now, wall)
                    answer = rules.ignored(c, out)
                else:
                    p.state = PermitState.ACTIVE  # settle marks it reported
                    answer, changes = rules.settle(c, p, out, now, wall)
                    change = changes[0] if changes else None
                    if out is Outcome.SUCCESS and has_result:
                        rules.remember_result(c, result)
                c.in_flight = b.in_flight
            try:
                won = self.repo.transition(c, p.generation)
            except Exception as exc:
                raise self._unavailable(exc) from exc
            if won:
                self._adopt(c, [change] if change is not None else [])
                return answer, 1 if change is not None else 0
            self.refresh(p.key)
        with self._lock:
            return rules.ignored(self._breakers[p.key], out), 0

    def _settle_probe_answer(self, p: Permit, out: Outcome, result: Any, has_result: bool) -> Settlement:
        answer, _ = self._settle_probe(p, out, result, has_result)
        with self._lock:
            p.state = PermitState.REPORTED
            p.answer = answer
        return answer

    def report(
        self, permit_id: str, outcome: int, result: Any = None, has_result: bool = False, caller: str | None = None
    ) -> Settlement:
        """Settle a permit with the call's outcome; the answer says what the client does (the SupervisorAgent library).

        `caller` is the agent id of an agent credential (None for operators): it must own the permit.
        """
        answer, rest, _ = self._report_begin(permit_id, outcome, result, has_result, caller)
        return answer if answer is not None else rest()  # type: ignore[misc]

    async def report_async(
        self, permit_id: str, outcome: int, result: Any = None, has_result: bool = False, caller: str | None = None
    ) -> tuple[Settlement, bool]:
        """As `report`, for the event loop; also says whether this was a repeat of an earlier report."""
        answer, rest, repeated = self._report_begin(permit_id, outcome, result, has_result, caller)
        if answer is None and rest is not None:
            answer = await asyncio.to_thread(rest)
        assert answer is not None
        return answer, repeated

    def _release_begin(self, permit_id: str, caller: str | None) -> tuple[bool, BreakerState, Permit | None]:
        with self._lock:
            p = self._permit(permit_id, caller)
            b = self._breakers[p.key]
            released = p.state is PermitState.ACTIVE
            probe = None
            if released:
                current = p.generation == b.generation
                rules.release(b, p)
                self._retire(p)
                if p.probe and current:
                    probe = p
            return released, b.state, probe

    def _return_probe(self, key: str, generation: int) -> None:
        try:
            self.repo.return_probe(key, generation)
        except Exception as exc:
            raise self._unavailable(exc) from exc

    def release(self, permit_id: str, caller: str | None = None) -> tuple[bool, BreakerState]:
        """Give a permit back unused: nothing counted, a probe slot freed. False when already settled."""
        released, state, probe = self._release_begin(permit_id, caller)
        if probe is not None:
            self._return_probe(probe.key, probe.generation)
        return released, state

    async def release_async(self, permit_id: str, caller: str | None = None) -> tuple[bool, BreakerState]:
        released, state, probe = self._release_begin(permit_id, caller)
        if probe is not None:
            await asyncio.to_thread(self._return_probe, probe.key, probe.generation)
        return released, state

    def release_soon(self, permit_id: str) -> bool:
        """Give a permit back from the event loop (CheckAction's chain blocked after the `breaker` took it):
        memory at once, a probe slot's storage write on the service's writer thread."""
        released, _, probe = self._release_begin(permit_id, None)
        if probe is not None:
            key, generation = probe.key, probe.generation

            def give_back() -> None:
                with contextlib.suppress(Unavailable):  # logged; the slot comes back with the next generation
                    self._return_probe(key, generation)

            self.writes.submit(give_back)
        return released

    # ---- inspection and operator controls ----------------------------------------------------

    def get(self, key: str) -> Breaker:
        """The breaker as the fleet stores it (this process's outcomes written first), with this
        process's permits in flight."""
        validate_key(key)
        self.tick()  # expired permits and due timers first, then this process's outcomes are written
        stored = self.repo.get_breaker(key)
        if stored is None:
            raise NotFound(f"no circuit breaker has key {key!r}", field="key")
        self._merge(stored)
        with self._lock:
            return self._breakers[key].copy()

    def list(self, state: int, prefix: str, page_size: int, page_token: str) -> Page[Breaker]:
        self.tick()
        for stored in self.repo.load_breakers():
            self._merge(stored)
        with self._lock:
            chosen = [
                b.copy()
                for key, b in sorted(self._breakers.items())
                if key not in self._unsaved and (not state or b.state == state) and key.startswith(prefix)
            ]
        items, next_token = page_after(chosen, lambda b: b.key, page_size, page_token)
        return Page(items, next_token)

    def _control(self, key: str, actor: str, action: str, details: dict[str, Any], apply: Any, create: bool) -> Breaker:
        """An operator action, compare-and-set on the generation (retried when another sidecar moved it)."""
        validate_key(key)
        self.tick()
        for _ in range(_CAS_ATTEMPTS):
            try:
                stored = self.repo.get_breaker(key)
                if stored is None:
                    if not create:
                        raise NotFound(f"no circuit breaker has key {key!r}", field="key")
                    wall = self.clock.utcnow()
                    self.repo.create_breakers([Breaker(key, self._config(key, {}), wall, wall)])
                    continue
                self._merge(stored)
                with self._lock:
                    c = self._breakers[key].copy()
                expected = c.generation
                change = apply(c, self.clock.monotonic(), self.clock.utcnow())
                won = self.repo.transition(c, expected, remember=True)
            except (NotFound, InvalidArgument, AlreadyRemembered):
                raise
            except Exception as exc:
                raise self._unavailable(exc) from exc
            if won:
                self._adopt(c, [change] if change is not None else [])
                break
        else:
            raise Unavailable(f"circuit breaker {key!r} keeps changing; try again")
        with self._lock:
            snapshot = self._breakers[key].copy()
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
        """The key's own settings (unset fields: the policy's or the defaults). State and counts stay.

        The settings and SetBreakerConfig's idempotency record are one transaction; the row is created
        (if missing) in one before it, which a retry repeats harmlessly (an existing row is left alone)."""
        validate_key(key)
        runtime = rules.parse_override(override, "config")
        self._flush()
        wall = self.clock.utcnow()
        try:
            self.repo.create_breakers([Breaker(key, self._config(key, {}), wall, wall)])
            self.repo.set_runtime_config(key, runtime, wall)
        except AlreadyRemembered:
            raise
        except Exception as exc:
            raise self._unavailable(exc) from exc
        self.refresh(key)
        with self._lock:
            snapshot = self._breakers[key].copy()
        self.audit.record(actor, "breaker.set_config", key, {"config": runtime, "state": snapshot.state.name})
        return snapshot

    def as_served(self, stored: Breaker) -> Breaker:
        """A breaker read from storage as the RPCs show it: its effective settings, this process's permits."""
        b = stored.copy()
        b.reconfigure(self._config(b.key, b.runtime_config))
        with self._lock:
            cached = self._breakers.get(b.key)
            b.in_flight = cached.in_flight if cached is not None else 0
        return b

    def degradation(self, b: Breaker) -> rules.Degradation:
        """What a refused call of this breaker gets now."""
        return rules.degradation(b, self.clock.monotonic())
