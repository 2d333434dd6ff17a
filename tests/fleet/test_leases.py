"""Execution leases across three sidecar processes: a 1-slot key is exclusive fleet-wide, waiters are served
first come first served whichever sidecar they queued on, fencing tokens only grow, the reaper never
overwrites a release, and a kill revokes the agent's leases wherever they were granted."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import grpc
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import common_pb2
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from server.domain.safeguards.leases import IsolationKey
from server.storage.db import create_db_engine
from server.storage.safeguards.leases import SqlLeaseRepository

from .harness import Fleet, SidecarProc, wait_until

ACTIVE, RELEASED, EXPIRED, REVOKED = (
    sg.LEASE_STATE_ACTIVE,
    sg.LEASE_STATE_RELEASED,
    sg.LEASE_STATE_EXPIRED,
    sg.LEASE_STATE_REVOKED,
)


def key(name: str) -> sg.IsolationKey:
    return sg.IsolationKey(scope=sg.ISOLATION_SCOPE_SESSION, id=name)


def acquire(s: SidecarProc, k: str, agent: str, ttl: float = 30.0, timeout: float = 10.0) -> Any:
    req = pb.AcquireLeaseRequest(isolation_key=key(k), agent_id=agent, ttl=Duration(seconds=int(ttl)))
    return s.safeguard.AcquireLease(req, timeout=timeout).lease


def release(s: SidecarProc, lease_id: str) -> Any:
    return s.safeguard.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=lease_id)).lease


def active(s: SidecarProc, k: str) -> int:
    listed = s.safeguard.ListLeases(pb.ListLeasesRequest(isolation_key=key(k), state=ACTIVE, page_size=100))
    return len(listed.leases)


def test_a_one_slot_key_is_exclusive_across_a_b_and_c(shared_fleet: Fleet) -> None:
    stubs = shared_fleet.sidecars

    def one(i: int) -> tuple[int, int]:
        try:
            # The grant never ends within the test (an hour's TTL): the other five wait out their deadline,
            # long enough that the one grant itself cannot miss it on a loaded machine.
            lease = acquire(stubs[i % 3], "fl-1", f"agent-{i}", ttl=3600, timeout=15)
            return lease.fencing_token, i
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            return 0, i

    with ThreadPoolExecutor(6) as pool:
        got = [t for t, _ in pool.map(one, range(6))]
    assert sorted(got) == [0, 0, 0, 0, 0, 1]  # one grant, with the key's first token; the rest timed out waiting
    assert active(stubs[2], "fl-1") == 1


def _queued(queue: SqlLeaseRepository, n: int) -> bool:
    return queue.waiters(IsolationKey.parse("session:fl-2")) == n


def test_fifo_across_sidecars_with_growing_fencing_tokens(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    first = acquire(a, "fl-2", "holder")
    order: list[tuple[str, int]] = []
    engine = create_db_engine(shared_fleet.db_url)
    queue = SqlLeaseRepository(engine)  # reads the waiters' rows only
    with ThreadPoolExecutor(3) as pool:
        futures = []
        try:
            for n, (s, agent) in enumerate(((c, "w-c"), (a, "w-a"), (b, "w-b")), start=1):
                futures.append(pool.submit(acquire, s, "fl-2", agent, timeout=120))
                # Each queues before the next one asks (its row is there), however slow the machine.
                wait_until(partial(_queued, queue, n), f"waiter {n} queued")
        finally:
            engine.dispose()
        holder = first
        for fut in futures:
            release(c, holder.lease_id)
            holder = fut.result(timeout=60)
            order.append((holder.agent_id, holder.fencing_token))
    assert [agent for agent, _ in order] == ["w-c", "w-a", "w-b"]
    assert [token for _, token in order] == [first.fencing_token + 1, first.fencing_token + 2, first.fencing_token + 3]
    release(b, holder.lease_id)


def test_the_reaper_never_overwrites_a_release(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    short = acquire(a, "fl-3", "r", ttl=1)
    assert release(b, short.lease_id).state == RELEASED
    expiring = acquire(c, "fl-3", "e", ttl=1)
    wait_until(
        lambda: a.safeguard.GetLease(pb.GetLeaseRequest(lease_id=expiring.lease_id)).lease.state == EXPIRED,
        "expired by some sidecar's reaper",
    )
    time.sleep(0.3)  # every reaper has run again
    assert c.safeguard.GetLease(pb.GetLeaseRequest(lease_id=short.lease_id)).lease.state == RELEASED
    assert release(a, expiring.lease_id).state == EXPIRED
    assert acquire(b, "fl-3", "next").fencing_token == expiring.fencing_token + 1


def test_a_kill_on_a_revokes_the_leases_granted_on_b(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    a.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="fl-victim")))
    on_b = acquire(b, "fl-4", "fl-victim")
    on_c = acquire(c, "fl-4b", "fl-victim")
    kill = a.recovery.Kill(rpb.KillRequest(agent_id="fl-victim", reason=r.KILL_REASON_MANUAL), timeout=30)
    assert kill.result.agent_id == "fl-victim"
    for s, lease in ((c, on_b), (a, on_c)):
        wait_until(
            lambda s=s, lease=lease: (
                s.safeguard.GetLease(pb.GetLeaseRequest(lease_id=lease.lease_id)).lease.state == REVOKED
            ),
            "revoked",
        )
    assert acquire(c, "fl-4", "someone-else", timeout=60).fencing_token == on_b.fencing_token + 1


def test_a_restarted_sidecar_holds_no_phantom_lease(tmp_path: Any, pg_url: str) -> None:
    fleet = Fleet(tmp_path, pg_url, count=2)
    try:
        a, b = fleet.sidecars
        held = acquire(a, "fl-5", "x", ttl=3600)  # a phantom of it would hold the key for an hour
        a.close()
        again = fleet.start("A2")
        release(b, held.lease_id)
        lease = acquire(again, "fl-5", "y", timeout=60)  # answered within the deadline: nothing phantom held it
        assert lease.fencing_token == held.fencing_token + 1
    finally:
        fleet.close()
