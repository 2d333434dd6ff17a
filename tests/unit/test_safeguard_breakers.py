"""Circuit breakers: the SupervisorAgent library's FailureIsolator rules on the pure state machine and on the
service."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied, Unavailable
from server.domain.safeguards import breakers as rules
from server.domain.safeguards.breakers import Breaker, BreakerConfig, BreakerState, Directive, Outcome, Strategy
from server.services.safeguards.breakers import BreakerService, CascadeReporter
from server.services.safeguards.settings import BreakerSettings
from tests.fakes import FakeClock
from tests.fakes.safeguards import MemoryAudit, MemorySafeguards

CLOSED, OPEN, HALF_OPEN = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
S, F = Outcome.SUCCESS, Outcome.FAILURE
WALL = datetime(2026, 1, 1, tzinfo=UTC)


def breaker(**config: Any) -> Breaker:
    return Breaker("a1:db", BreakerConfig(**config), WALL, WALL)


def run(b: Breaker, outcome: Outcome, now: float = 0.0) -> tuple[rules.Admission, rules.Settlement | None]:
    """One guarded call: permit, then the outcome (None when refused)."""
    admission, _ = rules.admit(b, f"p{now}", now, WALL)
    if admission.permit is None:
        return admission, None
    settled, _ = rules.settle(b, admission.permit, outcome, now, WALL)
    return admission, settled


class TestSeedSemantics:
    def test_defaults_are_the_seeds(self) -> None:
        c = BreakerConfig()
        assert (c.failure_threshold, c.recovery_timeout, c.half_open_max_calls, c.strategy) == (
            3,
            30.0,
            1,
            Strategy.FALLBACK,
        )

    def test_failures_below_threshold_rethrow_and_the_one_reaching_it_degrades(self) -> None:
        b = breaker()
        answers = [run(b, F)[1] for _ in range(3)]
        assert [(a.directive, a.state, a.failure_count) for a in answers if a] == [
            (Directive.RETHROW, CLOSED, 1),
            (Directive.RETHROW, CLOSED, 2),
            (Directive.DEGRADE, OPEN, 3),
        ]

    def test_open_refuses_without_running_and_says_degrade(self) -> None:
        b = breaker()
        for _ in range(3):
            run(b, F)
        admission, settled = run(b, S, now=10)
        assert settled is None and not admission.permitted
        assert (admission.directive, admission.state) == (Directive.DEGRADE, OPEN)
        assert admission.degradation is not None and admission.degradation.retry_after == 20.0

    def test_success_resets_the_count_and_closes(self) -> None:
        b = breaker()
        run(b, F)
        run(b, F)
        _, ok = run(b, S)
        assert ok is not None and (ok.directive, ok.state, ok.failure_count) == (Directive.RETURN_RESULT, CLOSED, 0)
        assert [run(b, F)[1].directive for _ in range(2)] == [Directive.RETHROW, Directive.RETHROW]  # type: ignore[union-attr]

    def test_half_open_after_timeout_then_a_success_closes(self) -> None:
        b = breaker()
        for _ in range(3):
            run(b, F)
        assert not run(b, S, now=29.9)[0].permitted
        admission, ok = run(b, S, now=30.0)
        assert admission.permitted and admission.state is HALF_OPEN
        assert admission.failure_directive is Directive.DEGRADE  # a probe's failure reopens
        assert ok is not None and (ok.state, ok.failure_count) == (CLOSED, 0)

    def test_a_failed_probe_opens_again_and_degrades(self) -> None:
        b = breaker()
        for _ in range(3):
            run(b, F)
        admission, failed = run(b, F, now=30.0)
        assert admission.state is HALF_OPEN
        assert failed is not None and (failed.directive, failed.state) == (Directive.DEGRADE, OPEN)
        assert not run(b, S, now=59.9)[0].permitted  # the timeout restarts from the reopening
        assert run(b, S, now=60.0)[0].permitted

    def test_half_open_allows_max_calls_probes_at_once(self) -> None:
        b = breaker(half_open_max_calls=2)
        for _ in range(3):
            run(b, F)
        first, _ = rules.admit(b, "p1", 30, WALL)
        second, _ = rules.admit(b, "p2", 30, WALL)
        third, _ = rules.admit(b, "p3", 30, WALL)
        assert [first.permitted, second.permitted, third.permitted] == [True, True, False]
        assert third.state is HALF_OPEN and third.degradation is not None and third.degradation.retry_after is None
        rules.release(b, first.permit)  # type: ignore[arg-type]
        assert rules.admit(b, "p4", 30, WALL)[0].permitted

    def test_fail_fast_strategy(self) -> None:
        b = breaker(strategy=Strategy.FAIL_FAST)
        answers = [run(b, F)[1] for _ in range(3)]
        assert answers[-1] is not None and answers[-1].directive is Directive.FAIL_FAST
        assert run(b, S, now=1)[0].directive is Directive.FAIL_FAST

    def test_cached_strategy_degrades_to_the_last_success(self) -> None:
        b = breaker(strategy=Strategy.CACHED)
        run(b, S)
        assert rules.remember_result(b, {"answer": 42})
        assert not rules.remember_result(b, {"answer": 42})  # unchanged: nothing to store
        for _ in range(3):
            run(b, F)
        refused = run(b, S, now=1)[0]
        assert refused.degradation is not None
        assert (refused.degradation.has_value, refused.degradation.value) == (True, {"answer": 42})

    def test_cached_without_a_success_is_null(self) -> None:
        b = breaker(strategy=Strategy.CACHED, failure_threshold=1)
        _, failed = run(b, F)
        assert failed is not None and failed.degradation is not None
        assert (failed.degradation.has_value, failed.degradation.value) == (True, None)

    def test_other_strategies_carry_no_value(self) -> None:
        for strategy in (Strategy.FALLBACK, Strategy.SKIP):
            b = breaker(strategy=strategy, failure_threshold=1)
            _, failed = run(b, F)
            assert failed is not None and failed.degradation is not None
            assert (failed.degradation.strategy, failed.degradation.has_value) == (strategy, False)


class TestGenerations:
    def test_outcomes_of_an_older_generation_are_ignored(self) -> None:
        b = breaker(failure_threshold=1)
        old, _ = rules.admit(b, "old", 0, WALL)
        run(b, F)  # opens: generation moves on
        late, _ = rules.settle(b, old.permit, S, 0, WALL)  # type: ignore[arg-type]
        assert (late.counted, late.directive, late.state) == (False, Directive.RETURN_RESULT, OPEN)
        assert b.in_flight == 0

    def test_every_state_change_bumps_the_generation(self) -> None:
        b = breaker(failure_threshold=1)
        g0 = b.generation
        run(b, F)  # CLOSED -> OPEN
        run(b, S, now=30)  # -> HALF_OPEN -> CLOSED
        rules.force_open(b, "", 31, WALL)
        rules.reset(b, 32, WALL)
        assert b.generation == g0 + 5

    def test_expired_permit_counts_as_a_failure(self) -> None:
        b = breaker(failure_threshold=1)
        adm, _ = rules.admit(b, "p", 0, WALL)
        change = rules.expire(b, adm.permit, 60, WALL)  # type: ignore[arg-type]
        assert change is not None and (change.to_state, change.reason) == (OPEN, "permit expired")

    def test_forced_close_counts_but_never_opens_and_forced_open_never_half_opens(self) -> None:
        b = breaker(failure_threshold=1)
        rules.force_close(b, "", 0, WALL)
        answers = [run(b, F)[1] for _ in range(3)]
        assert [a.directive for a in answers if a] == [Directive.RETHROW] * 3 and b.failure_count == 3
        rules.force_open(b, "maintenance", 0, WALL)
        assert not run(b, S, now=10_000)[0].permitted
        assert rules.reset(b, 10_000, WALL) is not None and run(b, S, now=10_000)[0].permitted


class TestOverrides:
    def test_parse_and_merge(self) -> None:
        o = rules.parse_override({"failure_threshold": 5, "recovery_timeout": "2s", "strategy": "cached"}, "x")
        assert o == {"failure_threshold": 5, "recovery_timeout": 2.0, "strategy": "CACHED"}
        c = BreakerConfig().merged(o)
        assert (c.failure_threshold, c.recovery_timeout, c.strategy) == (5, 2.0, Strategy.CACHED)

    @pytest.mark.parametrize(
        "raw",
        [{"failure_threshold": 0}, {"half_open_max_calls": -1}, {"strategy": "maybe"}, {"permit_ttl": -1}, {"x": 1}],
    )
    def test_bad_values_are_named(self, raw: dict[str, Any]) -> None:
        with pytest.raises(InvalidArgument, match=r"^cfg\."):
            rules.parse_override(raw, "cfg")

    def test_first_matching_policy_rule_then_runtime(self) -> None:
        keys = (rules.KeyRule("*:payments", {"failure_threshold": 5}), rules.KeyRule("*", {"failure_threshold": 9}))
        assert rules.config_for("a:payments", BreakerConfig(), keys, {}).failure_threshold == 5
        assert rules.config_for("a:db", BreakerConfig(), keys, {}).failure_threshold == 9
        assert rules.config_for("a:db", BreakerConfig(), keys, {"failure_threshold": 2}).failure_threshold == 2


class Recorder:
    def __init__(self) -> None:
        self.changes: list[rules.BreakerChange] = []

    def on_breaker_change(self, change: rules.BreakerChange) -> None:
        self.changes.append(change)


def service(
    repo: MemorySafeguards | None = None, clock: FakeClock | None = None, **defaults: Any
) -> tuple[BreakerService, Recorder]:
    rec = Recorder()
    svc = BreakerService(
        repo or MemorySafeguards(),
        clock or FakeClock(),
        BreakerSettings(BreakerConfig(**defaults)),
        MemoryAudit(),
        [rec],
    )
    svc.load()
    return svc, rec


class TestService:
    def test_sequence_events_and_audit(self) -> None:
        svc, rec = service()
        for _ in range(3):
            svc.report(svc.acquire("a1").permit.permit_id, F)  # type: ignore[union-attr]
        svc.events.flush()
        assert [(c.from_state, c.to_state, c.reason) for c in rec.changes] == [
            (CLOSED, OPEN, "failure threshold reached")
        ]
        svc.force_close("a1", "ops", actor="operator:ann")
        assert svc.audit.records[-1][:3] == ("operator:ann", "breaker.force_close", "a1")  # type: ignore[attr-defined]

    def test_tick_moves_open_to_half_open_on_time_without_traffic(self) -> None:
        clock = FakeClock()
        svc, rec = service(clock=clock, recovery_timeout=5.0, failure_threshold=1)
        svc.report(svc.acquire("a1").permit.permit_id, F)  # type: ignore[union-attr]
        clock.advance(4.99)
        assert svc.tick() == 0
        clock.advance(0.01)
        assert svc.tick() == 1 and svc.get("a1").state is HALF_OPEN
        svc.events.flush()
        assert rec.changes[-1].reason == "recovery timeout elapsed"

    def test_unreported_permit_expires_as_a_failure_so_half_open_cannot_stick(self) -> None:
        clock = FakeClock()
        svc, _ = service(clock=clock, failure_threshold=1, recovery_timeout=1.0, permit_ttl=10.0)
        svc.report(svc.acquire("a1").permit.permit_id, F)  # type: ignore[union-attr]
        clock.advance(1)
        probe = svc.acquire("a1")
        assert probe.permitted and not svc.acquire("a1").permitted  # the only probe slot is taken
        clock.advance(10)
        svc.tick()
        b = svc.get("a1")
        assert (b.state, b.failure_count, b.in_flight) == (OPEN, 2, 0)
        late = svc.report(probe.permit.permit_id, S)  # type: ignore[union-attr]
        assert not late.counted and late.directive is Directive.RETURN_RESULT

    def test_report_is_idempotent_per_permit(self) -> None:
        svc, _ = service()
        pid = svc.acquire("a1").permit.permit_id  # type: ignore[union-attr]
        first = svc.report(pid, F)
        assert svc.report(pid, F) == first and svc.get("a1").failure_count == 1
        with pytest.raises(FailedPrecondition, match="already reported as FAILURE"):
            svc.report(pid, S)

    def test_errors(self) -> None:
        svc, _ = service()
        with pytest.raises(InvalidArgument):
            svc.acquire("")
        with pytest.raises(InvalidArgument):
            svc.acquire("x" * 257)
        with pytest.raises(NotFound):
            svc.report("pmt_nope", S)
        with pytest.raises(NotFound):
            svc.get("never-used")
        pid = svc.acquire("a1:db").permit.permit_id  # type: ignore[union-attr]
        with pytest.raises(InvalidArgument):
            svc.report(pid, 0)
        with pytest.raises(PermissionDenied):
            svc.report(pid, S, caller="a2")
        assert svc.report(pid, S, caller="a1").counted

    def test_acquire_request_id_returns_the_same_permit(self) -> None:
        svc, _ = service()
        assert svc.acquire("a1", "r1") == svc.acquire("a1", "r1")
        assert svc.get("a1").in_flight == 1

    def test_state_survives_a_restart_and_open_keeps_its_clock(self) -> None:
        repo, clock = MemorySafeguards(), FakeClock()
        svc, _ = service(repo, clock, failure_threshold=2, strategy=Strategy.CACHED)
        svc.report(svc.acquire("a1").permit.permit_id, S, {"v": 1}, True)  # type: ignore[union-attr]
        for _ in range(2):
            svc.report(svc.acquire("a1").permit.permit_id, F)  # type: ignore[union-attr]
        clock.advance(10)
        again, _ = service(repo, clock, failure_threshold=2, strategy=Strategy.CACHED)
        b = again.get("a1")
        assert (b.state, b.failure_count, b.generation, b.cached) == (OPEN, 2, 2, {"v": 1})
        refused = again.acquire("a1")
        assert refused.degradation is not None and refused.degradation.retry_after == 20.0
        clock.advance(20)
        assert again.acquire("a1").state is HALF_OPEN

    def test_storage_failure_is_unavailable_and_retried_by_the_next_commit(self) -> None:
        repo = MemorySafeguards()
        svc, _ = service(repo, failure_threshold=5)
        pid = svc.acquire("a1").permit.permit_id  # type: ignore[union-attr]
        repo.fail = True
        with pytest.raises(Unavailable):
            svc.report(pid, F)
        repo.fail = False
        svc.report(svc.acquire("a1").permit.permit_id, F)  # type: ignore[union-attr]
        assert repo.rows[("breaker", "a1")].failure_count == 2

    def test_get_waits_for_a_tick_that_is_writing_an_expired_probe(self) -> None:
        # The scheduler's tick takes an expired probe and writes its failure (OPEN again); a GetBreaker meanwhile
        # used to find nothing left to expire and read the stored breaker before that write: HALF_OPEN, one failure.
        class SlowTransitions(MemorySafeguards):
            def __init__(self) -> None:
                super().__init__()
                self.armed, self.entered, self.go = False, threading.Event(), threading.Event()

            def transition(self, b: Breaker, expected_generation: int, remember: bool = False) -> bool:
                if self.armed:
                    self.entered.set()
                    assert self.go.wait(60)
                return super().transition(b, expected_generation, remember)

        repo, clock = SlowTransitions(), FakeClock()
        svc, _ = service(repo, clock, failure_threshold=1, permit_ttl=5, recovery_timeout=1)
        svc.report(svc.acquire("a1").permit.permit_id, F)  # type: ignore[union-attr]
        clock.advance(1)
        assert svc.acquire("a1").state is HALF_OPEN  # the probe, never reported
        clock.advance(5)
        repo.armed = True
        scheduler = threading.Thread(target=svc.tick)
        scheduler.start()
        assert repo.entered.wait(60)
        got: list[Breaker] = []
        reader = threading.Thread(target=lambda: got.append(svc.get("a1")))
        reader.start()
        reader.join(1.0)  # without the fix it answers here, from storage the tick has not written yet
        repo.go.set()
        scheduler.join(60)
        reader.join(60)
        assert (got[0].state, got[0].failure_count) == (OPEN, 2)

    def test_healthy_hot_path_writes_nothing(self) -> None:
        repo = MemorySafeguards()
        svc, _ = service(repo)
        svc.acquire("a1")  # first use creates (and stores) the breaker
        commits = repo.commits
        for _ in range(50):
            svc.report(svc.acquire("a1").permit.permit_id, S)  # type: ignore[union-attr]
        assert repo.commits == commits

    def test_concurrent_failures_are_counted_exactly(self) -> None:
        svc, _ = service(failure_threshold=1000)
        permits = [svc.acquire("a1").permit.permit_id for _ in range(200)]  # type: ignore[union-attr]

        def report(chunk: list[str]) -> None:
            for pid in chunk:
                svc.report(pid, F)

        threads = [threading.Thread(target=report, args=(permits[i::8],)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert svc.get("a1").failure_count == 200

    def test_cascade_reporter_reports_openings_but_not_its_own(self) -> None:
        calls: list[tuple[str, str, str]] = []
        reporter = CascadeReporter(lambda f, t, d: calls.append((f, t, d)))
        svc, _ = service(failure_threshold=1)
        svc.add_listener(reporter)
        svc.report(svc.acquire("orchestrator:researcher").permit.permit_id, F)  # type: ignore[union-attr]
        svc.trip("worker", "cascade")
        svc.force_open("solo", "drill")
        svc.events.flush()
        assert [(f, t) for f, t, _ in calls] == [("researcher", "orchestrator"), ("solo", "solo")]


class ThreadRecordingSafeguards(MemorySafeguards):
    """Records the thread of every storage call the breakers make."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def __getattribute__(self, name: str) -> Any:
        if name in (
            "get_breaker",
            "create_breakers",
            "add_outcomes",
            "transition",
            "take_probe",
            "return_probe",
            "set_runtime_config",
        ):
            object.__getattribute__(self, "threads").append(threading.get_ident())
        return object.__getattribute__(self, name)


class TestEventLoop:
    def test_the_guardrail_permit_never_touches_storage_on_the_event_loop(self) -> None:
        import asyncio

        repo, clock = ThreadRecordingSafeguards(), FakeClock()
        svc, _ = service(repo, clock, failure_threshold=1, recovery_timeout=1.0)

        async def scenario() -> tuple[int, list[bool]]:
            loop_thread = threading.get_ident()
            first = await svc.guardrail_permit_async("fresh")  # a new key: CLOSED, memory only
            await svc.report_async(first.permit.permit_id, F)  # type: ignore[union-attr]  # opens it
            refused = await svc.guardrail_permit_async("fresh")  # OPEN: from the cache
            clock.advance(1)
            probe = await svc.guardrail_permit_async("fresh")  # HALF_OPEN: storage, on a worker thread
            return loop_thread, [first.permitted, refused.permitted, probe.permitted]

        repo.threads.clear()
        loop_thread, permitted = asyncio.run(scenario())
        assert permitted == [True, False, True]
        assert repo.threads and loop_thread not in repo.threads

    def test_closed_permits_never_commit(self) -> None:
        import asyncio

        repo = MemorySafeguards()
        svc, _ = service(repo)

        async def permits() -> None:
            for i in range(20):
                assert (await svc.guardrail_permit_async(f"k{i % 3}")).permitted

        asyncio.run(permits())
        assert repo.commits == 0
        svc.tick()  # the scheduler stores the new keys, off the hot path
        assert repo.commits == 1 and {k for kind, k in repo.rows if kind == "breaker"} == {"k0", "k1", "k2"}
