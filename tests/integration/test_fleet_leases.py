"""Execution leases shared by several sidecars: three LeaseServices in one process on one real database
(PostgreSQL, and SQLite's single sidecar running the same code). Without listeners a waiter finds a freed
slot by its poll (50 ms here); with them (PostgreSQL) the NOTIFY wakes it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from server.adapters.memory.safeguards import MemoryAudit
from server.domain.errors import FailedPrecondition
from server.domain.safeguards.leases import IsolationKey, LeaseState, Scope, SlotPolicy
from server.services.safeguards.leases import LeaseService
from server.services.safeguards.settings import LeaseSettings
from server.storage.fleet.changes import ChangeLog
from server.storage.safeguards.leases import SqlLeaseRepository
from tests.fakes import FakeClock

KEY = IsolationKey(Scope.GLOBAL, "")


class Fleet:
    def __init__(
        self,
        engine: Engine,
        n: int = 3,
        listen: bool = False,
        poll: float = 0.05,
        slots: int = 1,
        feed_poll: float = 0.2,
    ) -> None:
        self.engine, self.poll, self.slots, self.feed_poll = engine, poll, slots, feed_poll
        self.clock = FakeClock()
        self.feeds: list[ChangeLog] = []
        self.started: list[LeaseService] = []  # every service started, restarted ones included
        self.services = [self.start(f"sc{i}", listen) for i in range(n)]

    def start(self, name: str, listen: bool = False) -> LeaseService:
        feed = ChangeLog(self.engine, name, poll_interval=self.feed_poll) if listen else None
        svc = LeaseService(
            SqlLeaseRepository(self.engine, feed),
            self.clock,
            LeaseSettings(SlotPolicy(self.slots), ttl=30.0),
            MemoryAudit(),
            poll_interval=self.poll,
        )
        svc.load()
        self.started.append(svc)
        if feed is not None:
            svc.attach(feed)
            feed.start()
            assert feed.wait_connected(10)
            self.feeds.append(feed)
        return svc

    def close(self) -> None:
        for feed in self.feeds:
            feed.stop()
        for svc in self.started:
            svc.close()  # waits for the give-backs of abandoned callers, before the engine is disposed


@pytest.fixture
def fleet_of(engine: Engine) -> Iterator[Callable[..., Fleet]]:
    """Fleets of LeaseServices on `engine`, closed after the test (before the engine is disposed)."""
    made: list[Fleet] = []

    def make(**kw: Any) -> Fleet:
        made.append(Fleet(engine, **kw))
        return made[-1]

    yield make
    for fleet in made:
        fleet.close()


async def queued(
    svc: LeaseService, n: int, timeout: float = 30.0, exactly: bool = False, key: IsolationKey = KEY
) -> None:
    """Until `n` callers wait on `key` (`exactly`: until no more than `n` do: abandoned ones leave off the loop)."""
    deadline = time.monotonic() + timeout
    while (got := await asyncio.to_thread(svc.waiting, key)) < n or (exactly and got > n):
        assert time.monotonic() < deadline, "the waiters did not queue"
        await asyncio.sleep(0.005)


def test_one_slot_is_exclusive_across_three_sidecars(fleet_of: Callable[..., Fleet]) -> None:
    fleet = fleet_of()

    async def main() -> None:
        tasks = [asyncio.create_task(svc.acquire(KEY, f"agent-{i}")) for i, svc in enumerate(fleet.services)]
        await queued(fleet.services[0], 2)
        done = [t for t in tasks if t.done()]
        assert len(done) == 1  # one holder; the other two wait
        holder, _ = done[0].result()
        active = fleet.services[1].list(4, "", "", int(LeaseState.ACTIVE), 100, "").items
        assert [le.lease_id for le in active] == [holder.lease_id]
        for t in tasks:
            if not t.done():
                t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await queued(fleet.services[0], 0, exactly=True)  # the cancelled callers left the queue

    asyncio.run(main())


def test_fifo_across_sidecars_and_fencing_tokens_only_grow(fleet_of: Callable[..., Fleet]) -> None:
    fleet = fleet_of()
    a, b, c = fleet.services

    async def main() -> None:
        first, _ = await a.acquire(KEY, "holder")
        order: list[str] = []

        async def wait(svc: LeaseService, agent: str) -> Any:
            lease, _ = await svc.acquire(KEY, agent)
            order.append(agent)
            return lease

        tasks = []
        for n, (svc, agent) in enumerate(((b, "w-b"), (c, "w-c"), (a, "w-a"), (b, "w-b2"))):
            tasks.append(asyncio.create_task(wait(svc, agent)))
            await queued(a, n + 1)
        holder, tokens = first, [first.fencing_token]
        releasers = [c, a, b, c]
        for svc, task in zip(releasers, tasks, strict=True):
            await asyncio.to_thread(svc.release, holder.lease_id)  # released on any sidecar
            holder = await task
            tokens.append(holder.fencing_token)
        assert order == ["w-b", "w-c", "w-a", "w-b2"]
        assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens)
        # A restarted sidecar continues the key's one counter.
        again = fleet.start("sc0-restarted")
        await asyncio.to_thread(b.release, holder.lease_id)
        after, _ = await again.acquire(KEY, "later")
        assert after.fencing_token == tokens[-1] + 1

    asyncio.run(main())


def test_a_restarted_sidecar_holds_no_phantom_lease(fleet_of: Callable[..., Fleet]) -> None:
    fleet = fleet_of()
    a, b, _ = fleet.services

    async def main() -> None:
        held, _ = await a.acquire(KEY, "x")
        restarted = fleet.start("sc0-restarted")  # A's process is gone; its lease is a row
        await asyncio.to_thread(b.release, held.lease_id)
        lease, waited = await asyncio.wait_for(restarted.acquire(KEY, "y"), 30.0)
        assert waited == 0.0 and lease.fencing_token == held.fencing_token + 1

    asyncio.run(main())


def test_the_reaper_expires_only_active_leases(fleet_of: Callable[..., Fleet]) -> None:
    fleet = fleet_of()
    a, b, c = fleet.services

    async def main() -> None:
        released, _ = await a.acquire(KEY, "r", ttl=1.0)
        await asyncio.to_thread(a.release, released.lease_id)
        expiring, _ = await b.acquire(KEY, "e", ttl=1.0)
        fleet.clock.advance(2)
        counts = [await asyncio.to_thread(svc.reap) for svc in (a, b, c)]
        assert sorted(counts) == [0, 0, 1]  # three reapers, one expiry
        assert c.get(released.lease_id).state is LeaseState.RELEASED  # never overwritten with EXPIRED
        assert c.get(expiring.lease_id).state is LeaseState.EXPIRED
        late = await asyncio.to_thread(a.release, expiring.lease_id)  # a release after expiry changes nothing
        assert late.state is LeaseState.EXPIRED
        with pytest.raises(FailedPrecondition, match="expired"):
            await asyncio.to_thread(b.renew, expiring.lease_id)

    asyncio.run(main())


def test_a_killed_agents_leases_are_revoked_wherever_they_were_granted(fleet_of: Callable[..., Fleet]) -> None:
    fleet = fleet_of()
    a, b, c = fleet.services
    other = IsolationKey(Scope.USER, "bob")

    async def main() -> None:
        on_a, _ = await a.acquire(KEY, "victim")
        on_b, _ = await b.acquire(other, "victim")
        await c.acquire(IsolationKey(Scope.SESSION, "s"), "someone")
        its_wait = asyncio.create_task(b.acquire(IsolationKey(Scope.SESSION, "s"), "victim"))
        next_one = asyncio.create_task(a.acquire(KEY, "next"))
        await queued(a, 1)
        await queued(b, 1, key=IsolationKey(Scope.SESSION, "s"))  # the victim waits too before the kill
        assert await asyncio.to_thread(c.revoke_agent_leases, "victim") == 2
        with pytest.raises(FailedPrecondition, match="was killed"):
            await asyncio.wait_for(its_wait, 30.0)
        lease, _ = await asyncio.wait_for(next_one, 30.0)
        assert lease.agent_id == "next"
        assert {a.get(on_a.lease_id).state, a.get(on_b.lease_id).state} == {LeaseState.REVOKED}

    asyncio.run(main())


def test_a_dead_sidecars_waiter_goes_stale_and_does_not_hold_the_queue(fleet_of: Callable[..., Fleet]) -> None:
    fleet = fleet_of()
    a, b, _ = fleet.services

    async def main() -> None:
        held, _ = await a.acquire(KEY, "x")
        dead = asyncio.create_task(b.acquire(KEY, "dead"))
        await queued(a, 1)
        dead.cancel()
        await asyncio.gather(dead, return_exceptions=True)
        await queued(a, 0, exactly=True)  # a cancelled caller leaves the queue
        repo = SqlLeaseRepository(fleet.engine)
        now = fleet.clock.utcnow()
        await asyncio.to_thread(repo.try_acquire, KEY, 1, "ghost", 30.0, "", now, None, now)  # a row left behind
        assert await asyncio.to_thread(a.waiting, KEY) == 1
        await asyncio.to_thread(a.release, held.lease_id)
        fleet.clock.advance(6)  # past LeaseService.stale_waiter: nobody refreshed the ghost's row
        lease, _ = await asyncio.wait_for(a.acquire(KEY, "alive"), 30.0)
        assert lease.agent_id == "alive"

    asyncio.run(main())


def test_with_listeners_a_release_wakes_a_waiter_on_another_sidecar_at_once(
    fleet_of: Callable[..., Fleet], db_url: str
) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("notifications are PostgreSQL's (SQLite serves one sidecar)")
    # Neither the waiters' poll nor the change feed's counter poll runs within the test (an hour each): only
    # the NOTIFY can wake the waiter. How fast is measured by `make bench` (the p99 in docs/benchmarks.md).
    fleet = fleet_of(listen=True, poll=3600.0, feed_poll=3600.0)
    a, b, _ = fleet.services

    async def main() -> None:
        held, _ = await a.acquire(KEY, "x")
        waiter = asyncio.create_task(b.acquire(KEY, "y"))
        await queued(a, 1)
        await asyncio.to_thread(a.release, held.lease_id)
        lease, _ = await asyncio.wait_for(waiter, 60.0)
        assert lease.agent_id == "y"

    asyncio.run(main())
