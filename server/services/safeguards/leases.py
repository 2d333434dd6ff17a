"""Execution leases as a service (the SandboxExecutionGuard contract): slots per isolation key, a FIFO of
waiters, fencing tokens, expiry and revocation.

A waiting AcquireLease holds a coroutine, not a thread: it awaits a future that whoever frees the slot
(a release, the expiry reaper, a revocation — on any thread) resolves in FIFO order. A caller that gives
up (deadline, cancellation) leaves the queue; if the slot reached it at that very moment, the lease is
given back at once. Leases and each key's last fencing token are written through before the answer,
so fencing tokens keep growing across restarts and active leases come back with their expiry.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import secrets
import threading
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards.leases import IsolationKey, Lease, LeaseState, Scope, validate_holder
from server.services.ports import AuditSink, Clock, Page
from server.services.safeguards.journal import Change, Journal
from server.services.safeguards.settings import LeaseSettings

log = logging.getLogger(__name__)

_MAX_TTL = 86400.0
_RECENT = 10_000  # ended leases kept in memory (older ones are read from storage)
_KEEP_ENDED = timedelta(days=1)  # ended leases older than this are pruned from storage
_PRUNE_EVERY = 3600.0


class LeaseRepository(Protocol):
    def load_leases(self) -> tuple[list[Lease], dict[str, int]]:
        """The active leases, and each key's last fencing token (by `IsolationKey.text`)."""
        ...

    def save_leases(self, changes: Sequence[Change]) -> None:
        """("lease", id, Lease) and ("key", key text, last fencing token), in one transaction."""
        ...

    def get_lease(self, lease_id: str) -> Lease | None: ...

    def list_leases(
        self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str
    ) -> Page[Lease]:
        """Newest first; 0 / "" filters are off."""
        ...

    def prune_leases(self, ended_before: datetime) -> int: ...


@dataclass(eq=False)
class _Waiter:
    agent_id: str
    ttl: float
    request_id: str
    future: asyncio.Future[Lease]
    lease: Lease | None = None  # set, under the lock, when the slot is handed over
    version: int = 0


@dataclass(eq=False)
class _Slots:
    key: IsolationKey
    limit: int | None  # None: unlimited (noop)
    active: dict[str, Lease] = field(default_factory=dict)
    waiters: deque[_Waiter] = field(default_factory=deque)

    def free(self) -> bool:
        return self.limit is None or len(self.active) < self.limit


def _resolve(future: asyncio.Future[Lease], lease: Lease | None, error: Exception | None) -> None:
    if future.done():
        return  # the caller gave up; its cancellation handler gives the lease back
    if error is not None:
        future.set_exception(error)
    elif lease is not None:
        future.set_result(lease)


class LeaseService:
    def __init__(self, repo: LeaseRepository, clock: Clock, settings: LeaseSettings, audit: AuditSink) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.audit = audit
        self._lock = threading.RLock()
        self._slots: dict[str, _Slots] = {}
        self._fencing: dict[str, int] = {}
        self._leases: dict[str, Lease] = {}  # active and recently ended
        self._recent: OrderedDict[str, None] = OrderedDict()  # ended, oldest first
        self._expiry: list[tuple[float, str]] = []
        self._requests: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._next_prune = 0.0
        self._journal = Journal(self._lock, self._snapshot, repo.save_leases, "execution leases")

    # ---- lifecycle -------------------------------------------------------------------------

    def load(self) -> None:
        active, fencing = self.repo.load_leases()
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        self._next_prune = now + 600  # not at start-up: the reaper runs every 50 ms and must stay cheap
        with self._lock:
            self._fencing = dict(fencing)
            for lease in active:
                lease.expires_at = now + (lease.expire_time - wall).total_seconds()
                self._leases[lease.lease_id] = lease
                self._slots_for(lease.key).active[lease.lease_id] = lease
                heapq.heappush(self._expiry, (lease.expires_at, lease.lease_id))
                if lease.request_id:
                    self._requests[(lease.agent_id, lease.request_id)] = lease.lease_id
        log.info("execution leases loaded", extra={"active": len(active), "keys": len(fencing)})

    def _snapshot(self, kind: str, key: str) -> Any:
        if kind == "key":
            return self._fencing.get(key, 0)
        lease = self._leases.get(key)
        return lease.copy() if lease else None

    # ---- internals (caller holds the lock) --------------------------------------------------

    def _slots_for(self, key: IsolationKey) -> _Slots:
        slots = self._slots.get(key.text)
        if slots is None:
            slots = self._slots[key.text] = _Slots(key, self.settings.slots.slots_for(key))
        return slots

    def _grant(self, slots: _Slots, agent_id: str, ttl: float, request_id: str) -> tuple[Lease, int]:
        now, wall = self.clock.monotonic(), self.clock.utcnow()
        text = slots.key.text
        self._fencing[text] = self._fencing.get(text, 0) + 1
        lease = Lease(
            "lse_" + secrets.token_hex(10),
            slots.key,
            agent_id,
            self._fencing[text],
            ttl,
            wall,
            wall + timedelta(seconds=ttl),
            now + ttl,
            request_id=request_id,
        )
        slots.active[lease.lease_id] = lease
        self._leases[lease.lease_id] = lease
        heapq.heappush(self._expiry, (lease.expires_at, lease.lease_id))
        if request_id:
            self._requests[(agent_id, request_id)] = lease.lease_id
            while len(self._requests) > _RECENT:
                self._requests.popitem(last=False)
        self._journal.mark("key", text)
        return lease, self._journal.mark("lease", lease.lease_id)

    def _hand_over(self, slots: _Slots) -> int:
        """Give free slots to the waiters, first come first served."""
        version = 0
        while slots.free() and slots.waiters:
            w = slots.waiters.popleft()
            if w.future.done():
                continue  # gave up; its handler finds no lease and goes
            w.lease, w.version = self._grant(slots, w.agent_id, w.ttl, w.request_id)
            version = w.version
            self._wake(w, w.lease.copy(), None)
        if not slots.active and not slots.waiters:
            self._slots.pop(slots.key.text, None)
        return version

    def _wake(self, w: _Waiter, lease: Lease | None, error: Exception | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the sidecar is stopping
            w.future.get_loop().call_soon_threadsafe(_resolve, w.future, lease, error)

    def _end(self, lease: Lease, state: LeaseState) -> int:
        lease.state, lease.end_time = state, self.clock.utcnow()
        version = self._journal.mark("lease", lease.lease_id)
        self._recent[lease.lease_id] = None
        while len(self._recent) > _RECENT:
            old, _ = self._recent.popitem(last=False)
            self._leases.pop(old, None)
        slots = self._slots.get(lease.key.text)
        if slots is not None:
            slots.active.pop(lease.lease_id, None)
            version = max(version, self._hand_over(slots))
        return version

    def _reap(self) -> tuple[int, int]:
        now = self.clock.monotonic()
        version = count = 0
        if len(self._expiry) > 4 * len(self._leases) + 1024:  # renewals and releases leave entries behind
            live = [le for le in self._leases.values() if le.state is LeaseState.ACTIVE]
            self._expiry = [(le.expires_at, le.lease_id) for le in live]
            heapq.heapify(self._expiry)
        while self._expiry and self._expiry[0][0] <= now:
            _, lease_id = heapq.heappop(self._expiry)
            lease = self._leases.get(lease_id)
            if lease is not None and lease.expired(now):
                version = max(version, self._end(lease, LeaseState.EXPIRED))
                count += 1
        return version, count

    def _lease(self, lease_id: str, caller: str | None) -> Lease:
        if not lease_id:
            raise InvalidArgument("lease_id is required", field="lease_id")
        lease = self._leases.get(lease_id) or self.repo.get_lease(lease_id)
        if lease is None:
            raise NotFound(f"no lease has id {lease_id!r}", field="lease_id")
        if caller is not None and lease.agent_id != caller:
            raise PermissionDenied(
                f"agent credential {caller!r} may only use its own leases", reason="NOT_YOUR_AGENT", field="lease_id"
            )
        return lease

    def _ttl(self, ttl: float | None, default: float) -> float:
        if ttl is None:
            return default
        if not 0 < ttl <= _MAX_TTL:
            raise InvalidArgument(f"ttl must be positive and at most {_MAX_TTL:g}s", field="ttl")
        return ttl

    # ---- the API ---------------------------------------------------------------------------

    async def acquire(
        self, key: IsolationKey, agent_id: str, ttl: float | None = None, request_id: str = ""
    ) -> tuple[Lease, float]:
        """Take a slot of `key`, waiting in FIFO order until one is free. Cancel the awaiting task to give
        up (a gRPC deadline or cancellation does). Returns the lease and the seconds waited."""
        validate_holder(agent_id)
        seconds = self._ttl(ttl, self.settings.ttl)
        started = self.clock.monotonic()
        loop = asyncio.get_running_loop()
        waiter: _Waiter | None = None
        with self._lock:
            reaped, _ = self._reap()
            if request_id and (agent_id, request_id) in self._requests:
                lease = self._lease(self._requests[(agent_id, request_id)], None).copy()
                version = reaped
            else:
                slots = self._slots_for(key)
                if slots.free() and not slots.waiters:
                    granted, version = self._grant(slots, agent_id, seconds, request_id)
                    lease = granted.copy()
                    version = max(version, reaped)
                else:
                    waiter = _Waiter(agent_id, seconds, request_id, loop.create_future())
                    slots.waiters.append(waiter)
                    version = reaped
        if waiter is None:
            if not self._journal.is_durable(version):
                await asyncio.to_thread(self._journal.commit, version)
            return lease, 0.0
        try:
            lease = await waiter.future
        except BaseException:
            self._give_up(key, waiter)
            raise
        if not self._journal.is_durable(waiter.version):
            await asyncio.to_thread(self._journal.commit, waiter.version)
        return lease, max(0.0, self.clock.monotonic() - started)

    def _give_up(self, key: IsolationKey, waiter: _Waiter) -> None:
        with self._lock:
            granted = waiter.lease
            if granted is None:
                slots = self._slots.get(key.text)
                if slots is not None and waiter in slots.waiters:
                    slots.waiters.remove(waiter)
                    if not slots.active and not slots.waiters:
                        self._slots.pop(key.text, None)
                return
        # The slot reached the caller as it gave up: hand it on, off the loop (it writes to storage).
        threading.Thread(target=self._release_quietly, args=(granted.lease_id,), daemon=True).start()

    def _release_quietly(self, lease_id: str) -> None:
        try:
            self.release(lease_id)
        except Exception:
            log.exception("could not give back an abandoned lease", extra={"lease_id": lease_id})

    def renew(self, lease_id: str, ttl: float | None = None, caller: str | None = None) -> Lease:
        """Extend an active lease to now + ttl (default: its ttl); the fencing token stays."""
        with self._lock:
            version, _ = self._reap()
            lease = self._lease(lease_id, caller)
            ended = lease.state if lease.state is not LeaseState.ACTIVE else None
        if ended is not None:
            self._journal.commit(version)  # never under the state lock: commit takes it itself
            raise FailedPrecondition(
                f"lease {lease_id!r} is no longer active: it was {ended.name.lower()}; acquire a new one",
                reason=f"LEASE_{ended.name}",
            )
        with self._lock:
            lease = self._lease(lease_id, caller)
            if lease.state is not LeaseState.ACTIVE:  # ended between the two looks
                raise FailedPrecondition(f"lease {lease_id!r} is no longer active", reason=f"LEASE_{lease.state.name}")
            seconds = self._ttl(ttl, lease.ttl)
            lease.ttl = seconds
            lease.expires_at = self.clock.monotonic() + seconds
            lease.expire_time = self.clock.utcnow() + timedelta(seconds=seconds)
            heapq.heappush(self._expiry, (lease.expires_at, lease.lease_id))
            version = self._journal.mark("lease", lease_id)
            out = lease.copy()
        self._journal.commit(version)
        return out

    def release(self, lease_id: str, caller: str | None = None) -> Lease:
        """Give the slot back (idempotent: the lease in its final state)."""
        with self._lock:
            version, _ = self._reap()
            lease = self._lease(lease_id, caller)
            if lease.state is LeaseState.ACTIVE:
                version = max(version, self._end(lease, LeaseState.RELEASED))
            out = lease.copy()
        self._journal.commit(version)
        return out

    def get(self, lease_id: str, caller: str | None = None) -> Lease:
        with self._lock:
            version, _ = self._reap()
            out = self._lease(lease_id, caller).copy()
        self._journal.commit(version)
        return out

    def list(self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str) -> Page[Lease]:
        if scope and scope not in Scope._value2member_map_:
            raise InvalidArgument("isolation_key.scope is not a known scope", field="isolation_key.scope")
        if state and state not in LeaseState._value2member_map_:
            raise InvalidArgument("state is not a known lease state", field="state")
        self.reap()
        return self.repo.list_leases(scope, key_id, agent_id, state, page_size, page_token)

    def reap(self) -> int:
        """The scheduler's job: expire leases past their TTL and give their slots to the next waiters."""
        with self._lock:
            version, count = self._reap()
        self._journal.commit(version)
        now = self.clock.monotonic()
        if now >= self._next_prune:
            self._next_prune = now + _PRUNE_EVERY
            self.repo.prune_leases(self.clock.utcnow() - _KEEP_ENDED)
        if count:
            log.info("leases expired", extra={"count": count})
        return count

    def revoke_agent_leases(self, agent_id: str, actor: str = "system") -> int:
        """The kill switch: every active lease of the agent is REVOKED and its slot handed on; the agent's
        waiting acquires fail with FAILED_PRECONDITION. Returns the number of leases revoked. Thread-safe;
        returns once the revocations are durable."""
        validate_holder(agent_id)
        error = FailedPrecondition(f"agent {agent_id!r} was killed: its leases are revoked", reason="AGENT_KILLED")
        with self._lock:
            version, _ = self._reap()
            mine = [le for le in self._leases.values() if le.agent_id == agent_id and le.state is LeaseState.ACTIVE]
            for lease in mine:
                version = max(version, self._end(lease, LeaseState.REVOKED))
            for slots in list(self._slots.values()):
                for w in [w for w in slots.waiters if w.agent_id == agent_id]:
                    slots.waiters.remove(w)
                    self._wake(w, None, error)
        self._journal.commit(version)
        if mine:
            self.audit.record(actor, "lease.revoke_agent", agent_id, {"leases": [le.lease_id for le in mine]})
            log.info("leases revoked", extra={"agent_id": agent_id, "count": len(mine)})
        return len(mine)

    def waiting(self, key: IsolationKey) -> int:
        """How many callers wait for a slot of `key` (for tests and the console)."""
        with self._lock:
            slots = self._slots.get(key.text)
            return len(slots.waiters) if slots else 0
