"""The Python client's safeguard helpers over real gRPC: `Isolator.execute` (the SupervisorAgent library's
FailureIsolator with
exact counts and states, every strategy, half-open probes, a sidecar restart between permit and outcome),
`lease` (FIFO, fencing, release on error, deadlines, renewal), `Budget` (reserve/settle, the 90% and 100%
edges, races), `retry` with a seeded RNG around a guarded call, and the asyncio twins."""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider import (
    AsyncBudget,
    AsyncClient,
    AsyncIsolator,
    BreakerState,
    Budget,
    BudgetExhaustedError,
    CircuitOpenError,
    Client,
    DeadlineExceededError,
    DegradationStrategy,
    FailedPreconditionError,
    InvalidArgumentError,
    Isolator,
    NotFoundError,
    PermissionDeniedError,
    Priority,
    UnavailableError,
    async_lease,
    lease,
    retry,
)
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from server.domain.access.principals import PrincipalKind
from server.domain.safeguards.leases import IsolationKey, Scope
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import error_info

INVALID = grpc.StatusCode.INVALID_ARGUMENT


class Down(Exception):
    """The guarded dependency failed."""


class Calls:
    """A guarded function: fails (or returns `value`) and counts how often it really ran."""

    def __init__(self, value: Any = None, fail: bool = True) -> None:
        self.value, self.fail, self.ran = value, fail, 0

    def __call__(self) -> Any:
        self.ran += 1
        if self.fail:
            raise Down(f"down #{self.ran}")
        return self.value


@pytest.fixture
def op(s: RunningSidecar) -> Iterator[Client]:
    with Client(s.sidecar.target, s.operator_secret, timeout=5) as c:
        yield c


def agent_client(s: RunningSidecar, agent_id: str) -> Client:
    return Client(s.sidecar.target, s.issue(PrincipalKind.AGENT, agent_id), timeout=5)


def seen(iso: Isolator, key: str) -> tuple[str, int]:
    b = iso.breaker(key)
    return b.state, b.failure_count


# ---- Isolator ------------------------------------------------------------------------------------


def test_seed_sequence_with_exact_counts_and_states(s: RunningSidecar, op: Client, clock: FakeClock) -> None:
    Isolator(op).configure("a1:db", failure_threshold=3, recovery_timeout=30)
    with agent_client(s, "a1") as c:  # the agent's own credential guards its own key
        iso = Isolator(c)
        failing, fallback = Calls(), lambda: "degraded"
        for n in (1, 2):  # below the threshold: the caller's own exception
            with pytest.raises(Down, match=f"down #{n}"):
                iso.execute("a1:db", failing, fallback)
            assert seen(iso, "a1:db") == ("CLOSED", n)
        # The failure that reaches the threshold opens the circuit and returns the degraded value.
        assert iso.execute("a1:db", failing, fallback) == "degraded"
        assert seen(iso, "a1:db") == ("OPEN", 3) and failing.ran == 3
        assert iso.state("a1:db") is BreakerState.OPEN
        # While OPEN: the degraded value, without running the call; no fallback gives None.
        assert iso.execute("a1:db", failing, fallback) == "degraded"
        assert iso.execute("a1:db", failing) is None
        assert failing.ran == 3 and iso.breaker("a1:db").retry_after == 30
        clock.advance(30)  # HALF_OPEN: one probe; a failed probe opens the circuit again (degraded, not raised)
        assert iso.execute("a1:db", failing, fallback) == "degraded"
        assert seen(iso, "a1:db") == ("OPEN", 4) and failing.ran == 4
        clock.advance(30)
        assert iso.execute("a1:db", Calls("fresh", fail=False), fallback) == "fresh"
        assert seen(iso, "a1:db") == ("CLOSED", 0)
        # A success resets the count: fail, fail, succeed, fail is one failure, not three.
        for _ in range(2):
            with pytest.raises(Down):
                iso.execute("a1:db", failing)
        assert iso.execute("a1:db", lambda: 7) == 7
        with pytest.raises(Down):
            iso.execute("a1:db", failing)
        b = iso.breaker("a1:db")
        assert (b.state, b.failure_count, b.in_flight_permits, b.failure_threshold) == ("CLOSED", 1, 0, 3)
        with pytest.raises(PermissionDeniedError):  # another agent's breaker
            iso.execute("a2:db", lambda: 1)


def test_fail_fast_raises_circuit_open_error_with_key_and_retry_after(op: Client, clock: FakeClock) -> None:
    iso = Isolator(op)
    iso.configure("a1:pay", failure_threshold=1, recovery_timeout=30, strategy="fail_fast")
    failing = Calls()
    with pytest.raises(CircuitOpenError) as opened:  # the failure that opens it
        iso.execute("a1:pay", failing, lambda: "never used")
    assert (opened.value.key, opened.value.retry_after, opened.value.reason) == ("a1:pay", 30.0, "CIRCUIT_OPEN")
    assert isinstance(opened.value.__cause__, Down)
    clock.advance(12)
    with pytest.raises(CircuitOpenError) as refused:  # while OPEN, without running the call
        iso.execute("a1:pay", failing)
    assert (refused.value.key, refused.value.retry_after, failing.ran) == ("a1:pay", 18.0, 1)
    assert iso.state("a1:pay") == "OPEN"


def test_cached_serves_the_last_success_and_skip_serves_none(op: Client, clock: FakeClock) -> None:
    iso = Isolator(op)
    iso.configure("a1:weather", failure_threshold=1, strategy="cached")
    failing = Calls()
    assert iso.execute("a1:weather", failing) is None  # opened before any success: nothing cached
    iso.reset("a1:weather")
    report = {"temp": 21, "ratio": 0.5, "tags": ["sun", 3], "ok": True}
    assert iso.execute("a1:weather", lambda: report) == report
    assert iso.execute("a1:weather", object) is not None  # not JSON data: returned, not cached
    assert iso.breaker("a1:weather").has_cached_result
    assert iso.execute("a1:weather", failing, lambda: "fallback ignored") == report  # ints stay ints
    assert iso.execute("a1:weather", failing) == report and failing.ran == 2  # OPEN: cached, not run
    quiet = iso.configure("a1:quiet", failure_threshold=1, strategy=DegradationStrategy.SKIP)  # an enum or a name
    assert quiet.strategy is DegradationStrategy.SKIP and quiet.state is BreakerState.CLOSED
    assert iso.execute("a1:quiet", failing, lambda: "fallback ignored") is None
    assert iso.execute("a1:quiet", failing) is None and failing.ran == 3


def test_a_result_too_large_to_cache_still_counts(tmp_path: Path) -> None:
    with (
        RunningSidecar(make_config(tmp_path, max_context_bytes=256)) as s,
        Client(s.sidecar.target, s.operator_secret) as c,
    ):
        iso = Isolator(c)
        iso.configure("a1:big", failure_threshold=2, strategy="cached")
        with pytest.raises(Down):
            iso.execute("a1:big", Calls())
        big = "x" * 1000
        assert iso.execute("a1:big", lambda: big) == big
        b = iso.breaker("a1:big")
        assert (b.failure_count, b.has_cached_result, b.in_flight_permits) == (0, False, 0)


def test_non_finite_numbers_never_reach_storage(tmp_path: Path, db_url: str) -> None:
    """NaN is no JSON: PostgreSQL refuses it, and one stored NaN failed every later write of the journal.
    The sidecar refuses it (INVALID_ARGUMENT); the client does not send it as a result."""
    with RunningSidecar(make_config(tmp_path, db_url=db_url)) as s, Client(s.sidecar.target, s.operator_secret) as c:
        iso = Isolator(c)
        iso.configure("a1:calc", strategy="cached")
        nan = float("nan")
        assert iso.execute("a1:calc", lambda: [1, nan]) is not None  # returned, not sent
        assert not iso.breaker("a1:calc").has_cached_result
        permit = s.safeguard.AcquirePermit(pb.AcquirePermitRequest(key="a1:calc")).permit_id
        bad = pb.ReportOutcomeRequest(permit_id=permit, outcome=sg.CALL_OUTCOME_SUCCESS)
        bad.result.struct_value.update({"x": [float("inf")]})
        with pytest.raises(grpc.RpcError) as refused:
            s.safeguard.ReportOutcome(bad)
        assert (refused.value.code(), error_info(refused.value).metadata["field"]) == (INVALID, "result")
        episode = sg.Episode(agent_id="a1", task_type="t")
        episode.metadata.update({"score": nan})
        with pytest.raises(grpc.RpcError) as refused:
            s.safeguard.RecordEpisode(pb.RecordEpisodeRequest(episode=episode))
        assert (refused.value.code(), error_info(refused.value).metadata["field"]) == (INVALID, "episode.metadata")
        assert iso.execute("a1:calc", lambda: {"x": 1}) == {"x": 1}  # storage still takes writes
        iso.configure("a1:other", failure_threshold=1)
        s.safeguard.RecordEpisode(pb.RecordEpisodeRequest(episode=sg.Episode(agent_id="a1", task_type="t")))
        assert iso.breaker("a1:calc").has_cached_result


class Stop(BaseException):
    """Not a failure: an interruption (like KeyboardInterrupt)."""


def test_an_interrupted_call_gives_its_permit_back(op: Client) -> None:
    iso = Isolator(op)
    iso.configure("a1:slow", failure_threshold=1)

    def interrupted() -> None:
        raise Stop

    with pytest.raises(Stop):
        iso.execute("a1:slow", interrupted)
    b = iso.breaker("a1:slow")
    assert (b.state, b.failure_count, b.in_flight_permits) == ("CLOSED", 0, 0)


def test_half_open_probe_on_the_real_clock(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path)) as s, Client(s.sidecar.target, s.operator_secret) as c:
        iso = Isolator(c)
        iso.configure("a1:api", failure_threshold=1, recovery_timeout=0.3, half_open_max_calls=1)
        assert iso.execute("a1:api", Calls(), lambda: "down") == "down"
        assert iso.state("a1:api") == "OPEN"
        deadline = time.monotonic() + 30
        while iso.state("a1:api") != "HALF_OPEN":  # the scheduler moves it, no traffic needed
            assert time.monotonic() < deadline, "not HALF_OPEN in time"
            time.sleep(0.02)
        probing, release = threading.Event(), threading.Event()

        def probe() -> str:
            probing.set()
            assert release.wait(30)
            return "recovered"

        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(iso.execute, "a1:api", probe, lambda: "down")
            assert probing.wait(30)
            other = Calls()
            assert iso.execute("a1:api", other, lambda: "down") == "down"  # the only probe slot is taken
            assert other.ran == 0
            release.set()
            assert first.result(5) == "recovered"
        assert seen(iso, "a1:api") == ("CLOSED", 0)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_permit_lost_to_a_sidecar_restart_lets_the_call_through(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Permits live in memory: after a restart ReportOutcome answers NOT_FOUND. The call behaves as if the
    breaker had let it through: its result is returned, its exception re-raised; nothing is counted."""
    config = make_config(tmp_path, listen=f"127.0.0.1:{free_port()}")
    holder = [RunningSidecar(config)]
    try:
        # The operator token is stored: the restarted sidecar (same database) accepts it too.
        with Client(holder[0].sidecar.target, holder[0].operator_secret) as c:
            iso = Isolator(c)
            iso.configure("a1:db", failure_threshold=1)

            def restart_then(outcome: Any) -> Any:
                holder[0].stop()
                holder[0] = RunningSidecar(config)
                deadline = time.monotonic() + 10
                while True:  # until the client's channel reaches the new sidecar
                    try:
                        iso.breaker("a1:db")
                        break
                    except UnavailableError:
                        assert time.monotonic() < deadline
                        time.sleep(0.05)
                if isinstance(outcome, Exception):
                    raise outcome
                return outcome

            with caplog.at_level(logging.WARNING, logger="outrider"):
                assert iso.execute("a1:db", lambda: restart_then("done")) == "done"
                with pytest.raises(Down, match="lost"):  # threshold 1, yet re-raised: the outcome did not count
                    iso.execute("a1:db", lambda: restart_then(Down("lost")))
            assert seen(iso, "a1:db") == ("CLOSED", 0)
            unknown = [r for r in caplog.records if "unknown to the sidecar" in r.getMessage()]
            assert len(unknown) == 2
    finally:
        holder[0].stop()


def test_retry_with_a_seeded_rng_around_a_guarded_call(op: Client) -> None:
    """Below the threshold the error comes back and `retry` tries again after the seeded delays; the
    failure that opens the circuit returns the degraded value, which ends the retries."""
    iso = Isolator(op)
    iso.configure("a1:llm", failure_threshold=3)
    slept: list[float] = []
    failing = Calls()

    @retry(max_attempts=5, base=0.2, max_delay=1.0, retry_on=(Down,), rng=random.Random(11), sleep=slept.append)
    def ask() -> str | None:
        return iso.execute("a1:llm", failing, lambda: "cached answer")

    assert ask() == "cached answer"
    expected = random.Random(11)
    assert slept == [min(0.2 * 2 ** (n - 1) * expected.uniform(0.5, 1.5), 1.0) for n in (1, 2)]
    assert failing.ran == 3 and seen(iso, "a1:llm") == ("OPEN", 3)


def test_async_isolator(s: RunningSidecar, op: Client, clock: FakeClock) -> None:
    Isolator(op).configure("a1:db", failure_threshold=2, strategy="cached")

    async def go() -> None:
        async with AsyncClient(s.sidecar.target, s.operator_secret, timeout=5) as c:
            iso = AsyncIsolator(c)

            async def fetch() -> dict[str, int]:
                await asyncio.sleep(0)
                return {"rows": 3}

            async def broken() -> None:
                raise Down("async down")

            assert await iso.execute("a1:db", fetch) == {"rows": 3}
            with pytest.raises(Down):
                await iso.execute("a1:db", broken)
            assert await iso.execute("a1:db", broken) == {"rows": 3}  # opens: the cached value
            assert (await iso.breaker("a1:db")).state == "OPEN"
            clock.advance(30)
            assert await iso.execute("a1:db", lambda: "plain function") == "plain function"
            assert await iso.state("a1:db") == "CLOSED"
            await iso.configure("a1:ff", failure_threshold=1, strategy="fail_fast")
            with pytest.raises(CircuitOpenError):
                await iso.execute("a1:ff", broken)

    asyncio.run(go())


# ---- leases --------------------------------------------------------------------------------------


def waiting(s: RunningSidecar, key: IsolationKey) -> int:
    return int(s.services.leases.waiting(key))


def wait_until(cond: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def test_lease_fifo_and_fencing_through_the_context_manager(s: RunningSidecar, op: Client) -> None:
    alice = IsolationKey(Scope.USER, "alice")
    got: list[tuple[str, int]] = []

    def worker(agent: str) -> None:
        with agent_client(s, agent) as c, lease(c, "user", "alice", agent_id=agent) as held:
            got.append((agent, held.fencing_token))

    with lease(op, "user", "alice", agent_id="a0") as first:
        assert (first.fencing_token, first.scope, first.key_id, first.lost) == (1, "user", "alice", False)
        assert first.ttl == 30  # the sidecar's default
        threads = []
        for n, agent in enumerate(("a1", "a2", "a3"), start=1):
            threads.append(threading.Thread(target=worker, args=(agent,)))
            threads[-1].start()
            wait_until(lambda n=n: waiting(s, alice) == n)  # queued in a known order
        assert got == []
    for t in threads:
        t.join(10)
    assert got == [("a1", 2), ("a2", 3), ("a3", 4)]  # first come, first served; tokens grow per key
    listed = s.safeguard.ListLeases(pb.ListLeasesRequest(isolation_key=sg.IsolationKey(scope=1, id="alice")))
    assert {le.state for le in listed.leases} == {sg.LEASE_STATE_RELEASED}


def test_lease_is_released_when_the_block_raises_and_a_deadline_ends_the_wait(s: RunningSidecar, op: Client) -> None:
    with pytest.raises(Down), lease(op, "agent", "a1", agent_id="a1") as held:
        raise Down("the work failed")
    state = s.safeguard.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease.state
    assert state == sg.LEASE_STATE_RELEASED
    with lease(op, "global", "", agent_id="a1"):
        with pytest.raises(DeadlineExceededError), lease(op, "global", "", agent_id="a2", timeout=0.3):
            pass
        wait_until(lambda: waiting(s, IsolationKey(Scope.GLOBAL)) == 0)  # it left the queue
    with pytest.raises(ValueError, match="scope"), lease(op, "tenant", "x", agent_id="a1"):
        pass
    with agent_client(s, "a1") as c, pytest.raises(PermissionDeniedError), lease(c, "user", "u", agent_id="a2"):
        pass


def test_lease_renewal_keeps_the_slot_past_its_ttl(tmp_path: Path) -> None:
    """Real clock and real reaper (every 50 ms): renewed every third of the TTL, a block three times
    longer than the TTL keeps its slot; without renewal it expires and the helper says so."""
    with RunningSidecar(make_config(tmp_path)) as s, Client(s.sidecar.target, s.operator_secret) as c:
        # TTL 3 s, renewed every second: a host that freezes this process (sidecar and client alike) for up
        # to two seconds delays a renewal without losing the slot; a longer freeze rightly expires it.
        with lease(c, "user", "u1", agent_id="a1", ttl=3.0) as held:
            time.sleep(7.0)
            assert s.safeguard.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease.state == 1
        assert not held.lost
        with lease(c, "user", "u1", agent_id="a1", ttl=0.3, renew=False) as unrenewed:
            wait_until(
                lambda: (
                    s.safeguard.GetLease(pb.GetLeaseRequest(lease_id=unrenewed.lease_id)).lease.state
                    == sg.LEASE_STATE_EXPIRED
                )
            )
        assert (unrenewed.lost, unrenewed.lost_reason) == (True, "lease ended as EXPIRED")
        assert unrenewed.fencing_token == held.fencing_token + 1


def test_async_lease(s: RunningSidecar) -> None:
    async def go() -> list[int]:
        async with AsyncClient(s.sidecar.target, s.operator_secret) as c:
            order: list[int] = []

            async def work(n: int) -> None:
                async with async_lease(c, "session", "s-1", agent_id=f"a{n}") as held:  # noop: unlimited
                    order.append(held.fencing_token)

            await asyncio.gather(*(work(n) for n in range(5)))
            async with async_lease(c, "user", "bob", agent_id="a1") as first:
                waiter = asyncio.create_task(_acquire_async(c))
                await asyncio.sleep(0.2)
                assert not waiter.done()  # one slot: it waits
            assert await asyncio.wait_for(waiter, 5) == first.fencing_token + 1
            return sorted(order)

    assert asyncio.run(go()) == [1, 2, 3, 4, 5]


async def _acquire_async(c: AsyncClient) -> int:
    async with async_lease(c, "user", "bob", agent_id="a2") as held:
        return held.fencing_token


# ---- budgets -------------------------------------------------------------------------------------


def test_budget_reserve_settles_with_the_actual_amount(s: RunningSidecar, op: Client) -> None:
    assert Budget(op, "a1").allocate(1000).priority is Priority.NORMAL
    assert Budget(op, "a9").allocate(10, priority=Priority.CRITICAL).priority == "CRITICAL"
    with agent_client(s, "a1") as c:
        b = Budget(c, "a1")
        assert (b.can_consume(1000), b.can_consume(1001), b.remaining()) == (True, False, 1000)
        with b.reserve(800) as r:
            assert b.remaining() == 200 and b.allocation().reserved == 800
            r.actual = 650
        assert r.usage is not None and (r.usage.allocation.used, r.usage.allocation.remaining) == (650, 350)
        assert b.remaining() == 350 and b.usage_percent() == 65.0
        with pytest.raises(Down), b.reserve(100):  # the block failed: the estimate is settled
            raise Down("model call failed")
        assert b.allocation().used == 750
        with pytest.raises(BudgetExhaustedError) as short, b.reserve(300):
            pytest.fail("the block must not run")
        assert (short.value.estimate, short.value.why) == (300, "agent budget: 250 of 1000 left")
        assert short.value.reason == "BUDGET_EXHAUSTED" and b.allocation().reserved == 0
        with pytest.raises(PermissionDeniedError):
            Budget(c, "a2").consume(1)


def test_budget_edges_at_90_and_100_percent(op: Client) -> None:
    b = Budget(op, "a1")
    b.allocate(1000)
    u = b.consume(899)  # 89.9%: nothing yet
    assert (u.warnings, u.signals, u.over_budget) == ((), (), False)
    u = b.consume(1)  # exactly 90%: the source's warning and one SIGWARN
    assert u.warnings == ("a1 at 90% of its 1000-token allocation",)
    assert [(sig.type, sig.is_global, sig.used, sig.allocated) for sig in u.signals] == [("SIGWARN", False, 900, 1000)]
    u = b.consume(50)  # still above 90%: the warning again, no second SIGWARN (edge-triggered)
    assert len(u.warnings) == 1 and u.signals == ()
    assert (b.can_consume(50), b.can_consume(51)) == (True, False)
    u = b.consume(50)  # exactly 100%: SIGSTOP, not yet over the budget
    assert ([sig.type for sig in u.signals], u.over_budget, u.allocation.remaining) == (["SIGSTOP"], False, 0)
    assert (b.can_consume(1), b.remaining()) == (False, 0)
    u = b.consume(1)  # never refused: usage beyond the budget is recorded
    assert (u.over_budget, u.allocation.used, u.signals) == (True, 1001, ())
    assert u.allocation.usage_percent == pytest.approx(100.1)
    b.allocate(1000)  # a new allocation restarts the count and brings room back
    assert (b.remaining(), b.usage_percent()) == (1000, 0.0)


def test_reservations_count_towards_the_signals_and_settling_resumes(op: Client) -> None:
    b = Budget(op, "a1")
    b.allocate(1000)
    with b.reserve(900) as big:
        assert [sig.type for sig in big.signals] == ["SIGWARN"]
        with b.reserve(100) as rest:
            assert [sig.type for sig in rest.signals] == ["SIGSTOP"]
            rest.actual = 0
        assert rest.usage is not None and [sig.type for sig in rest.usage.signals] == ["SIGRESUME"]
        big.actual = 10
    assert big.usage is not None and big.usage.allocation.used == 10 and b.remaining() == 990


def test_budget_errors_without_an_allocation_or_with_bad_amounts(op: Client) -> None:
    b = Budget(op, "nobody")
    assert (b.remaining(), b.can_consume(1), b.usage_percent()) == (0, False, 0.0)
    with pytest.raises(FailedPreconditionError) as none:
        b.consume(10)
    assert none.value.reason == "NO_ALLOCATION"
    with pytest.raises(FailedPreconditionError), b.reserve(10):
        pass
    with pytest.raises(NotFoundError):
        b.allocation()
    with pytest.raises(InvalidArgumentError) as bad:
        b.consume(0)
    assert bad.value.field == "tokens"
    with pytest.raises(ValueError, match="priority"):
        b.allocate(10, priority="urgent")


def test_concurrent_reservations_cannot_overspend_together(s: RunningSidecar, op: Client) -> None:
    Budget(op, "a1").allocate(1000)
    attempted, go = threading.Barrier(10), threading.Event()

    def one() -> bool:
        try:
            with Budget(op, "a1").reserve(300) as r:
                attempted.wait(10)
                assert go.wait(10)
                r.actual = 250
            return True
        except BudgetExhaustedError:
            attempted.wait(10)
            return False

    with ThreadPoolExecutor(10) as pool:
        futures = [pool.submit(one) for _ in range(10)]
        wait_until(lambda: attempted.n_waiting == 0 and sum(f.done() for f in futures) == 7, 10)
        go.set()
        granted = [f.result(10) for f in futures]
    assert granted.count(True) == 3  # 3 x 300 fit in 1000, a fourth does not, whatever the interleaving
    a = Budget(op, "a1").allocation()
    assert (a.used, a.reserved, a.remaining) == (750, 0, 250)


def test_async_budget(s: RunningSidecar, op: Client) -> None:
    Budget(op, "a1").allocate(500, priority="high")

    async def go() -> None:
        async with AsyncClient(s.sidecar.target, s.operator_secret) as c:
            b = AsyncBudget(c, "a1")
            assert (await b.allocation()).priority == "HIGH"
            async with b.reserve(200) as r:
                r.actual = 120
            assert (await b.remaining(), await b.can_consume(380), await b.can_consume(381)) == (380, True, False)
            u = await b.consume(330)
            assert [sig.type for sig in u.signals] == ["SIGWARN"] and await b.usage_percent() == 90.0
            assert await b.global_remaining() == 1_000_000 - 450
            with pytest.raises(BudgetExhaustedError):
                async with b.reserve(51):
                    pass

    asyncio.run(go())
