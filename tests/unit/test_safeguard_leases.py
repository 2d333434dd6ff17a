"""Execution leases (the SandboxExecutionGuard contract): slots per key, FIFO waiters, fencing, expiry, cancellation,
revocation."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards.leases import IsolationKey, LeaseState, Scope, SlotPolicy, parse_slot_rules, validate_key
from server.services.safeguards.leases import LeaseService
from server.services.safeguards.settings import LeaseSettings
from tests.fakes import FakeClock
from tests.fakes.safeguards import MemoryAudit, MemorySafeguards

USER = IsolationKey(Scope.USER, "alice")


def service(
    repo: MemorySafeguards | None = None, clock: FakeClock | None = None, slots: SlotPolicy | None = None, **kw: Any
) -> LeaseService:
    svc = LeaseService(
        repo or MemorySafeguards(), clock or FakeClock(), LeaseSettings(slots or SlotPolicy(), **kw), MemoryAudit()
    )
    svc.load()
    return svc


async def settle(n: int = 5) -> None:
    """Let the waiters queue (each does its storage work on a worker thread)."""
    for _ in range(n):
        await asyncio.sleep(0.01)


class TestKeys:
    def test_validation(self) -> None:
        assert validate_key(4, "").text == "global:"
        for scope, ident in ((0, "x"), (9, "x"), (1, ""), (2, "x" * 257)):
            with pytest.raises(InvalidArgument):
                validate_key(scope, ident)

    def test_slot_policy(self) -> None:
        policy = SlotPolicy(1, parse_slot_rules({"global:": 4, "user:*": "noop"}, "k"))
        assert policy.slots_for(IsolationKey(Scope.GLOBAL)) == 4
        assert policy.slots_for(USER) is None
        assert policy.slots_for(IsolationKey(Scope.AGENT, "a")) == 1
        for bad in ({"nokey": 1}, {"planet:*": 1}, {"user:*": 0}, {"user:*": "many"}):
            with pytest.raises(InvalidArgument):
                parse_slot_rules(bad, "k")


def test_fifo_fencing_and_release_hands_the_slot_on() -> None:
    async def main() -> None:
        svc = service()
        first, waited = await svc.acquire(USER, "a1")
        assert (first.fencing_token, waited) == (1, 0.0)
        order: list[str] = []

        async def wait_for(agent: str) -> Any:
            lease, _ = await svc.acquire(USER, agent)
            order.append(agent)
            return lease

        tasks = []
        for agent in ("a2", "a3", "a4"):
            tasks.append(asyncio.create_task(wait_for(agent)))
            await settle()
        assert svc.waiting(USER) == 3
        holder, leases = first, []
        for task in tasks:
            svc.release(holder.lease_id)
            holder = await task
            leases.append(holder)
        assert order == ["a2", "a3", "a4"]
        assert [le.fencing_token for le in leases] == [2, 3, 4]

    asyncio.run(main())


def test_cancelled_waiter_leaves_the_queue() -> None:
    async def main() -> None:
        svc = service()
        held, _ = await svc.acquire(USER, "a1")
        gone = asyncio.create_task(svc.acquire(USER, "a2"))
        stays = asyncio.create_task(svc.acquire(USER, "a3"))
        await settle()
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert svc.waiting(USER) == 1
        svc.release(held.lease_id)
        lease, _ = await stays
        assert lease.agent_id == "a3" and lease.fencing_token == 2

    asyncio.run(main())


def test_close_waits_for_an_abandoned_callers_give_back() -> None:
    """The queue's row of a cancelled caller is left on a thread of its own; `close` (the sidecar stopping)
    waits for it, so it never runs against storage that is already closed."""
    repo = MemorySafeguards()
    entered, go, left = threading.Event(), threading.Event(), threading.Event()
    leave = repo.leave_queue

    def slow_leave(*args: Any) -> None:
        entered.set()
        go.wait(30)
        leave(*args)
        left.set()

    repo.leave_queue = slow_leave  # type: ignore[method-assign,assignment]
    svc = service(repo)

    async def main() -> None:
        await svc.acquire(USER, "a1")
        gone = asyncio.create_task(svc.acquire(USER, "a2"))
        await settle()
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone

    asyncio.run(main())
    assert entered.wait(30)
    closing = threading.Thread(target=svc.close, kwargs={"timeout": 60.0})
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # still waiting for the give-back
    go.set()
    closing.join(60)
    assert not closing.is_alive() and left.is_set()


def test_a_deadline_while_waiting_leaves_the_queue() -> None:
    async def main() -> None:
        svc = service()
        await svc.acquire(USER, "a1")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(svc.acquire(USER, "a2"), 0.05)
        assert svc.waiting(USER) == 0

    asyncio.run(main())


def test_expiry_is_reaped_and_the_slot_goes_to_the_next_waiter() -> None:
    async def main() -> None:
        clock = FakeClock()
        svc = service(clock=clock)
        held, _ = await svc.acquire(USER, "a1", ttl=5.0)
        waiter = asyncio.create_task(svc.acquire(USER, "a2"))
        await settle()
        clock.advance(4.9)
        assert svc.reap() == 0
        clock.advance(0.1)
        assert svc.reap() == 1
        lease, waited = await waiter
        assert (lease.agent_id, lease.fencing_token, waited) == ("a2", 2, pytest.approx(5.0))
        assert svc.get(held.lease_id).state is LeaseState.EXPIRED
        with pytest.raises(FailedPrecondition, match="expired"):
            svc.renew(held.lease_id)
        assert svc.release(held.lease_id).state is LeaseState.EXPIRED  # idempotent: the final state

    asyncio.run(main())


def test_renew_extends_and_keeps_the_token() -> None:
    async def main() -> None:
        clock = FakeClock()
        svc = service(clock=clock, ttl=10.0)
        held, _ = await svc.acquire(USER, "a1")
        clock.advance(8)
        renewed = svc.renew(held.lease_id)
        assert renewed.fencing_token == held.fencing_token and renewed.ttl == 10.0
        clock.advance(8)
        assert svc.reap() == 0
        with pytest.raises(InvalidArgument):
            svc.renew(held.lease_id, ttl=0)
        with pytest.raises(PermissionDenied):
            svc.renew(held.lease_id, caller="a2")
        with pytest.raises(NotFound):
            svc.renew("lse_nope")

    asyncio.run(main())


def test_noop_is_unlimited_and_slots_are_per_key() -> None:
    async def main() -> None:
        svc = service(slots=SlotPolicy(1, parse_slot_rules({"session:*": "noop", "global:": 2}, "k")))
        many = [await svc.acquire(IsolationKey(Scope.SESSION, "s"), f"a{i}") for i in range(20)]
        assert [le.fencing_token for le, _ in many] == list(range(1, 21))
        glob = IsolationKey(Scope.GLOBAL)
        await svc.acquire(glob, "a1")
        await svc.acquire(glob, "a2")
        third = asyncio.create_task(svc.acquire(glob, "a3"))
        await settle()
        assert not third.done()
        other, _ = await svc.acquire(IsolationKey(Scope.USER, "bob"), "a4")  # another key has its own slot
        assert other.fencing_token == 1
        third.cancel()
        with pytest.raises(asyncio.CancelledError):
            await third

    asyncio.run(main())


def test_revoking_an_agent_frees_its_slots_and_fails_its_waits() -> None:
    async def main() -> None:
        svc = service()
        held, _ = await svc.acquire(USER, "victim")
        other_key = IsolationKey(Scope.AGENT, "x")
        await svc.acquire(other_key, "someone")
        its_wait = asyncio.create_task(svc.acquire(other_key, "victim"))
        next_one = asyncio.create_task(svc.acquire(USER, "a2"))
        await settle()
        assert await asyncio.to_thread(svc.revoke_agent_leases, "victim") == 1
        with pytest.raises(FailedPrecondition, match="was killed"):
            await its_wait
        lease, _ = await next_one
        assert lease.agent_id == "a2" and svc.get(held.lease_id).state is LeaseState.REVOKED
        assert svc.revoke_agent_leases("victim") == 0

    asyncio.run(main())


def test_fencing_tokens_and_active_leases_survive_a_restart() -> None:
    async def main() -> None:
        repo, clock = MemorySafeguards(), FakeClock()
        svc = service(repo, clock)
        first, _ = await svc.acquire(USER, "a1", ttl=30)
        svc.release(first.lease_id)
        held, _ = await svc.acquire(USER, "a1", ttl=30)
        clock.advance(10)
        again = service(repo, clock)
        waiter = asyncio.create_task(again.acquire(USER, "a2"))
        await settle()
        assert not waiter.done()  # the restored lease still holds the slot
        clock.advance(20)
        again.reap()
        lease, _ = await waiter
        assert lease.fencing_token == 3 and again.get(held.lease_id).state is LeaseState.EXPIRED

    asyncio.run(main())


def test_request_id_returns_the_first_lease() -> None:
    async def main() -> None:
        svc = service()
        a, _ = await svc.acquire(USER, "a1", request_id="r1")
        b, _ = await svc.acquire(USER, "a1", request_id="r1")
        assert a.lease_id == b.lease_id

    asyncio.run(main())
