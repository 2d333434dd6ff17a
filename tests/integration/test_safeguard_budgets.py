"""Token budgets over real gRPC: the SupervisorAgent library's rules, the 90%/100% edges, signals, reservations and
their
races, 100 concurrent consumers, restarts, the `budget` guardrail and agent scope."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from server.domain.safeguards.budgets import BudgetSignal
from server.services.safeguards.settings import BudgetSettings, SafeguardSettings
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail
from .safeguard_helpers import duration

WARN, STOP, RESUME = sg.BUDGET_SIGNAL_TYPE_SIGWARN, sg.BUDGET_SIGNAL_TYPE_SIGSTOP, sg.BUDGET_SIGNAL_TYPE_SIGRESUME


class Sink:
    def __init__(self) -> None:
        self.got: list[tuple[str, str, bool]] = []

    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None:
        self.got.append((agent_id, signal.type.name, signal.is_global))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def s(tmp_path: Path, clock: FakeClock) -> Iterator[RunningSidecar]:
    settings = SafeguardSettings(budgets=BudgetSettings(global_total=100_000))
    with RunningSidecar(make_config(tmp_path, safeguards=settings), clock=clock) as sidecar:
        yield sidecar


def signals(resp: object) -> list[tuple[int, bool]]:
    return [(x.type, getattr(x, "global")) for x in resp.signals]  # type: ignore[attr-defined]


def test_seed_rules(s: RunningSidecar) -> None:
    st = s.safeguard
    st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=30_000))
    assert st.CanConsume(pb.CanConsumeRequest(agent_id="a1", tokens=2_000)).allowed
    done = st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=2_000))
    assert (done.allocation.used, done.global_budget.used, done.over_budget, list(done.warnings)) == (
        2_000,
        2_000,
        False,
        [],
    )
    assert st.Remaining(pb.RemainingRequest(agent_id="a1")).remaining == 28_000
    assert st.GlobalRemaining(pb.GlobalRemainingRequest()).remaining == 98_000
    assert st.UsagePercent(pb.UsagePercentRequest(agent_id="a1")).usage_percent == pytest.approx(6.6667, 1e-3)
    assert st.GlobalUsagePercent(pb.GlobalUsagePercentRequest()).usage_percent == pytest.approx(2.0)
    again = st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=10_000)).allocation
    assert (again.allocated, again.used) == (10_000, 0)
    assert st.GlobalRemaining(pb.GlobalRemainingRequest()).remaining == 98_000  # the global count stays
    with pytest.raises(grpc.RpcError) as err:
        st.Consume(pb.ConsumeRequest(agent_id="ghost", tokens=1))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and error_info(err.value).reason == "NO_ALLOCATION"
    assert st.Remaining(pb.RemainingRequest(agent_id="ghost")).remaining == 0
    assert st.UsagePercent(pb.UsagePercentRequest(agent_id="ghost")).usage_percent == 0
    for bad in (
        lambda: st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=0)),
        lambda: st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=-5)),
        lambda: st.CanConsume(pb.CanConsumeRequest(agent_id="a1", tokens=0)),
        lambda: st.Reserve(pb.ReserveRequest(agent_id="a1", estimate=0)),
        lambda: st.Settle(pb.SettleRequest(reservation_id="rsv_x", actual=-1)),
        lambda: st.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=0)),
    ):
        with pytest.raises(grpc.RpcError) as err:
            bad()
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_edges_at_90_and_100_percent_signal_once(s: RunningSidecar) -> None:
    st = s.safeguard
    sink = Sink()
    s.services.budgets.add_sink(sink)
    st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=1_000))
    below = st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=899))
    assert (signals(below), list(below.warnings), below.allocation.warned) == ([], [], False)
    at90 = st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=1))
    assert signals(at90) == [(WARN, False)] and list(at90.warnings) == ["a1 at 90% of its 1000-token allocation"]
    assert signals(st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=99))) == []  # 999: still one crossing
    at100 = st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=1))
    assert signals(at100) == [(STOP, False)] and not at100.over_budget and at100.allocation.stopped
    beyond = st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=1))
    assert (signals(beyond), beyond.over_budget, beyond.allocation.used, beyond.allocation.usage_percent) == (
        [],
        True,
        1_001,
        pytest.approx(100.1),
    )
    resumed = st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=1_000))
    assert signals(resumed) == [(RESUME, False)] and not resumed.allocation.stopped
    assert signals(st.Consume(pb.ConsumeRequest(agent_id="a1", tokens=900))) == [(WARN, False)]  # re-armed
    s.services.budgets.events.flush()
    assert sink.got == [("a1", n, False) for n in ("SIGWARN", "SIGSTOP", "SIGRESUME", "SIGWARN")]


def test_reserve_settle_and_expiry(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=1_000))
    r = st.Reserve(pb.ReserveRequest(agent_id="a1", estimate=950, ttl=duration(10)))
    assert r.granted and r.reservation.tokens == 950 and signals(r) == [(WARN, False)]
    refused = st.Reserve(pb.ReserveRequest(agent_id="a1", estimate=100))
    assert (refused.granted, refused.reason) == (False, "agent budget: 50 of 1000 left")
    assert not st.CanConsume(pb.CanConsumeRequest(agent_id="a1", tokens=51)).allowed
    settled = st.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=300))
    assert (settled.allocation.used, settled.allocation.reserved, settled.allocation.remaining) == (300, 0, 700)
    again = st.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=300))
    assert again.allocation.used == 300
    with pytest.raises(grpc.RpcError) as err:
        st.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=5))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as err:
        st.Settle(pb.SettleRequest(reservation_id="rsv_nope", actual=5))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    held = st.Reserve(pb.ReserveRequest(agent_id="a1", estimate=700, ttl=duration(5)))
    assert signals(held) == [(WARN, False), (STOP, False)]
    clock.advance(5)
    assert s.services.budgets.expire_reservations() == 1
    assert st.Remaining(pb.RemainingRequest(agent_id="a1")).remaining == 700
    late = st.Settle(pb.SettleRequest(reservation_id=held.reservation.reservation_id, actual=10))
    assert late.allocation.used == 310 and late.allocation.reserved == 0


def test_a_settle_that_brings_room_back_resumes(s: RunningSidecar) -> None:
    st = s.safeguard
    st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=100))
    r = st.Reserve(pb.ReserveRequest(agent_id="a1", estimate=100))
    assert signals(r) == [(WARN, False), (STOP, False)]
    done = st.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=40))
    assert signals(done) == [(RESUME, False)]


def test_priorities_honour_minimum_context_when_the_pool_is_short(s: RunningSidecar) -> None:
    st = s.safeguard
    st.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=10_000))
    crit, low = sg.CONTEXT_PRIORITY_CRITICAL, sg.CONTEXT_PRIORITY_LOW
    st.Allocate(pb.AllocateRequest(agent_id="crit", tokens=50_000, priority=crit))
    st.Allocate(pb.AllocateRequest(agent_id="low", tokens=50_000, priority=low))
    st.Consume(pb.ConsumeRequest(agent_id="low", tokens=10_000))
    c = st.CanConsume(pb.CanConsumeRequest(agent_id="crit", tokens=4_000))
    assert (c.allowed, c.priority_floor_applied, c.global_remaining) == (True, True, 0)
    assert not st.CanConsume(pb.CanConsumeRequest(agent_id="crit", tokens=4_001)).allowed
    lo = st.CanConsume(pb.CanConsumeRequest(agent_id="low", tokens=501))
    assert (lo.allowed, lo.reason) == (False, "global budget: 0 left")
    assert st.Reserve(pb.ReserveRequest(agent_id="low", estimate=500)).priority_floor_applied
    listed = st.ListAllocations(pb.ListAllocationsRequest())
    assert [a.agent_id for a in listed.allocations] == ["crit", "low"]
    assert [a.priority for a in listed.allocations] == [crit, low] and listed.global_budget.total == 10_000


def test_an_agent_that_never_set_a_priority_gets_no_floor(s: RunningSidecar) -> None:
    """The token-budget rule: both the agent and the pool must have room. Before, an agent that never set
    a priority was given the NORMAL floor (1,000 tokens) when only the pool was short."""
    st = s.safeguard
    st.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=1_000))
    st.Allocate(pb.AllocateRequest(agent_id="plain", tokens=50_000))
    st.Allocate(pb.AllocateRequest(agent_id="normal", tokens=50_000, priority=sg.CONTEXT_PRIORITY_NORMAL))
    st.Consume(pb.ConsumeRequest(agent_id="plain", tokens=1_000))
    plain = st.CanConsume(pb.CanConsumeRequest(agent_id="plain", tokens=500))
    assert (plain.allowed, plain.priority_floor_applied, plain.reason) == (False, False, "global budget: 0 left")
    assert not st.Reserve(pb.ReserveRequest(agent_id="plain", estimate=500)).granted
    normal = st.CanConsume(pb.CanConsumeRequest(agent_id="normal", tokens=500))
    assert (normal.allowed, normal.priority_floor_applied) == (True, True)


def test_concurrent_reserves_cannot_overspend(s: RunningSidecar) -> None:
    st = s.safeguard
    st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=1_000))
    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda _: st.Reserve(pb.ReserveRequest(agent_id="a1", estimate=30)).granted, range(64)))
    assert results.count(True) == 33
    got = st.GetAllocation(pb.GetAllocationRequest(agent_id="a1")).allocation
    assert (got.reserved, got.remaining) == (990, 10)


def test_100_concurrent_consumers_are_exact_and_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config) as s:
        st = s.safeguard
        st.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=10_000_000))
        for i in range(4):
            st.Allocate(pb.AllocateRequest(agent_id=f"a{i}", tokens=1_000_000))
        with ThreadPoolExecutor(100) as pool:
            list(pool.map(lambda n: st.Consume(pb.ConsumeRequest(agent_id=f"a{n % 4}", tokens=7)), range(400)))
        r = st.Reserve(pb.ReserveRequest(agent_id="a0", estimate=50, ttl=duration(600)))
        listed = st.ListAllocations(pb.ListAllocationsRequest())
        assert [a.used for a in listed.allocations] == [700] * 4 and listed.global_budget.used == 2_800
    with RunningSidecar(config) as s:
        st = s.safeguard
        listed = st.ListAllocations(pb.ListAllocationsRequest())
        assert [a.used for a in listed.allocations] == [700] * 4
        assert (listed.global_budget.used, listed.global_budget.reserved, listed.global_budget.total) == (
            2_800,
            50,
            10_000_000,
        )
        done = st.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=20))
        assert (done.allocation.used, done.allocation.reserved) == (720, 0)


def test_the_budget_guardrail_blocks_what_does_not_fit(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("tokens", "budget"))
    st = s.safeguard
    st.Allocate(pb.AllocateRequest(agent_id="a1", tokens=1_000))
    assert s.stub.CheckAction(check("a1", "chat", {"tokens": 100})).allowed
    near = s.stub.CheckAction(check("a1", "chat", {"tokens": 950}))
    assert near.allowed and [w.reason for w in near.warnings] == ["Token budget: a1 would be at 95% of its allocation"]
    blocked = s.stub.CheckAction(check("a1", "chat", {"tokens": 1_001}))
    assert (blocked.allowed, blocked.reason) == (
        False,
        "Token budget: 1001 tokens do not fit (agent budget: 1000 of 1000 left)",
    )
    assert s.stub.CheckAction(check("a1", "chat", {})).allowed  # no estimate: nothing to check
    unallocated = s.stub.CheckAction(check("a2", "chat", {"tokens": 1}))
    assert not unallocated.allowed and "no allocation" in unallocated.reason


def test_agent_scope(s: RunningSidecar) -> None:
    s.safeguard.Allocate(pb.AllocateRequest(agent_id="a1", tokens=1_000))
    s.safeguard.Allocate(pb.AllocateRequest(agent_id="a2", tokens=1_000))
    a1, a2 = s.as_agent("a1").safeguard, s.as_agent("a2").safeguard
    assert a1.Consume(pb.ConsumeRequest(agent_id="a1", tokens=5)).allocation.used == 5
    r = a1.Reserve(pb.ReserveRequest(agent_id="a1", estimate=5))
    for bad in (
        lambda: a2.Consume(pb.ConsumeRequest(agent_id="a1", tokens=5)),
        lambda: a2.Reserve(pb.ReserveRequest(agent_id="a1", estimate=5)),
        lambda: a2.GetAllocation(pb.GetAllocationRequest(agent_id="a1")),
        lambda: a2.Settle(pb.SettleRequest(reservation_id=r.reservation.reservation_id, actual=1)),
        lambda: a2.Allocate(pb.AllocateRequest(agent_id="a2", tokens=10**9)),
        lambda: a2.ListAllocations(pb.ListAllocationsRequest()),
    ):
        with pytest.raises(grpc.RpcError) as err:
            bad()
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert a2.GlobalRemaining(pb.GlobalRemainingRequest()).remaining == 100_000 - 5 - 5
    assert s.safeguard.GetAllocation(pb.GetAllocationRequest(agent_id="a1")).allocation.used == 5
