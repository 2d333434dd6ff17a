"""Circuit breakers over real gRPC: the SupervisorAgent library's FailureIsolator sequences, probes, permit expiry, the
degradation strategies, ReportOutcomes, the `breaker` guardrail in CheckAction, timers, auth, restarts."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from server.domain.safeguards.breakers import BreakerChange, BreakerState
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail
from .safeguard_helpers import duration, value

CLOSED, OPEN, HALF_OPEN = sg.BREAKER_STATE_CLOSED, sg.BREAKER_STATE_OPEN, sg.BREAKER_STATE_HALF_OPEN
SUCCESS, FAILURE = sg.CALL_OUTCOME_SUCCESS, sg.CALL_OUTCOME_FAILURE
RETURN, RETHROW, DEGRADE, FAIL_FAST = (
    sg.BREAKER_DIRECTIVE_RETURN_RESULT,
    sg.BREAKER_DIRECTIVE_RETHROW,
    sg.BREAKER_DIRECTIVE_DEGRADE,
    sg.BREAKER_DIRECTIVE_FAIL_FAST,
)


def configure(stub: Any, key: str, **kw: Any) -> None:
    """SetBreakerConfig; durations in seconds."""
    durations = {name: duration(kw.pop(name)) for name in ("recovery_timeout", "permit_ttl") if name in kw}
    stub.SetBreakerConfig(pb.SetBreakerConfigRequest(key=key, config=sg.BreakerConfig(**kw, **durations)))


def call(stub: Any, key: str, outcome: int, result: Any = None) -> tuple[Any, Any]:
    """One guarded call the two-call way: (AcquirePermit answer, ReportOutcome answer or None)."""
    a = stub.AcquirePermit(pb.AcquirePermitRequest(key=key))
    if not a.permitted:
        return a, None
    req = pb.ReportOutcomeRequest(permit_id=a.permit_id, outcome=outcome)
    if result is not None:
        req.result.CopyFrom(value(result))
    return a, stub.ReportOutcome(req)


def test_seed_sequence_with_exact_counts_and_states(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    seen = []
    for _ in range(3):
        a, r = call(st, "a1:db", FAILURE)
        seen.append((a.failure_directive, r.directive, r.state, r.failure_count, r.counted))
    assert seen == [
        (RETHROW, RETHROW, CLOSED, 1, True),
        (RETHROW, RETHROW, CLOSED, 2, True),
        (DEGRADE, DEGRADE, OPEN, 3, True),  # the failure that reaches the threshold returns the degraded value
    ]
    clock.advance(12)
    refused, _ = call(st, "a1:db", SUCCESS)
    assert (refused.permitted, refused.state, refused.directive, refused.permit_id) == (False, OPEN, DEGRADE, "")
    assert refused.degradation.strategy == sg.DEGRADATION_STRATEGY_FALLBACK
    assert refused.degradation.retry_after.seconds == 18 and not refused.degradation.HasField("degraded_value")
    clock.advance(18)
    probe, ok = call(st, "a1:db", SUCCESS)
    assert (probe.state, probe.failure_directive) == (HALF_OPEN, DEGRADE)
    assert (ok.directive, ok.state, ok.failure_count) == (RETURN, CLOSED, 0)
    b = st.GetBreaker(pb.GetBreakerRequest(key="a1:db")).breaker
    assert (b.state, b.failure_count, b.generation, b.in_flight_permits) == (CLOSED, 0, 4, 0)
    assert b.config.failure_threshold == 3 and b.config.recovery_timeout.seconds == 30


def test_a_success_resets_the_count(s: RunningSidecar) -> None:
    st = s.safeguard
    call(st, "a1", FAILURE)
    call(st, "a1", FAILURE)
    assert call(st, "a1", SUCCESS)[1].failure_count == 0
    assert [call(st, "a1", FAILURE)[1].directive for _ in range(3)] == [RETHROW, RETHROW, DEGRADE]


def test_half_open_probes_and_a_failed_probe_reopens(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    configure(st, "a1:api", failure_threshold=1, half_open_max_calls=2, recovery_timeout=10)
    call(st, "a1:api", FAILURE)
    clock.advance(10)
    p1 = st.AcquirePermit(pb.AcquirePermitRequest(key="a1:api"))
    p2 = st.AcquirePermit(pb.AcquirePermitRequest(key="a1:api"))
    p3 = st.AcquirePermit(pb.AcquirePermitRequest(key="a1:api"))
    assert [p.permitted for p in (p1, p2, p3)] == [True, True, False]
    assert p3.state == HALF_OPEN and not p3.degradation.HasField("retry_after")
    failed = st.ReportOutcome(pb.ReportOutcomeRequest(permit_id=p1.permit_id, outcome=FAILURE))
    assert (failed.directive, failed.state) == (DEGRADE, OPEN)
    late = st.ReportOutcome(pb.ReportOutcomeRequest(permit_id=p2.permit_id, outcome=SUCCESS))
    assert (late.counted, late.directive, late.state) == (False, RETURN, OPEN)  # an older generation


def test_an_unreported_permit_expires_as_a_failure(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    configure(st, "a1", failure_threshold=1, permit_ttl=5, recovery_timeout=1)
    call(st, "a1", FAILURE)
    clock.advance(1)
    probe = st.AcquirePermit(pb.AcquirePermitRequest(key="a1"))
    assert probe.state == HALF_OPEN and probe.expire_time.seconds == int(clock.utcnow().timestamp()) + 5
    assert not st.AcquirePermit(pb.AcquirePermitRequest(key="a1")).permitted
    clock.advance(5)
    b = st.GetBreaker(pb.GetBreakerRequest(key="a1")).breaker
    assert (b.state, b.failure_count, b.in_flight_permits) == (OPEN, 2, 0)  # HALF_OPEN did not stick
    late = st.ReportOutcome(pb.ReportOutcomeRequest(permit_id=probe.permit_id, outcome=SUCCESS))
    assert (late.counted, late.directive) == (False, RETURN)


def test_cached_strategy_serves_the_last_successful_result(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    configure(st, "a1:search", strategy=sg.DEGRADATION_STRATEGY_CACHED, failure_threshold=2)
    call(st, "a1:search", SUCCESS, {"hits": [1, 2]})
    call(st, "a1:search", SUCCESS, {"hits": [3]})
    call(st, "a1:search", FAILURE)
    _, opened = call(st, "a1:search", FAILURE)
    assert opened.directive == DEGRADE and opened.degradation.strategy == sg.DEGRADATION_STRATEGY_CACHED
    assert opened.degradation.degraded_value == value({"hits": [3]})
    refused, _ = call(st, "a1:search", SUCCESS)
    assert refused.degradation.degraded_value == value({"hits": [3]})
    got = st.GetBreaker(pb.GetBreakerRequest(key="a1:search"))
    assert got.breaker.has_cached_result and got.degradation.degraded_value == value({"hits": [3]})


def test_cached_without_a_result_is_null_and_fail_fast_says_so(s: RunningSidecar) -> None:
    st = s.safeguard
    configure(st, "a1:x", strategy=sg.DEGRADATION_STRATEGY_CACHED, failure_threshold=1)
    _, opened = call(st, "a1:x", FAILURE)
    assert opened.degradation.HasField("degraded_value") and opened.degradation.degraded_value.WhichOneof("kind") == (
        "null_value"
    )
    configure(st, "a1:y", strategy=sg.DEGRADATION_STRATEGY_FAIL_FAST, failure_threshold=1)
    a, failed = call(st, "a1:y", FAILURE)
    assert (a.failure_directive, failed.directive) == (FAIL_FAST, FAIL_FAST)
    refused, _ = call(st, "a1:y", SUCCESS)
    assert refused.directive == FAIL_FAST and refused.degradation.retry_after.seconds == 30


def test_report_outcomes_stream(s: RunningSidecar) -> None:
    st = s.safeguard
    permits = [st.AcquirePermit(pb.AcquirePermitRequest(key="a1")).permit_id for _ in range(3)]
    released = st.AcquirePermit(pb.AcquirePermitRequest(key="a1")).permit_id
    assert st.ReleasePermit(pb.ReleasePermitRequest(permit_id=released)).released
    msgs = [
        pb.ReportOutcomesRequest(permit_id=permits[0], outcome=FAILURE),
        pb.ReportOutcomesRequest(permit_id=permits[1], outcome=SUCCESS, result=value("ok")),
        pb.ReportOutcomesRequest(permit_id=permits[1], outcome=SUCCESS),  # a repeat
        pb.ReportOutcomesRequest(permit_id=released, outcome=FAILURE),
        pb.ReportOutcomesRequest(permit_id="pmt_unknown", outcome=FAILURE),
        pb.ReportOutcomesRequest(permit_id=permits[2], outcome=FAILURE),
    ]
    r = st.ReportOutcomes(iter(msgs))
    assert (r.received_count, r.counted_count, r.ignored_count, r.not_found_count) == (6, 3, 2, 1)
    assert st.GetBreaker(pb.GetBreakerRequest(key="a1")).breaker.failure_count == 1
    assert not st.ReleasePermit(pb.ReleasePermitRequest(permit_id=released)).released
    # A malformed message ends the stream; the messages before it stay applied.
    p = st.AcquirePermit(pb.AcquirePermitRequest(key="a1")).permit_id
    with pytest.raises(grpc.RpcError) as err:
        st.ReportOutcomes(iter([pb.ReportOutcomesRequest(permit_id=p, outcome=FAILURE), pb.ReportOutcomesRequest()]))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert st.GetBreaker(pb.GetBreakerRequest(key="a1")).breaker.failure_count == 2


def test_the_breaker_guardrail_takes_the_permit_inside_check_action(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("cb", "breaker", dependency_from="service"))
    agent = s.as_agent("a1")
    st = s.safeguard
    configure(st, "a1:payments", failure_threshold=2)
    permits = []
    for _ in range(2):
        r = agent.stub.CheckAction(check("a1", "pay", {"service": "payments"}))
        assert r.allowed and r.permit_id.startswith("pmt_") and r.guardrail == "cb"
        permits.append(r.permit_id)
    got = agent.safeguard.ReportOutcomes(iter(pb.ReportOutcomesRequest(permit_id=p, outcome=FAILURE) for p in permits))
    assert got.counted_count == 2
    blocked = agent.stub.CheckAction(check("a1", "pay", {"service": "payments"}))
    assert (blocked.allowed, blocked.permit_id) == (False, "")
    assert blocked.reason == "Circuit 'a1:payments' is OPEN: degrade (FALLBACK), retry in 30s"
    other = agent.stub.CheckAction(check("a1", "read", {}))  # key "a1": its own breaker
    assert other.allowed and other.permit_id
    b = st.GetBreaker(pb.GetBreakerRequest(key="a1")).breaker
    assert b.in_flight_permits == 1


def test_a_block_after_the_breaker_gives_its_permit_back(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("cb", "breaker"))
    s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=10))
    r = s.stub.CheckAction(check("a1", "act", {"cost": 50}))
    assert (r.allowed, r.guardrail, r.permit_id) == (False, "cap", "")
    b = s.safeguard.GetBreaker(pb.GetBreakerRequest(key="a1")).breaker
    assert (b.in_flight_permits, b.failure_count) == (0, 0)


def test_operator_controls_and_listing(s: RunningSidecar, clock: FakeClock) -> None:
    st = s.safeguard
    opened = st.ForceOpen(pb.ForceOpenRequest(key="a1:db", reason="maintenance")).breaker
    assert (opened.state, opened.forced) == (OPEN, True) and not opened.HasField("half_open_time")
    clock.advance(3600)
    assert not st.AcquirePermit(pb.AcquirePermitRequest(key="a1:db")).permitted  # held open
    closed = st.ForceClose(pb.ForceCloseRequest(key="a1:db")).breaker
    assert (closed.state, closed.forced) == (CLOSED, True)
    for _ in range(5):
        assert call(st, "a1:db", FAILURE)[1].directive == RETHROW  # counted, never opens
    reset = st.ResetBreaker(pb.ResetBreakerRequest(key="a1:db")).breaker
    assert (reset.state, reset.failure_count, reset.forced) == (CLOSED, 0, False)
    call(st, "a2", SUCCESS)
    st.ForceOpen(pb.ForceOpenRequest(key="a2:x"))
    listed = st.ListBreakers(pb.ListBreakersRequest(page_size=2))
    assert [b.key for b in listed.breakers] == ["a1:db", "a2"] and listed.next_page_token
    rest = st.ListBreakers(pb.ListBreakersRequest(page_size=2, page_token=listed.next_page_token))
    assert [b.key for b in rest.breakers] == ["a2:x"] and not rest.next_page_token
    assert [b.key for b in st.ListBreakers(pb.ListBreakersRequest(state=OPEN)).breakers] == ["a2:x"]
    assert [b.key for b in st.ListBreakers(pb.ListBreakersRequest(key_prefix="a2:")).breakers] == ["a2:x"]
    actions = [r.action for r in s.services.audit.repo.iter_all()]
    assert {"breaker.force_open", "breaker.force_close", "breaker.reset"} <= set(actions)


def test_errors_and_agent_scope(s: RunningSidecar) -> None:
    st = s.safeguard
    for bad in (
        lambda: st.AcquirePermit(pb.AcquirePermitRequest(key="")),
        lambda: st.AcquirePermit(pb.AcquirePermitRequest(key="k" * 257)),
        lambda: st.ReportOutcome(pb.ReportOutcomeRequest(permit_id="", outcome=SUCCESS)),
        lambda: st.SetBreakerConfig(
            pb.SetBreakerConfigRequest(key="a1", config=sg.BreakerConfig(failure_threshold=-1))
        ),
    ):
        with pytest.raises(grpc.RpcError) as err:
            bad()
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as err:
        st.GetBreaker(pb.GetBreakerRequest(key="nobody"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as err:
        st.ReportOutcome(pb.ReportOutcomeRequest(permit_id="pmt_gone", outcome=SUCCESS))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND

    mine, theirs = s.as_agent("a1").safeguard, s.as_agent("a2").safeguard
    permit = mine.AcquirePermit(pb.AcquirePermitRequest(key="a1:db"))
    with pytest.raises(grpc.RpcError) as err:
        theirs.ReportOutcome(pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=FAILURE))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED and error_info(err.value).reason == "NOT_YOUR_AGENT"
    with pytest.raises(grpc.RpcError) as err:
        theirs.ReportOutcomes(iter([pb.ReportOutcomesRequest(permit_id=permit.permit_id, outcome=FAILURE)]))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as err:
        theirs.ReleasePermit(pb.ReleasePermitRequest(permit_id=permit.permit_id))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    for bad in (
        lambda: theirs.AcquirePermit(pb.AcquirePermitRequest(key="a1:db")),
        lambda: theirs.GetBreaker(pb.GetBreakerRequest(key="a1:db")),
        lambda: theirs.ForceOpen(pb.ForceOpenRequest(key="a2")),
    ):
        with pytest.raises(grpc.RpcError) as err:
            bad()
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert mine.ReportOutcome(pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=FAILURE)).counted
    with pytest.raises(grpc.RpcError) as err:
        mine.ReportOutcome(pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=SUCCESS))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION


class _Changes:
    def __init__(self) -> None:
        self.changes: list[BreakerChange] = []
        self.half_open = threading.Event()

    def on_breaker_change(self, change: BreakerChange) -> None:
        self.changes.append(change)
        if change.to_state is BreakerState.HALF_OPEN:
            self.half_open.set()


def test_open_becomes_half_open_on_time_without_traffic(tmp_path: Path) -> None:
    """The real clock and the real scheduler: within 100 ms of the recovery timeout, no call needed."""
    with RunningSidecar(make_config(tmp_path)) as s:
        rec = _Changes()
        s.services.breakers.add_listener(rec)
        configure(s.safeguard, "a1", failure_threshold=1, recovery_timeout=0.3)
        call(s.safeguard, "a1", FAILURE)
        assert rec.half_open.wait(30)
        opened, moved = rec.changes
        assert (opened.to_state, moved.to_state, moved.reason) == (
            BreakerState.OPEN,
            BreakerState.HALF_OPEN,
            "recovery timeout elapsed",
        )
        late = (moved.change_time - opened.change_time).total_seconds() - 0.3
        assert 0 <= late < 0.1, f"HALF_OPEN {late * 1000:.0f} ms after the timeout"


def test_breakers_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config) as s:
        configure(s.safeguard, "a1:db", strategy=sg.DEGRADATION_STRATEGY_CACHED, failure_threshold=2)
        call(s.safeguard, "a1:db", SUCCESS, {"v": 1})
        call(s.safeguard, "a1:db", FAILURE)
        call(s.safeguard, "a1:db", FAILURE)
        call(s.safeguard, "a1:other", FAILURE)
        s.stub.AddGuardrail(guardrail("cb", "breaker", dependency="db"))
        before = s.safeguard.GetBreaker(pb.GetBreakerRequest(key="a1:db")).breaker
    with RunningSidecar(config) as s:
        got = s.safeguard.GetBreaker(pb.GetBreakerRequest(key="a1:db"))
        b = got.breaker
        assert (b.state, b.failure_count, b.generation, b.config.failure_threshold) == (
            OPEN,
            2,
            before.generation,
            2,
        )
        assert b.open_time == before.open_time and got.degradation.degraded_value == value({"v": 1})
        assert 0 < got.degradation.retry_after.seconds <= 30
        assert s.safeguard.GetBreaker(pb.GetBreakerRequest(key="a1:other")).breaker.failure_count == 1
        # The stored chain's breaker guardrail is rebuilt with the breaker service: still OPEN, still blocking.
        blocked = s.stub.CheckAction(check("a1", "query"))
        assert not blocked.allowed and blocked.reason.startswith("Circuit 'a1:db' is OPEN: degrade (CACHED)")
