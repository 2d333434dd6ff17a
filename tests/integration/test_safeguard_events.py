"""Breaker state changes and budget signals reach the recovery event stream and the agent's control channel."""

from __future__ import annotations

from outrider.v1 import recovery_pb2, safeguard_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as spb

from .harness import RunningSidecar
from .recovery_sim import SimAgent, eventually, register

EV = recovery_pb2


def events(s: RunningSidecar, kind: int) -> list[recovery_pb2.RecoveryEvent]:
    return list(s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest(types=[kind], page_size=100)).events)


def test_breaker_state_changes_are_recovery_events(sidecar: RunningSidecar) -> None:
    for _ in range(3):
        permit = sidecar.safeguard.AcquirePermit(spb.AcquirePermitRequest(key="worker-1:db"))
        sidecar.safeguard.ReportOutcome(
            spb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=safeguard_pb2.CALL_OUTCOME_FAILURE)
        )
    eventually(lambda: len(events(sidecar, EV.RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE)) >= 1, what="breaker event")
    [e] = events(sidecar, EV.RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE)
    change = e.breaker_state_change
    assert (e.agent_id, change.key, change.to_state, change.failure_count) == (
        "worker-1",
        "worker-1:db",
        safeguard_pb2.BREAKER_STATE_OPEN,
        3,
    )


def test_budget_signals_go_to_the_agent_and_the_event_stream(sidecar: RunningSidecar) -> None:
    register(sidecar, "worker-1")
    with SimAgent(sidecar.recovery, "worker-1") as agent:
        agent.wait_accepted()
        sidecar.safeguard.Allocate(spb.AllocateRequest(agent_id="worker-1", tokens=1000))
        sidecar.safeguard.Consume(spb.ConsumeRequest(agent_id="worker-1", tokens=950))
        warn = agent.wait_command(EV.CONTROL_COMMAND_TYPE_SIGWARN)
        assert warn.budget_signal.agent_id == "worker-1" and warn.budget_signal.used == 950
        sidecar.safeguard.Consume(spb.ConsumeRequest(agent_id="worker-1", tokens=100))
        stop = agent.wait_command(EV.CONTROL_COMMAND_TYPE_SIGSTOP)
        assert stop.budget_signal.used == 1050
        sidecar.safeguard.Allocate(spb.AllocateRequest(agent_id="worker-1", tokens=5000))
        agent.wait_command(EV.CONTROL_COMMAND_TYPE_SIGRESUME)
    eventually(lambda: len(events(sidecar, EV.RECOVERY_EVENT_TYPE_BUDGET_SIGNAL)) >= 3, what="signal events")
    signals = sorted(events(sidecar, EV.RECOVERY_EVENT_TYPE_BUDGET_SIGNAL), key=lambda e: e.sequence)
    kinds = [e.budget_signal.type for e in signals]
    assert kinds[:3] == [
        safeguard_pb2.BUDGET_SIGNAL_TYPE_SIGWARN,
        safeguard_pb2.BUDGET_SIGNAL_TYPE_SIGSTOP,
        safeguard_pb2.BUDGET_SIGNAL_TYPE_SIGRESUME,
    ]
