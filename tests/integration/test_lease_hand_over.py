"""A release hands its slot to the next FIFO waiter of this process in its own transaction (server/storage/
safeguards/leases.py, `HandOver`): one commit ends the lease and starts the next, which survives a restart; a
waiter on another sidecar is never skipped; a failed grouped commit answers every caller UNAVAILABLE and grants
nothing; a waiter that gives up as the slot reaches it gives it back; fencing tokens only grow under
concurrent acquires and releases. On the in-memory fake, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.exc import OperationalError

from server.adapters.memory.safeguards import MemoryAudit, MemorySafeguards
from server.domain.errors import Unavailable
from server.domain.safeguards.leases import IsolationKey, Lease, LeaseState, Scope, SlotPolicy
from server.services.clock import SystemClock
from server.services.safeguards.leases import HandOver, LeaseService, Waiter, lease_for
from server.services.safeguards.settings import LeaseSettings
from server.storage.db import create_db_engine
from server.storage.safeguards.leases import SqlLeaseRepository

# The repository contract suite's fixture: the same case on the in-memory fake, SQLite and PostgreSQL.
from .test_repository_contract import Repos, _postgres_url, _sqlite_url, repos  # noqa: F401

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
STALE = T0 - timedelta(minutes=1)


def uid(prefix: str) -> str:
    import uuid

    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class Handed:
    """A `HandOver` over waiters the test names "here"; records what was handed after the commit."""

    def __init__(self, here: dict[str, Waiter], limit: int | None = 1) -> None:
        self.here = here
        self.slots = limit
        self.grants: list[tuple[Waiter, Lease]] = []
        self.unserved: list[IsolationKey] = []

    def at(self, now: datetime) -> HandOver:
        return HandOver(now, STALE, lambda _k: self.slots, self.here.get, self.committed)

    def committed(self, grants: Sequence[tuple[Waiter, Lease]], unserved: Sequence[IsolationKey]) -> None:
        self.grants += grants
        self.unserved += unserved


def waiter_here(waiter_id: str, key: IsolationKey, agent: str, request_id: str = "") -> Waiter:
    loop = asyncio.new_event_loop()
    loop.close()  # never woken here: the repository only reads the waiter's fields
    return Waiter(waiter_id, key, agent, 30.0, request_id, loop, asyncio.Event())


# ---- the repositories ------------------------------------------------------------------------------------


def test_a_release_grants_the_next_waiter_here_in_its_transaction(repos: Repos) -> None:  # noqa: F811
    key = IsolationKey(Scope.USER, uid("u"))
    held, _ = repos.leases.try_acquire(key, 1, "holder", 30.0, "", T0, None, STALE)
    _, first = repos.leases.try_acquire(key, 1, "ag-first", 30.0, "", T0, None, STALE)
    _, second = repos.leases.try_acquire(key, 1, "ag-second", 30.0, "", T0, None, STALE)
    assert held is not None and repos.leases.waiters(key) == 2
    handed = Handed({first: waiter_here(first, key, "ag-first", "req-first")})
    released = repos.leases.release(held.lease_id, T0 + timedelta(seconds=1), handed.at(T0 + timedelta(seconds=1)))
    assert released is not None and released.state is LeaseState.RELEASED
    [(w, lease)] = handed.grants
    assert (w.waiter_id, lease.lease_id, lease.agent_id) == (first, lease_for(first), "ag-first")
    assert (lease.fencing_token, lease.request_id, lease.state) == (
        held.fencing_token + 1,
        "req-first",
        LeaseState.ACTIVE,
    )
    assert handed.unserved == [] and repos.leases.waiters(key) == 1  # the second still waits
    stored = repos.leases.get_lease(lease.lease_id)
    assert stored is not None and stored.state is LeaseState.ACTIVE and stored.fencing_token == lease.fencing_token
    # The waiter's own try, whose row went with the grant, finds that lease: never a second one.
    again, _ = repos.leases.try_acquire(key, 1, "ag-first", 30.0, "", T0 + timedelta(seconds=2), first, STALE)
    assert again is not None and again.lease_id == lease.lease_id
    waiting, same = repos.leases.try_acquire(key, 1, "ag-second", 30.0, "", T0 + timedelta(seconds=2), second, STALE)
    assert waiting is None and same == second


def test_a_waiter_on_another_sidecar_is_never_skipped(repos: Repos) -> None:  # noqa: F811
    key = IsolationKey(Scope.USER, uid("u"))
    held, _ = repos.leases.try_acquire(key, 1, "holder", 30.0, "", T0, None, STALE)
    _, elsewhere = repos.leases.try_acquire(key, 1, "ag-elsewhere", 30.0, "", T0, None, STALE)
    _, mine = repos.leases.try_acquire(key, 1, "ag-mine", 30.0, "", T0, None, STALE)
    assert held is not None
    handed = Handed({mine: waiter_here(mine, key, "ag-mine")})  # the first waits on another sidecar
    repos.leases.release(held.lease_id, T0 + timedelta(seconds=1), handed.at(T0 + timedelta(seconds=1)))
    assert handed.grants == [] and handed.unserved == [key]  # woken to try, not granted behind its back
    later = T0 + timedelta(seconds=2)
    nothing, _ = repos.leases.try_acquire(key, 1, "ag-mine", 30.0, "", later, mine, STALE)
    got, _ = repos.leases.try_acquire(key, 1, "ag-elsewhere", 30.0, "", later, elsewhere, STALE)
    assert nothing is None and got is not None and got.fencing_token == held.fencing_token + 1


def test_leaving_the_queue_hands_a_free_slot_to_the_next_waiter_here(repos: Repos) -> None:  # noqa: F811
    key = IsolationKey(Scope.USER, uid("u"))
    held, _ = repos.leases.try_acquire(key, 1, "holder", 30.0, "", T0, None, STALE)
    _, leaving = repos.leases.try_acquire(key, 1, "ag-leaving", 30.0, "", T0, None, STALE)
    _, next_one = repos.leases.try_acquire(key, 1, "ag-next", 30.0, "", T0, None, STALE)
    assert held is not None
    nobody = Handed({})  # the slot is freed while the first waiter is still queued ahead: nobody here gets it
    repos.leases.release(held.lease_id, T0 + timedelta(seconds=1), nobody.at(T0 + timedelta(seconds=1)))
    assert nobody.grants == [] and nobody.unserved == [key]
    handed = Handed({next_one: waiter_here(next_one, key, "ag-next")})
    repos.leases.leave_queue(leaving, handed.at(T0 + timedelta(seconds=2)))
    [(w, lease)] = handed.grants
    assert w.waiter_id == next_one and lease.fencing_token == held.fencing_token + 1
    assert repos.leases.waiters(key) == 0


def test_a_killed_waiter_is_not_handed_a_slot(repos: Repos) -> None:  # noqa: F811
    key = IsolationKey(Scope.USER, uid("u"))
    held, _ = repos.leases.try_acquire(key, 1, "holder", 30.0, "", T0, None, STALE)
    _, victim = repos.leases.try_acquire(key, 1, "ag-victim", 30.0, "", T0, None, STALE)
    _, next_one = repos.leases.try_acquire(key, 1, "ag-next", 30.0, "", T0, None, STALE)
    assert held is not None
    repos.leases.revoke_agent("ag-victim", T0 + timedelta(seconds=1))
    handed = Handed({w: waiter_here(w, key, a) for w, a in ((victim, "ag-victim"), (next_one, "ag-next"))})
    repos.leases.release(held.lease_id, T0 + timedelta(seconds=2), handed.at(T0 + timedelta(seconds=2)))
    assert [w.agent_id for w, _ in handed.grants] == ["ag-next"]


# ---- the service on SQLite and PostgreSQL -----------------------------------------------------------------


def service(engine: Engine, **kw: Any) -> LeaseService:
    # No poll within a test: whatever a waiter gets, it gets from a release (or its own first try).
    return LeaseService(
        SqlLeaseRepository(engine), SystemClock(), LeaseSettings(SlotPolicy(1)), MemoryAudit(), poll_interval=60, **kw
    )


async def queued_here(svc: LeaseService, n: int) -> None:
    """Until `n` callers wait in this process, past their first try (their rows are stored)."""
    for _ in range(2000):
        with svc._lock:
            if len(svc._waiters) == n:
                return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{n} waiters never queued")


def commits(engine: Engine) -> list[int]:
    count = [0]
    event.listen(engine, "commit", lambda _conn: count.__setitem__(0, count[0] + 1))
    return count


def test_the_release_and_the_next_grant_are_one_commit_that_survives_a_restart(engine: Engine) -> None:
    key = IsolationKey(Scope.USER, uid("alice"))

    async def main() -> tuple[Lease, Lease]:
        svc = service(engine)
        try:
            held, _ = await svc.acquire(key, "a1")
            waiting = asyncio.create_task(svc.acquire(key, "a2", request_id="r-2"))
            await queued_here(svc, 1)
            counted = commits(engine)
            released = await svc.release_async(held.lease_id)
            lease, waited = await waiting
            assert counted[0] == 1, "the release and the grant to the next waiter took more than one commit"
            assert released.state is LeaseState.RELEASED and waited > 0
            assert (lease.agent_id, lease.fencing_token, lease.request_id) == ("a2", held.fencing_token + 1, "r-2")
            return held, lease
        finally:
            svc.close()

    held, lease = asyncio.run(main())
    engine.dispose()  # a restart: nothing in memory survives
    again = service(create_db_engine(str(engine.url.render_as_string(hide_password=False))))

    async def after() -> None:
        try:
            assert again.get(held.lease_id).state is LeaseState.RELEASED
            assert again.get(lease.lease_id).state is LeaseState.ACTIVE and again.waiting(key) == 0
            with pytest.raises(TimeoutError):  # the handed-over lease still holds the only slot
                await asyncio.wait_for(again.acquire(key, "a3"), 0.3)
            await again.release_async(lease.lease_id)
            third, _ = await again.acquire(key, "a3")
            assert third.fencing_token == lease.fencing_token + 1
        finally:
            again.close()
            again.repo.engine.dispose()  # type: ignore[attr-defined]

    asyncio.run(after())


def test_a_failed_grouped_commit_answers_every_caller_unavailable_and_grants_nothing(engine: Engine) -> None:
    keys = [IsolationKey(Scope.USER, uid("k")) for _ in range(2)]
    failing = threading.Event()

    @event.listens_for(engine, "commit")
    def fail(_conn: Any) -> None:
        if failing.is_set():
            raise OperationalError("COMMIT", {}, sqlite3.OperationalError("disk I/O error"))

    async def main() -> None:
        svc = service(engine)
        repo: SqlLeaseRepository = svc.repo  # type: ignore[assignment]
        try:
            held = [(await svc.acquire(k, f"holder-{i}"))[0] for i, k in enumerate(keys)]
            waiters = [asyncio.create_task(svc.acquire(k, f"waiter-{i}")) for i, k in enumerate(keys)]
            await queued_here(svc, 2)
            failing.set()
            with repo._group._write_lock:  # both releases queue behind it: one shared transaction
                calls = [asyncio.ensure_future(svc.release_async(le.lease_id)) for le in held]
                for _ in range(2000):
                    if len(repo._group._queue) == 2:
                        break
                    await asyncio.sleep(0.01)
                assert len(repo._group._queue) == 2
            answers = await asyncio.gather(*calls, return_exceptions=True)
            assert all(isinstance(a, Unavailable) for a in answers), answers
            await asyncio.sleep(0.2)  # any hand-over would have been delivered by now
            assert not any(w.done() for w in waiters)
            for k, le in zip(keys, held, strict=True):
                assert svc.get(le.lease_id).state is LeaseState.ACTIVE and svc.waiting(k) == 1
            failing.clear()
            for le in held:
                await svc.release_async(le.lease_id)
            got = [await w for w in waiters]
            # Nothing of the failed attempt was granted: the next token is the holder's + 1.
            assert [g.fencing_token for g, _ in got] == [le.fencing_token + 1 for le in held]
        finally:
            svc.close()

    asyncio.run(main())


def test_tokens_only_grow_under_concurrent_acquires_and_releases(engine: Engine) -> None:
    keys = [IsolationKey(Scope.SESSION, uid("s")) for _ in range(2)]
    rounds, per_key = 6, 4

    async def main() -> dict[str, list[int]]:
        svc = LeaseService(
            SqlLeaseRepository(engine), SystemClock(), LeaseSettings(SlotPolicy(1)), MemoryAudit(), poll_interval=0.05
        )
        seen: dict[str, list[int]] = {k.text: [] for k in keys}

        async def worker(key: IsolationKey, agent: str) -> None:
            for _ in range(rounds):
                lease, _ = await svc.acquire(key, agent)
                seen[key.text].append(lease.fencing_token)  # in grant order: the key has one slot
                await svc.release_async(lease.lease_id)

        try:
            await asyncio.gather(*(worker(k, f"w{i}-{k.id}") for k in keys for i in range(per_key)))
        finally:
            svc.close()
        for k in keys:
            assert svc.waiting(k) == 0
            listed = svc.list(int(k.scope), k.id, "", 0, 100, "").items
            assert len(listed) == rounds * per_key and all(le.state is LeaseState.RELEASED for le in listed)
        return seen

    seen = asyncio.run(main())
    for tokens in seen.values():
        assert tokens == list(range(1, rounds * per_key + 1))


# ---- the service on the in-memory fake --------------------------------------------------------------------


class GiveUpAsHanded(MemorySafeguards):
    """Between the hand-over's commit and its delivery, the granted waiter gives up (`interrupt`)."""

    interrupt: Any = None

    def release(
        self, lease_id: str, now: datetime, hand_over: HandOver | None = None, holder: str | None = None
    ) -> Lease | None:
        if hand_over is None or self.interrupt is None:
            return super().release(lease_id, now, hand_over, holder)
        interrupt, self.interrupt = self.interrupt, None

        def committed(grants: Sequence[tuple[Waiter, Lease]], unserved: Sequence[IsolationKey]) -> None:
            interrupt()
            hand_over.committed(grants, unserved)

        return super().release(lease_id, now, HandOver(**{**hand_over.__dict__, "committed": committed}), holder)


def test_a_waiter_that_gives_up_as_the_slot_reaches_it_gives_it_back() -> None:
    repo = GiveUpAsHanded()
    key = IsolationKey(Scope.USER, "alice")

    async def main() -> None:
        svc = LeaseService(repo, SystemClock(), LeaseSettings(SlotPolicy(1)), MemoryAudit(), poll_interval=60)
        loop = asyncio.get_running_loop()
        try:
            held, _ = await svc.acquire(key, "a1")
            quitter = asyncio.create_task(svc.acquire(key, "a2"))
            await queued_here(svc, 1)
            stays = asyncio.create_task(svc.acquire(key, "a3"))
            await queued_here(svc, 2)

            def interrupt() -> None:  # on the releasing thread, after the commit: cancel a2 and let it finish
                asyncio.run_coroutine_threadsafe(cancel(quitter), loop).result(10)

            repo.interrupt = interrupt
            await svc.release_async(held.lease_id)
            lease, _ = await stays
            assert lease.agent_id == "a3" and lease.fencing_token == held.fencing_token + 2
            given_back = svc.list(int(key.scope), key.id, "a2", 0, 10, "").items
            assert [(le.fencing_token, le.state) for le in given_back] == [
                (held.fencing_token + 1, LeaseState.RELEASED)
            ]
        finally:
            svc.close()

    async def cancel(task: asyncio.Task[Any]) -> None:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
