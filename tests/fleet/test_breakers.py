"""Circuit breakers across three sidecar processes: one breaker per key, failures counted fleet-wide,
exactly one event per transition, operator actions everywhere within 100 ms."""

from __future__ import annotations

import time
from typing import Any

from google.protobuf.duration_pb2 import Duration

from outrider.v1 import recovery_pb2 as EV
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from tests.integration.rpc import check, guardrail

from .harness import Fleet, SidecarProc, wait_until

CLOSED, OPEN, HALF_OPEN = sg.BREAKER_STATE_CLOSED, sg.BREAKER_STATE_OPEN, sg.BREAKER_STATE_HALF_OPEN
FAILURE = sg.CALL_OUTCOME_FAILURE


def fail(s: SidecarProc, key: str) -> Any:
    a = s.safeguard.AcquirePermit(pb.AcquirePermitRequest(key=key))
    assert a.permitted, a
    return s.safeguard.ReportOutcome(pb.ReportOutcomeRequest(permit_id=a.permit_id, outcome=FAILURE))


def changes(s: SidecarProc, key: str) -> list[tuple[int, int, str]]:
    listed = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[EV.RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE], page_size=1000)
    )
    return sorted(
        (e.breaker_state_change.from_state, e.breaker_state_change.to_state, e.breaker_state_change.reason)
        for e in listed.events
        if e.breaker_state_change.key == key
    )


def configure(s: SidecarProc, key: str, **kw: Any) -> None:
    if "recovery_timeout" in kw:
        kw["recovery_timeout"] = Duration(nanos=int(kw["recovery_timeout"] * 1e9))
    s.safeguard.SetBreakerConfig(pb.SetBreakerConfigRequest(key=key, config=sg.BreakerConfig(**kw)))


def state(s: SidecarProc, key: str) -> int:
    return int(s.safeguard.GetBreaker(pb.GetBreakerRequest(key=key)).breaker.state)


def test_two_plus_two_failures_on_two_sidecars_open_it_with_one_event(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    configure(a, "fb-1:db", failure_threshold=3, recovery_timeout=0.4)
    wait_until(lambda: b.safeguard.GetBreaker(pb.GetBreakerRequest(key="fb-1:db")).breaker.state == CLOSED, "B")
    permits = [b.safeguard.AcquirePermit(pb.AcquirePermitRequest(key="fb-1:db")) for _ in range(2)]
    assert [fail(a, "fb-1:db").state for _ in range(2)] == [CLOSED, CLOSED]
    answers = [
        b.safeguard.ReportOutcome(pb.ReportOutcomeRequest(permit_id=p.permit_id, outcome=FAILURE)) for p in permits
    ]
    # A's two and B's first make three, fleet-wide: that failure opens it; B's second is of the old generation.
    assert [(r.state, r.failure_count, r.counted) for r in answers] == [(OPEN, 3, True), (OPEN, 3, False)]
    assert answers[0].directive == sg.BREAKER_DIRECTIVE_DEGRADE
    assert state(c, "fb-1:db") == OPEN
    wait_until(lambda: not c.safeguard.AcquirePermit(pb.AcquirePermitRequest(key="fb-1:db")).permitted, "C refuses")
    # OPEN -> HALF_OPEN: three schedulers race for it after 0.4 s; one wins, one event.
    wait_until(lambda: state(a, "fb-1:db") == HALF_OPEN, "half open")
    time.sleep(0.3)  # every scheduler has ticked several times since
    assert changes(a, "fb-1:db") == [
        (CLOSED, OPEN, "failure threshold reached"),
        (OPEN, HALF_OPEN, "recovery timeout elapsed"),
    ]


def test_force_open_on_a_stops_b_and_c(shared_fleet: Fleet) -> None:
    a, b, c = shared_fleet.sidecars
    key = "fb-2"
    a.supervisor.AddGuardrail(guardrail("circuit-fb-2", "breaker", actions=["fb2.*"]))
    # The guardrail's CheckAction permit comes from each sidecar's cache (B and C learn the chain first).
    wait_until(lambda: bool(b.supervisor.CheckAction(check(key, "fb2.call")).permit_id), "B's chain")
    wait_until(lambda: bool(c.supervisor.CheckAction(check(key, "fb2.call")).permit_id), "C's chain")
    for s in (b, c):
        assert s.safeguard.AcquirePermit(pb.AcquirePermitRequest(key=key)).permitted
    a.safeguard.ForceOpen(pb.ForceOpenRequest(key=key, reason="drill"))
    # Reaches B and C (the latency, p99, is measured by `make bench` and in docs/benchmarks.md).
    wait_until(
        lambda: (
            not b.safeguard.AcquirePermit(pb.AcquirePermitRequest(key=key)).permitted
            and not c.safeguard.AcquirePermit(pb.AcquirePermitRequest(key=key)).permitted
        ),
        "B and C refuse",
    )
    blocked = c.supervisor.CheckAction(check(key, "fb2.call"))
    assert not blocked.allowed and "OPEN" in blocked.reason
    a.safeguard.ForceClose(pb.ForceCloseRequest(key=key))
    wait_until(lambda: b.supervisor.CheckAction(check(key, "fb2.call")).allowed, "B allows again")
    assert [t for _, t, _ in changes(b, key)].count(OPEN) == 1
