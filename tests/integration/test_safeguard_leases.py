"""Execution leases over real gRPC (the SandboxExecutionGuard contract): blocking acquire without a thread per
waiter, FIFO,
fencing, expiry handed to the next waiter, deadlines and cancellation, revocation, restarts, auth."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from server.domain.safeguards.leases import IsolationKey, Scope, SlotPolicy, parse_slot_rules
from server.services.safeguards.settings import LeaseSettings, SafeguardSettings
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import error_info
from .safeguard_helpers import duration

USER = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_USER, id="alice")
ACTIVE, RELEASED, EXPIRED, REVOKED = (
    sg.LEASE_STATE_ACTIVE,
    sg.LEASE_STATE_RELEASED,
    sg.LEASE_STATE_EXPIRED,
    sg.LEASE_STATE_REVOKED,
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def s(tmp_path: Path, clock: FakeClock) -> Iterator[RunningSidecar]:
    slots = SlotPolicy(1, parse_slot_rules({"global:": 2, "session:*": "noop"}, "keys"))
    settings = SafeguardSettings(leases=LeaseSettings(slots, ttl=30.0))
    with RunningSidecar(make_config(tmp_path, safeguards=settings), clock=clock) as sidecar:
        yield sidecar


def acquire(stub: Any, agent: str = "a1", key: sg.IsolationKey = USER, **kw: Any) -> Any:
    return stub.AcquireLease(pb.AcquireLeaseRequest(isolation_key=key, agent_id=agent, **kw), timeout=10)


def wait_until(cond: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


ALICE = IsolationKey(Scope.USER, "alice")


def waiting(s: RunningSidecar, key: IsolationKey = ALICE) -> int:
    return int(s.services.leases.waiting(key))


def test_fifo_and_fencing(s: RunningSidecar) -> None:
    st = s.safeguard
    first = acquire(st).lease
    assert (first.state, first.fencing_token, first.ttl.seconds) == (ACTIVE, 1, 30)
    with ThreadPoolExecutor(3) as pool:
        futures = []
        for i, agent in enumerate(("a2", "a3", "a4")):
            futures.append(pool.submit(acquire, st, agent))
            wait_until(lambda n=i + 1: waiting(s) == n)  # queue in a known order
        holder = first
        got = []
        for f in futures:
            st.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=holder.lease_id))
            holder = f.result(10).lease
            got.append((holder.agent_id, holder.fencing_token))
    assert got == [("a2", 2), ("a3", 3), ("a4", 4)]


def test_slots_per_key_and_noop(s: RunningSidecar) -> None:
    st = s.safeguard
    glob = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_GLOBAL)
    assert [acquire(st, f"a{i}", glob).lease.fencing_token for i in range(2)] == [1, 2]
    with pytest.raises(grpc.RpcError) as err:
        st.AcquireLease(pb.AcquireLeaseRequest(isolation_key=glob, agent_id="a3"), timeout=0.3)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    wait_until(lambda: waiting(s, IsolationKey(Scope.GLOBAL)) == 0)  # it left the queue
    session = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_SESSION, id="s1")
    assert [acquire(st, "a1", session).lease.fencing_token for _ in range(25)] == list(range(1, 26))


def test_cancel_leaves_the_queue(s: RunningSidecar) -> None:
    st = s.safeguard
    held = acquire(st).lease
    call = st.AcquireLease.future(pb.AcquireLeaseRequest(isolation_key=USER, agent_id="a2"), timeout=10)
    wait_until(lambda: waiting(s) == 1)
    call.cancel()
    wait_until(lambda: waiting(s) == 0)
    with ThreadPoolExecutor(1) as pool:
        nxt = pool.submit(acquire, st, "a3")
        wait_until(lambda: waiting(s) == 1)
        st.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=held.lease_id))
        assert nxt.result(10).lease.agent_id == "a3"


def test_expiry_is_reaped_and_the_slot_goes_to_the_next_waiter(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    held = acquire(st, ttl=duration(5)).lease
    with ThreadPoolExecutor(1) as pool:
        nxt = pool.submit(acquire, st, "a2")
        wait_until(lambda: waiting(s) == 1)
        clock.advance(5)  # the scheduler's reaper (every 50 ms) takes it from here
        got = nxt.result(10)
    assert (got.lease.agent_id, got.lease.fencing_token, got.wait_duration.seconds) == ("a2", 2, 5)
    ended = st.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease
    assert ended.state == EXPIRED and ended.HasField("end_time")
    with pytest.raises(grpc.RpcError) as err:
        st.RenewLease(pb.RenewLeaseRequest(lease_id=held.lease_id))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "expired" in (err.value.details() or "")
    assert st.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=held.lease_id)).lease.state == EXPIRED


def test_renew_release_get_list(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    held = acquire(st, ttl=duration(10)).lease
    clock.advance(8)
    renewed = st.RenewLease(pb.RenewLeaseRequest(lease_id=held.lease_id, ttl=duration(20))).lease
    assert renewed.fencing_token == held.fencing_token and renewed.expire_time.seconds == held.expire_time.seconds + 18
    clock.advance(15)
    assert st.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease.state == ACTIVE
    released = st.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=held.lease_id)).lease
    assert (
        released.state == RELEASED and st.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=held.lease_id)).lease == released
    )
    acquire(st, "a2")
    listed = st.ListLeases(pb.ListLeasesRequest(isolation_key=USER))
    assert [(le.agent_id, le.state) for le in listed.leases] == [("a2", ACTIVE), ("a1", RELEASED)]
    assert [le.agent_id for le in st.ListLeases(pb.ListLeasesRequest(state=RELEASED)).leases] == ["a1"]
    page = st.ListLeases(pb.ListLeasesRequest(page_size=1))
    assert len(page.leases) == 1 and page.next_page_token
    for bad in (
        pb.AcquireLeaseRequest(isolation_key=sg.IsolationKey(), agent_id="a1"),
        pb.AcquireLeaseRequest(isolation_key=sg.IsolationKey(scope=sg.ISOLATION_SCOPE_USER), agent_id="a1"),
        pb.AcquireLeaseRequest(isolation_key=USER, agent_id=""),
        pb.AcquireLeaseRequest(isolation_key=USER, agent_id="a1", ttl=duration(-1)),
    ):
        with pytest.raises(grpc.RpcError) as err:
            st.AcquireLease(bad, timeout=5)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as err:
        st.GetLease(pb.GetLeaseRequest(lease_id="lse_none"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_revoking_an_agent_hands_its_slots_on(s: RunningSidecar) -> None:
    st = s.safeguard
    held = acquire(st, "victim").lease
    with ThreadPoolExecutor(1) as pool:
        nxt = pool.submit(acquire, st, "a2")
        wait_until(lambda: waiting(s) == 1)
        assert s.services.leases.revoke_agent_leases("victim", "operator:test") == 1
        assert nxt.result(10).lease.fencing_token == 2
    assert st.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease.state == REVOKED
    with pytest.raises(grpc.RpcError) as err:
        st.RenewLease(pb.RenewLeaseRequest(lease_id=held.lease_id))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and error_info(err.value).reason == "LEASE_REVOKED"


def test_agent_scope(s: RunningSidecar) -> None:
    a1, a2 = s.as_agent("a1").safeguard, s.as_agent("a2").safeguard
    lease = acquire(a1, "a1").lease
    for bad in (
        lambda: acquire(a2, "a1", sg.IsolationKey(scope=sg.ISOLATION_SCOPE_AGENT, id="x")),
        lambda: a2.RenewLease(pb.RenewLeaseRequest(lease_id=lease.lease_id)),
        lambda: a2.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=lease.lease_id)),
        lambda: a2.GetLease(pb.GetLeaseRequest(lease_id=lease.lease_id)),
        lambda: a2.ListLeases(pb.ListLeasesRequest()),
    ):
        with pytest.raises(grpc.RpcError) as err:
            bad()
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert a1.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=lease.lease_id)).lease.state == RELEASED


def test_fencing_and_active_leases_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config) as s:
        first = acquire(s.safeguard).lease
        s.safeguard.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=first.lease_id))
        held = acquire(s.safeguard, ttl=duration(600)).lease
    with RunningSidecar(config) as s:
        assert s.safeguard.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease.state == ACTIVE
        with pytest.raises(grpc.RpcError) as err:  # the restored lease still holds the only slot
            s.safeguard.AcquireLease(pb.AcquireLeaseRequest(isolation_key=USER, agent_id="a2"), timeout=0.3)
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        s.safeguard.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=held.lease_id))
        assert acquire(s.safeguard, "a2").lease.fencing_token == 3
