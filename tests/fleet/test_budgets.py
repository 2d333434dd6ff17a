"""Token budgets across three sidecars: one truth in PostgreSQL, exact under concurrency, no overspend,
reservations settled anywhere, signals once fleet-wide."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import recovery_pb2 as EV
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2
from outrider.v1 import safeguard_service_pb2 as pb
from tests.integration.rpc import check, guardrail

from .harness import Fleet, wait_until


def test_allocate_on_a_consume_on_b_read_and_checked_on_c(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    a.supervisor.AddGuardrail(guardrail("tokens", "budget"))
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="abc-1", tokens=1_000))
    assert b.safeguard.Consume(pb.ConsumeRequest(agent_id="abc-1", tokens=100)).allocation.used == 100
    assert c.safeguard.GetAllocation(pb.GetAllocationRequest(agent_id="abc-1")).allocation.used == 100
    assert c.safeguard.Remaining(pb.RemainingRequest(agent_id="abc-1")).remaining == 900
    # CheckAction's budget guardrail reads C's cache, which follows B's changes through NOTIFY.
    wait_until(lambda: c.supervisor.CheckAction(check("abc-1", "chat", {"tokens": 900})).allowed, "chain and cache")
    b.safeguard.Consume(pb.ConsumeRequest(agent_id="abc-1", tokens=800))
    # C's cache follows (by NOTIFY; its latency is measured by `make bench`, not asserted here).
    wait_until(lambda: not c.supervisor.CheckAction(check("abc-1", "chat", {"tokens": 900})).allowed, "C's cache")


def test_fifty_concurrent_consumers_over_three_sidecars_are_exact(shared_fleet: Fleet) -> None:
    a = shared_fleet[0]
    a.safeguard.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=10_000_000))
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="exact-1", tokens=1_000_000))
    before = a.safeguard.GlobalRemaining(pb.GlobalRemainingRequest()).remaining
    stubs = [s.safeguard for s in shared_fleet.sidecars]
    with ThreadPoolExecutor(50) as pool:
        list(pool.map(lambda i: stubs[i % 3].Consume(pb.ConsumeRequest(agent_id="exact-1", tokens=100)), range(50)))
    for s in stubs:
        assert s.GetAllocation(pb.GetAllocationRequest(agent_id="exact-1")).allocation.used == 5_000
    assert before - a.safeguard.GlobalRemaining(pb.GlobalRemainingRequest()).remaining >= 5_000


def test_concurrent_reserves_on_two_sidecars_never_overspend(shared_fleet: Fleet) -> None:
    a, b, _ = shared_fleet.sidecars
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="rsv-1", tokens=1_000))
    for _ in range(5):
        a.safeguard.Allocate(pb.AllocateRequest(agent_id="rsv-1", tokens=1_000))  # restarts the count
        with ThreadPoolExecutor(2) as pool:
            got = list(
                pool.map(
                    lambda s: s.safeguard.Reserve(pb.ReserveRequest(agent_id="rsv-1", estimate=600)).granted, (a, b)
                )
            )
        assert sorted(got) == [False, True]


def test_a_reservation_made_on_a_is_settled_on_b(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="settle-1", tokens=1_000))
    r = a.safeguard.Reserve(pb.ReserveRequest(agent_id="settle-1", estimate=300))
    assert r.granted
    done = b.safeguard.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=120))
    assert (done.allocation.used, done.allocation.reserved) == (120, 0)
    again = c.safeguard.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=120))
    assert again.allocation.used == 120  # a repeat anywhere changes nothing
    with pytest.raises(grpc.RpcError) as err:
        c.safeguard.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=5))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_reservation_expires_once_whichever_sidecar_reaps_it(shared_fleet: Fleet) -> None:
    a, _, c = shared_fleet.sidecars
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="expire-1", tokens=1_000))
    r = a.safeguard.Reserve(pb.ReserveRequest(agent_id="expire-1", estimate=400, ttl=Duration(nanos=300_000_000)))
    assert r.granted
    deadline = time.monotonic() + 30
    while c.safeguard.GetAllocation(pb.GetAllocationRequest(agent_id="expire-1")).allocation.reserved != 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)  # three schedulers ran again: the tokens came back once, not three times
    got = c.safeguard.GetAllocation(pb.GetAllocationRequest(agent_id="expire-1")).allocation
    assert (got.reserved, got.remaining) == (0, 1_000)


def test_a_threshold_crossed_by_concurrent_sidecars_signals_once(shared_fleet: Fleet) -> None:
    a = shared_fleet[0]
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="signal-1", tokens=1_000))
    stubs = [s.safeguard for s in shared_fleet.sidecars]
    with ThreadPoolExecutor(30) as pool:
        list(pool.map(lambda i: stubs[i % 3].Consume(pb.ConsumeRequest(agent_id="signal-1", tokens=40)), range(30)))

    def signals() -> list[int]:
        listed = a.recovery.ListRecoveryEvents(
            rpb.ListRecoveryEventsRequest(types=[EV.RECOVERY_EVENT_TYPE_BUDGET_SIGNAL], page_size=1000)
        )
        return [
            e.budget_signal.type
            for e in listed.events
            if e.budget_signal.agent_id == "signal-1" and not getattr(e.budget_signal, "global")
        ]

    deadline = time.monotonic() + 30
    while len(signals()) < 2:
        assert time.monotonic() < deadline, signals()
        time.sleep(0.05)
    time.sleep(0.3)
    assert sorted(signals()) == [safeguard_pb2.BUDGET_SIGNAL_TYPE_SIGWARN, safeguard_pb2.BUDGET_SIGNAL_TYPE_SIGSTOP]


def test_concurrent_consumes_on_three_sidecars_each_answer_their_own_running_total(shared_fleet: Fleet) -> None:
    """Consumes are grouped into shared transactions on each sidecar: still, every answer is the count after
    that call alone (60 calls of 25: each of 25, 50, ..., 1,500 answered exactly once), exactly the calls at
    or under the allocation answer within budget, and the stored totals are exact on every sidecar."""
    a = shared_fleet[0]
    a.safeguard.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=10_000_000))
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="running-1", tokens=1_000))
    before = a.safeguard.ListAllocations(pb.ListAllocationsRequest()).global_budget.used
    stubs = [s.safeguard for s in shared_fleet.sidecars]
    with ThreadPoolExecutor(30) as pool:
        answers = list(
            pool.map(lambda i: stubs[i % 3].Consume(pb.ConsumeRequest(agent_id="running-1", tokens=25)), range(60))
        )
    assert sorted(r.allocation.used for r in answers) == [25 * n for n in range(1, 61)]
    assert sum(not r.over_budget for r in answers) == 40  # 25 ... 1,000: within the allocation
    for s in stubs:
        assert s.GetAllocation(pb.GetAllocationRequest(agent_id="running-1")).allocation.used == 1_500
    assert a.safeguard.ListAllocations(pb.ListAllocationsRequest()).global_budget.used - before == 1_500
