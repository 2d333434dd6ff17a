"""Execution leases as a service (the SandboxExecutionGuard contract): slots per isolation key, a FIFO of
waiters, fencing tokens, expiry and revocation — for one sidecar or a fleet.

The database is the truth (server/storage/safeguards/leases.py); this process keeps no slot counts. A
grant is one transaction under the key's row lock: it expires the key's lapsed leases, counts the
ACTIVE ones and the waiters queued ahead, and takes the next fencing token from the key's one counter,
so a slot count is the fleet's and tokens only grow, across sidecars and restarts. Waiters are rows in
the order they queued: FIFO across sidecars. A waiting AcquireLease holds a coroutine, not a thread: it
tries again when a lease of its key ends (a release, expiry or revocation here, or another sidecar's,
announced on the "leases" topic), and at least every `poll_interval` without notifications. A waiter
keeps its row fresh while it waits; the row of a sidecar that died is dropped after `stale_waiter`
seconds, so it cannot hold the queue. A caller that gives up (deadline, cancellation) leaves the queue;
if the slot reached it at that very moment, the lease is given back at once.

Storage work always runs off the event loop. Expiry compares each lease's `expire_time` with the
sidecar's clock: the fleet's hosts keep their clocks in sync (NTP).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards.leases import IsolationKey, Lease, LeaseState, Scope, validate_holder
from server.services.fleet.ports import ChangeFeed
from server.services.ports import AuditSink, Clock, Page
from server.services.safeguards.settings import LeaseSettings

log = logging.getLogger(__name__)

TOPIC = "leases"  # the change-feed topic; keys are `IsolationKey.text` of a key whose lease ended
_MAX_TTL = 86400.0
_KEEP_ENDED = timedelta(days=1)  # ended leases older than this are pruned from storage
PRUNE_EVERY = 3600.0
_SWEEP_EVERY = 5.0  # the fleet-wide expiry sweep (leases of sidecars that are gone; grants expire their own key)


class LeaseRepository(Protocol):
    """The leases in storage; each method is one transaction. Every lease that ends announces its key
    on the "leases" topic in that transaction."""

    def try_acquire(
        self,
        key: IsolationKey,
        limit: int | None,
        agent_id: str,
        ttl: float,
        request_id: str,
        now: datetime,
        waiter_id: str | None,
        stale_before: datetime,
    ) -> tuple[Lease | None, str]:
        """Under the key's lock: expire its lapsed leases; grant when fewer than `limit` (None: unlimited)
        leases are ACTIVE and no live waiter queued before this caller (`waiter_id`, or a new caller)
        would take the slot first; otherwise queue a new caller. A waiter's row is refreshed (`now`);
        other waiters not refreshed since `stale_before` are dropped. A request id the agent used before
        answers its lease. Returns (lease, "") or (None, the waiter's id). Raises FailedPrecondition
        AGENT_KILLED when the waiter's agent was killed meanwhile."""
        ...

    def leave_queue(self, waiter_id: str) -> None: ...

    def waiters(self, key: IsolationKey) -> int: ...

    def renew(self, lease_id: str, ttl: float, now: datetime) -> Lease | None:
        """Extend an ACTIVE lease not past its expiry (a lapsed one is expired now); the lease after it."""
        ...

    def release(self, lease_id: str, now: datetime) -> Lease | None:
        """ACTIVE → RELEASED (only ACTIVE: an ended lease keeps its state); the lease after it."""
        ...

    def reap(self, now: datetime) -> list[Lease]:
        """ACTIVE leases past their expiry → EXPIRED (never any other state); the leases expired."""
        ...

    def revoke_agent(self, agent_id: str, now: datetime) -> list[Lease]:
        """The agent's ACTIVE leases → REVOKED, its queued waits marked killed; the leases revoked."""
        ...

    def get_lease(self, lease_id: str) -> Lease | None: ...

    def list_leases(
        self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str
    ) -> Page[Lease]:
        """Newest first; 0 / "" filters are off."""
        ...

    def prune_leases(self, ended_before: datetime) -> int: ...


class LeaseService:
    def __init__(
        self,
        repo: LeaseRepository,
        clock: Clock,
        settings: LeaseSettings,
        audit: AuditSink,
        *,
        poll_interval: float = 0.5,
        stale_waiter: float = 5.0,
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.audit = audit
        self.poll_interval = poll_interval
        self.stale_waiter = stale_waiter
        self._lock = threading.Lock()
        self._wakers: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
        self._due: list[tuple[datetime, str]] = []  # (expire time, lease id) of leases granted or renewed here
        self._watched: dict[str, datetime] = {}  # lease id -> its expiry, while this process knows it ACTIVE
        self._next_sweep = 0.0

    # ---- lifecycle -------------------------------------------------------------------------

    def load(self) -> None:
        """Nothing to load: the database holds every lease and waiter."""

    def attach(self, feed: ChangeFeed) -> None:
        """Wake this process's waiters when another sidecar ends a lease of their key."""
        feed.subscribe(TOPIC, self._wake, self._wake_all)

    # ---- waking ----------------------------------------------------------------------------

    def _register(self, key: IsolationKey) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._wakers.setdefault(key.text, set()).add(entry)
        return entry

    def _unregister(self, key: IsolationKey, entry: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._lock:
            entries = self._wakers.get(key.text)
            if entries is not None:
                entries.discard(entry)
                if not entries:
                    del self._wakers[key.text]

    def _wake(self, key_text: str) -> None:
        """A lease of the key ended (any thread): its waiters here try again."""
        with self._lock:
            entries = list(self._wakers.get(key_text, ()))
        for loop, event in entries:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the sidecar is stopping
                loop.call_soon_threadsafe(event.set)

    def _wake_all(self) -> None:
        with self._lock:
            keys = list(self._wakers)
        for key in keys:
            self._wake(key)

    def _ended(self, leases: Sequence[Lease]) -> None:
        with self._lock:
            for le in leases:
                self._watched.pop(le.lease_id, None)
        for key in {le.key.text for le in leases}:
            self._wake(key)

    # ---- the API ---------------------------------------------------------------------------

    def _ttl(self, ttl: float | None, default: float) -> float:
        if ttl is None:
            return default
        if not 0 < ttl <= _MAX_TTL:
            raise InvalidArgument(f"ttl must be positive and at most {_MAX_TTL:g}s", field="ttl")
        return ttl

    def _try(
        self, key: IsolationKey, agent_id: str, ttl: float, request_id: str, waiter_id: str | None
    ) -> tuple[Lease | None, str]:
        now = self.clock.utcnow()
        lease, waiter = self.repo.try_acquire(
            key,
            self.settings.slots.slots_for(key),
            agent_id,
            ttl,
            request_id,
            now,
            waiter_id,
            now - timedelta(seconds=self.stale_waiter),
        )
        if lease is not None and lease.state is LeaseState.ACTIVE:
            self._watch(lease)
        return lease, waiter

    def _watch(self, lease: Lease) -> None:
        with self._lock:
            self._watched[lease.lease_id] = lease.expire_time
            heapq.heappush(self._due, (lease.expire_time, lease.lease_id))

    async def acquire(
        self, key: IsolationKey, agent_id: str, ttl: float | None = None, request_id: str = ""
    ) -> tuple[Lease, float]:
        """Take a slot of `key`, waiting in FIFO order (fleet-wide) until one is free. Cancel the awaiting
        task to give up (a gRPC deadline or cancellation does). Returns the lease and the seconds waited."""
        validate_holder(agent_id)
        seconds = self._ttl(ttl, self.settings.ttl)
        started = self.clock.monotonic()
        waiter: str | None = None
        while True:
            entry = self._register(key)  # before trying: a release in between still wakes this call
            try:
                attempt = asyncio.ensure_future(
                    asyncio.to_thread(self._try, key, agent_id, seconds, request_id, waiter)
                )
                try:
                    lease, waiter_id = await asyncio.shield(attempt)
                except BaseException:
                    self._abandon(attempt, waiter)
                    raise
                if lease is not None:
                    waited = 0.0 if waiter is None else max(0.0, self.clock.monotonic() - started)
                    return lease, waited
                waiter = waiter_id
                try:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(entry[1].wait(), self.poll_interval)
                except BaseException:
                    self._abandon(None, waiter)
                    raise
            finally:
                self._unregister(key, entry)

    def _abandon(self, attempt: asyncio.Future[tuple[Lease | None, str]] | None, waiter: str | None) -> None:
        """The caller gave up: leave the queue, and give back a slot that reached it as it went."""

        def give_back(lease: Lease | None, waiter_id: str) -> None:
            try:
                if lease is not None:
                    self.release(lease.lease_id)
                for w in {waiter, waiter_id} - {None, ""}:
                    self.repo.leave_queue(w)  # type: ignore[arg-type]
            except Exception:
                log.exception("could not leave the lease queue", extra={"waiter": waiter_id or waiter})

        if attempt is None:
            threading.Thread(target=give_back, args=(None, ""), daemon=True).start()
            return

        def done(fut: asyncio.Future[tuple[Lease | None, str]]) -> None:
            if fut.cancelled() or fut.exception() is not None:
                threading.Thread(target=give_back, args=(None, ""), daemon=True).start()
                return
            lease, waiter_id = fut.result()
            threading.Thread(target=give_back, args=(lease, waiter_id), daemon=True).start()

        attempt.add_done_callback(done)

    def _lease(self, lease_id: str, caller: str | None) -> Lease:
        if not lease_id:
            raise InvalidArgument("lease_id is required", field="lease_id")
        lease = self.repo.get_lease(lease_id)
        if lease is None:
            raise NotFound(f"no lease has id {lease_id!r}", field="lease_id")
        if caller is not None and lease.agent_id != caller:
            raise PermissionDenied(
                f"agent credential {caller!r} may only use its own leases", reason="NOT_YOUR_AGENT", field="lease_id"
            )
        return lease

    def renew(self, lease_id: str, ttl: float | None = None, caller: str | None = None) -> Lease:
        """Extend an active lease to now + ttl (default: its ttl); the fencing token stays."""
        lease = self._lease(lease_id, caller)
        seconds = self._ttl(ttl, lease.ttl) if lease.state is LeaseState.ACTIVE else lease.ttl
        renewed = self.repo.renew(lease_id, seconds, self.clock.utcnow()) if lease.state is LeaseState.ACTIVE else lease
        if renewed is None:
            raise NotFound(f"no lease has id {lease_id!r}", field="lease_id")
        if renewed.state is not LeaseState.ACTIVE:
            self._ended([renewed])
            raise FailedPrecondition(
                f"lease {lease_id!r} is no longer active: it was {renewed.state.name.lower()}; acquire a new one",
                reason=f"LEASE_{renewed.state.name}",
            )
        self._watch(renewed)
        return renewed

    def release(self, lease_id: str, caller: str | None = None) -> Lease:
        """Give the slot back (idempotent: the lease in its final state)."""
        lease = self._lease(lease_id, caller)
        if lease.state is not LeaseState.ACTIVE:
            return lease
        after = self.repo.release(lease_id, self.clock.utcnow()) or lease
        self._ended([after])
        return after

    def get(self, lease_id: str, caller: str | None = None) -> Lease:
        return self._lease(lease_id, caller)

    def list(self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str) -> Page[Lease]:
        if scope and scope not in Scope._value2member_map_:
            raise InvalidArgument("isolation_key.scope is not a known scope", field="isolation_key.scope")
        if state and state not in LeaseState._value2member_map_:
            raise InvalidArgument("state is not a known lease state", field="state")
        self.reap()
        return self.repo.list_leases(scope, key_id, agent_id, state, page_size, page_token)

    def reap(self) -> int:
        """The scheduler's job: expire leases past their TTL (only ACTIVE ones), waking the next waiters.

        Storage is asked only when a lease this sidecar granted or renewed is due, or every 5 s for the
        whole fleet (leases of sidecars that are gone; a grant expires its own key's lapsed leases first)."""
        wall, now = self.clock.utcnow(), self.clock.monotonic()
        due = False
        with self._lock:
            while self._due and self._due[0][0] <= wall:
                when, lease_id = heapq.heappop(self._due)
                if self._watched.get(lease_id) == when:  # not ended or renewed since
                    del self._watched[lease_id]
                    due = True
            sweep = now >= self._next_sweep
        if not (due or sweep):
            return 0
        self._next_sweep = now + _SWEEP_EVERY
        expired = self.repo.reap(wall)
        self._ended(expired)
        if expired:
            log.info("leases expired", extra={"count": len(expired)})
        return len(expired)

    def prune_ended(self) -> int:
        """Forget leases that ended over a day ago (the scheduler's `lease-prune` job, once fleet-wide
        every `PRUNE_EVERY` seconds)."""
        return self.repo.prune_leases(self.clock.utcnow() - _KEEP_ENDED)

    def revoke_agent_leases(self, agent_id: str, actor: str = "system") -> int:
        """The kill switch: every active lease of the agent, wherever it was granted, is REVOKED and its
        slot handed on; the agent's waiting acquires, on every sidecar, fail with FAILED_PRECONDITION.
        Returns the number of leases revoked. Blocking (call it off the event loop)."""
        validate_holder(agent_id)
        revoked = self.repo.revoke_agent(agent_id, self.clock.utcnow())
        self._ended(revoked)
        self._wake_all()  # its own waits here find their rows marked killed
        if revoked:
            self.audit.record(actor, "lease.revoke_agent", agent_id, {"leases": [le.lease_id for le in revoked]})
            log.info("leases revoked", extra={"agent_id": agent_id, "count": len(revoked)})
        return len(revoked)

    def waiting(self, key: IsolationKey) -> int:
        """How many callers wait for a slot of `key`, fleet-wide (for tests and the console)."""
        return self.repo.waiters(key)
