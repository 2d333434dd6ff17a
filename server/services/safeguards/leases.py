"""Execution leases as a service (the SandboxExecutionGuard contract): slots per isolation key, a FIFO of
waiters, fencing tokens, expiry and revocation — for one sidecar or a fleet.

The database is the truth (server/storage/safeguards/leases.py); this process keeps no slot counts. A
grant is one transaction under the key's row lock: it expires the key's lapsed leases, counts the
ACTIVE ones and the waiters queued ahead, and takes the next fencing token from the key's one counter,
so a slot count is the fleet's and tokens only grow, across sidecars and restarts. Waiters are rows in
the order they queued: FIFO across sidecars. A waiting AcquireLease holds a coroutine, not a thread. A
release hands the slot on in its own transaction: when the next waiters in the key's queue wait in this
process, they are granted there (a `HandOver`), so one commit both ends a lease and starts the next, and the
waiter is answered from memory once that commit is done. Otherwise (the next waiter waits on another
sidecar, or the slot ended by expiry or revocation) the waiters try again themselves: when a lease of
their key ends here or on another sidecar (announced on the "leases" topic), and at least every
`poll_interval` without notifications. A waiter
keeps its row fresh while it waits; the row of a sidecar that died is dropped after `stale_waiter`
seconds, so it cannot hold the queue. A caller that gives up (deadline, cancellation) leaves the queue;
if the slot reached it at that very moment, the lease is given back at once.

Storage work always runs off the event loop. Expiry compares each lease's `expire_time` with the
sidecar's clock: the fleet's hosts keep their clocks in sync (NTP).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

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
# Storage work of leases runs on a pool of its own: a release waits for its group commit on a thread, and
# the asyncio default pool (CPU count + 4 threads) would split the grants and releases of one moment into
# several commits.
STORAGE_THREADS = 32
T = TypeVar("T")


@dataclass(eq=False)
class Waiter:
    """A caller of this process waiting in a key's queue, whose row in storage is `waiter_id`."""

    waiter_id: str
    key: IsolationKey
    agent_id: str
    ttl: float
    request_id: str
    loop: asyncio.AbstractEventLoop
    event: asyncio.Event
    lease: Lease | None = None  # handed to it by a committed transaction, not yet taken
    gone: bool = False  # it stopped waiting (answered, gave up, failed)
    taken: str = ""  # the id of the lease it was answered with


def lease_for(waiter_id: str) -> str:
    """The id of the lease a hand-over grants to the waiter `waiter_id` ("lwt_<hex>" -> "lse_<hex>"): a
    waiter whose row vanished finds its grant by it, and a retried grant cannot make a second one."""
    return "lse_" + waiter_id.removeprefix("lwt_")


@dataclass(frozen=True)
class HandOver:
    """This process's waiters, for a transaction that frees a slot: the next waiters of the key in FIFO order
    that wait here are granted in that transaction; the first that does not is left to try itself.

    `limit` gives a key's slots (None: unlimited); `waiter` finds the caller waiting on a row here (None when
    it waits elsewhere, gave up or is not registered yet). After the commit (never for a rolled-back
    transaction) storage calls `committed(grants, unserved)`: the waiters granted with their leases, and the
    keys whose next waiters were not served (they are woken to try)."""

    now: datetime
    stale_before: datetime
    limit: Callable[[IsolationKey], int | None]
    waiter: Callable[[str], Waiter | None]
    committed: Callable[[Sequence[tuple[Waiter, Lease]], Sequence[IsolationKey]], None]


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
        would take the slot first; otherwise queue a new caller. A waiter whose row a hand-over removed
        gets the lease it was granted (`lease_for(waiter_id)`). A waiter's row is refreshed (`now`);
        other waiters not refreshed since `stale_before` are dropped. A request id the agent used before
        answers its lease. Returns (lease, "") or (None, the waiter's id). Raises FailedPrecondition
        AGENT_KILLED when the waiter's agent was killed meanwhile."""
        ...

    def leave_queue(self, waiter_id: str, hand_over: HandOver | None = None) -> None:
        """Drop the waiter's row (its lease granted by a hand-over stays: give that back with `release`);
        with `hand_over`, a slot it was ahead for goes to the next waiters here."""
        ...

    def waiters(self, key: IsolationKey) -> int: ...

    def renew(self, lease_id: str, ttl: float, now: datetime) -> Lease | None:
        """Extend an ACTIVE lease not past its expiry (a lapsed one is expired now); the lease after it."""
        ...

    def release(
        self, lease_id: str, now: datetime, hand_over: HandOver | None = None, holder: str | None = None
    ) -> Lease | None:
        """ACTIVE → RELEASED (only ACTIVE: an ended lease keeps its state; with `holder`, only the holder's
        lease: another agent's is answered unchanged); the lease after it. With `hand_over`, the slot a
        release frees goes to the next waiters here in the same transaction."""
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
        self._waiters: dict[str, Waiter] = {}  # waiter id -> the caller waiting on that row here
        self._due: list[tuple[datetime, str]] = []  # (expire time, lease id) of leases granted or renewed here
        self._watched: dict[str, datetime] = {}  # lease id -> its expiry, while this process knows it ACTIVE
        self._next_sweep = 0.0
        self._pool: ThreadPoolExecutor | None = None
        self._giving: set[threading.Thread] = set()  # give-backs still running (close waits for them)

    # ---- lifecycle -------------------------------------------------------------------------

    def load(self) -> None:
        """Nothing to load: the database holds every lease and waiter."""

    def attach(self, feed: ChangeFeed) -> None:
        """Wake this process's waiters when another sidecar ends a lease of their key."""
        feed.subscribe(TOPIC, self._wake, self._wake_all)

    def close(self, timeout: float = 5.0) -> None:
        """Stops the storage threads, and waits (at most `timeout` seconds in all) for the give-backs still
        running: a slot an abandoned caller was handed goes back before the storage behind it closes."""
        with self._lock:
            pool, self._pool = self._pool, None
            giving = list(self._giving)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        for t in giving:
            t.join(max(0.0, deadline - time.monotonic()))

    def _in_background(self, fn: Callable[..., object], *args: object) -> None:
        """`fn(*args)` on a thread of its own, outside the caller's context (its idempotency guard), tracked
        so that `close` waits for it."""

        def run() -> None:
            try:
                fn(*args)
            finally:
                with self._lock:
                    self._giving.discard(thread)

        thread = threading.Thread(target=run, name="lease-give-back", daemon=True)
        with self._lock:
            self._giving.add(thread)
        thread.start()

    def _off_loop(self, fn: Callable[..., T], *args: object) -> asyncio.Future[T]:
        """`fn(*args)` on the leases' storage threads, in the caller's context (the call's idempotency guard)."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(STORAGE_THREADS, thread_name_prefix="leases")
            pool = self._pool
        context = contextvars.copy_context()
        return asyncio.get_running_loop().run_in_executor(pool, context.run, fn, *args)

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

    def _ended(self, leases: Sequence[Lease], wake: bool = True) -> None:
        with self._lock:
            for le in leases:
                self._watched.pop(le.lease_id, None)
        if wake:
            for key in {le.key.text for le in leases}:
                self._wake(key)

    # ---- handing slots over ----------------------------------------------------------------

    def _hand_over(self) -> HandOver:
        now = self.clock.utcnow()
        return HandOver(
            now, now - timedelta(seconds=self.stale_waiter), self.settings.slots.slots_for, self._waiter, self._handed
        )

    def _waiter(self, waiter_id: str) -> Waiter | None:
        with self._lock:
            w = self._waiters.get(waiter_id)
        return None if w is None or w.gone else w

    def _handed(self, grants: Sequence[tuple[Waiter, Lease]], unserved: Sequence[IsolationKey]) -> None:
        """Committed: each granted waiter gets its lease (or, when it stopped waiting meanwhile, the slot
        is given back at once); the keys whose next waiter waits elsewhere wake their waiters here."""
        for w, lease in grants:
            self._watch(lease)
            with self._lock:
                deliver = not w.gone
                if deliver:
                    w.lease = lease
            if deliver:
                with contextlib.suppress(RuntimeError):  # the loop is closed: the sidecar is stopping
                    w.loop.call_soon_threadsafe(w.event.set)
            elif w.taken != lease.lease_id:  # on a thread of its own: not in this call's context (its guard)
                self._in_background(self._give_back, lease)
        for key in unserved:
            self._wake(key.text)

    def _give_back(self, lease: Lease) -> None:
        try:
            self.release(lease.lease_id)
        except Exception:
            log.exception("could not give back a lease nobody waits for", extra={"lease_id": lease.lease_id})

    def _queue(self, w: Waiter, old: str | None) -> None:
        with self._lock:
            if old is not None:
                self._waiters.pop(old, None)
            self._waiters[w.waiter_id] = w

    def _done(self, w: Waiter | None, lease: Lease | None) -> Lease | None:
        """The waiter stops waiting, answered with `lease` (None: it gives up). Returns a lease handed to
        it that it does not take, for the caller to give back."""
        if w is None:
            return None
        with self._lock:
            w.gone = True
            self._waiters.pop(w.waiter_id, None)
            handed, w.lease = w.lease, None
            if lease is not None:
                w.taken = lease.lease_id
        return handed if handed is not None and (lease is None or handed.lease_id != lease.lease_id) else None

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
        me: Waiter | None = None
        entry = self._register(key)  # before trying: a release in between still wakes this call
        loop, event = entry
        try:
            while True:
                event.clear()
                attempt = self._off_loop(self._try, key, agent_id, seconds, request_id, waiter)
                try:
                    lease, waiter_id = await asyncio.shield(attempt)
                except BaseException:
                    self._abandon(attempt, waiter, me)
                    raise
                if lease is None and me is not None and me.lease is not None:
                    lease = me.lease  # handed over while its own try found the slot still taken
                if lease is not None:
                    extra = self._done(me, lease)
                    if extra is not None:  # cannot happen (one grant per row), but never hold two slots
                        self._in_background(self._give_back, extra)
                    waited = 0.0 if waiter is None else max(0.0, self.clock.monotonic() - started)
                    return lease, waited
                if waiter_id != waiter:  # queued (again, when its row was dropped as stale)
                    old, waiter = waiter, waiter_id
                    me = Waiter(waiter_id, key, agent_id, seconds, request_id, loop, event)
                    self._queue(me, old)
                try:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.poll_interval):  # no task of its own, unlike wait_for
                            await event.wait()
                except BaseException:
                    self._abandon(None, waiter, me)
                    raise
                if me is not None and me.lease is not None:  # handed over: answered from memory
                    lease = me.lease
                    self._done(me, lease)
                    return lease, max(0.0, self.clock.monotonic() - started)
        finally:
            self._unregister(key, entry)

    def _abandon(
        self, attempt: asyncio.Future[tuple[Lease | None, str]] | None, waiter: str | None, me: Waiter | None
    ) -> None:
        """The caller gave up: leave the queue, and give back a slot that reached it as it went."""
        handed = self._done(me, None)

        def give_back(lease: Lease | None, waiter_id: str) -> None:
            try:
                for le in {le.lease_id: le for le in (lease, handed) if le is not None}.values():
                    self.release(le.lease_id)
                for w in {waiter, waiter_id} - {None, ""}:
                    self.repo.leave_queue(w, self._hand_over())  # type: ignore[arg-type]
            except Exception:
                log.exception("could not leave the lease queue", extra={"waiter": waiter_id or waiter})

        if attempt is None:
            self._in_background(give_back, None, "")
            return

        def done(fut: asyncio.Future[tuple[Lease | None, str]]) -> None:
            if fut.cancelled() or fut.exception() is not None:
                self._in_background(give_back, None, "")
                return
            lease, waiter_id = fut.result()
            self._in_background(give_back, lease, waiter_id)

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
        """Give the slot back (idempotent: the lease in its final state). The slot goes to the next waiter
        in the same transaction when it waits here; others are woken to try."""
        if not lease_id:
            raise InvalidArgument("lease_id is required", field="lease_id")
        after = self.repo.release(lease_id, self.clock.utcnow(), self._hand_over(), caller)
        if after is None:
            raise NotFound(f"no lease has id {lease_id!r}", field="lease_id")
        if caller is not None and after.agent_id != caller:
            raise PermissionDenied(
                f"agent credential {caller!r} may only use its own leases", reason="NOT_YOUR_AGENT", field="lease_id"
            )
        self._ended([after], wake=False)  # the hand-over woke whom it did not serve
        return after

    async def release_async(self, lease_id: str, caller: str | None = None) -> Lease:
        """`release` on the leases' storage threads (for the event loop)."""
        return await self._off_loop(self.release, lease_id, caller)

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
