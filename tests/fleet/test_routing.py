"""Commands reach the agent wherever it is attached: KILL, HANDOFF, RESTART and budget signals issued on
one sidecar go through the one holding the agent's channel (fleet_commands, NOTIFY, the ack written back);
an agent whose sidecar is gone answers "not connected" promptly; a holder dying mid-command is reported."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import common_pb2
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.recovery_sim import SimAgent, silent
from tests.integration.rpc import error_info

from .conftest import fast_failover_fleet
from .harness import Fleet, SidecarProc, wait_until

# Three sidecar processes start in the module fixture: generous on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(300)
KILL, HANDOFF, RESTART, SIGWARN = (
    r.CONTROL_COMMAND_TYPE_KILL,
    r.CONTROL_COMMAND_TYPE_HANDOFF,
    r.CONTROL_COMMAND_TYPE_RESTART,
    r.CONTROL_COMMAND_TYPE_SIGWARN,
)


@pytest.fixture(scope="module")
def route_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    yield from fast_failover_fleet(tmp_path_factory, "routing")


def attach(s: SidecarProc, agent_id: str, behavior: Any = None) -> SimAgent:
    s.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))
    agent = SimAgent(s.recovery, agent_id) if behavior is None else SimAgent(s.recovery, agent_id, behavior)
    agent.wait_accepted()
    return agent


# A callback timeout far beyond any wait of these tests: a kill that answers at all did not wait for it.
NEVER = 600


def kill(s: SidecarProc, agent_id: str, callback: int = 5, **kw: Any) -> r.KillResult:
    req = rpb.KillRequest(
        agent_id=agent_id, reason=r.KILL_REASON_MANUAL, callback_timeout=Duration(seconds=callback), **kw
    )
    return s.recovery.Kill(req, timeout=60).result


def step(saga: str, step_id: str) -> r.SagaStep:
    payload = struct_pb2.Struct()
    payload.update({"order": 7})
    return r.SagaStep(saga_id=saga, step_id=step_id, action="notify", payload=payload)


def kill_ends_the_stream_on_b(fleet: Fleet) -> tuple[SidecarProc, SimAgent]:
    """Kill on A an agent attached to B: the ack comes, B ends the agent's stream. Returns B and the agent
    (the caller closes it)."""
    a, b, _ = fleet.sidecars[:3]
    agent = attach(b, "route-kill-1")
    try:
        result = kill(a, "route-kill-1", callback=NEVER)  # answered within the RPC's 60 s: the ack came
        assert result.terminated and result.detail == "ok", result
        assert len(agent.of(KILL)) == 1 and agent.of(KILL)[0].kill.kill_id == result.kill_id
        err = agent.wait_ended()
        assert err is not None and err.code() is grpc.StatusCode.ABORTED
        assert error_info(err).reason == "AGENT_KILLED"
    except BaseException:
        agent.close()
        raise
    return b, agent


def test_a_kill_on_a_reaches_the_agent_attached_to_b_and_ends_its_stream(route_fleet: Fleet) -> None:
    b, agent = kill_ends_the_stream_on_b(route_fleet)
    try:
        with pytest.raises(grpc.RpcError) as hb:  # B no longer takes its heartbeats
            b.recovery.Heartbeat(rpb.HeartbeatRequest(agent_id="route-kill-1"))
        assert hb.value.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED)
    finally:
        agent.close()


def test_a_kill_whose_ack_never_comes_still_ends_the_stream_on_the_holder(route_fleet: Fleet) -> None:
    a, _, c = route_fleet.sidecars[:3]
    agent = attach(c, "route-kill-2", silent)
    try:
        result = kill(a, "route-kill-2", callback=1)
        assert not result.terminated and result.detail == "kill ack timeout after 1s", result
        assert len(agent.of(KILL)) == 1  # delivered once, never again
        err = agent.wait_ended()
        assert err is not None and error_info(err).reason == "AGENT_KILLED"
    finally:
        agent.close()


def test_a_kill_of_an_agent_whose_sidecar_was_sigkilled_answers_not_connected_promptly(route_fleet: Fleet) -> None:
    a = route_fleet[0]
    d = route_fleet.start("D", config=route_fleet.tmp / "outrider.yaml")
    agent = attach(d, "route-dead-1")
    d.close(signal.SIGKILL)
    agent.wait_ended()
    # Answered within the RPC's 60 s deadline with a 600 s callback timeout: it did not wait for the ack.
    result = kill(a, "route-dead-1", callback=NEVER)
    assert not result.terminated and result.detail == "not connected", result


def test_a_sidecar_dying_mid_kill_is_reported_never_lost(route_fleet: Fleet) -> None:
    a = route_fleet[0]
    d = route_fleet.start("E", config=route_fleet.tmp / "outrider.yaml")
    agent = attach(d, "route-midway-1", silent)  # takes the KILL, never acks
    out: list[r.KillResult] = []
    # The ack never comes and the callback timeout is 600 s: returning within the RPC's 60 s proves the
    # holder's death was noticed (and the detail says so, not "kill ack timeout").
    runner = threading.Thread(target=lambda: out.append(kill(a, "route-midway-1", callback=NEVER)))
    runner.start()
    try:
        agent.wait_command(KILL, timeout=30)
        d.close(signal.SIGKILL)  # the holder dies after delivering
        runner.join(90)
    finally:
        agent.close()
    assert out, "the kill did not return"
    assert not out[0].terminated and out[0].detail.startswith("kill outcome unknown: "), out[0]
    assert len(agent.of(KILL)) == 1


def test_a_handoff_goes_to_a_substitute_attached_to_a_third_sidecar(route_fleet: Fleet) -> None:
    a, b, c = route_fleet.sidecars[:3]
    victim = attach(a, "route-victim-1")
    sub = attach(c, "route-sub-1")
    try:
        register = rpb.RegisterSubstituteRequest(session_id="route-s1", agent_id="route-sub-1", request_id="rs-1")
        c.recovery.RegisterSubstitute(register)
        # The same request again on A (before or after C's notification arrived): the same entry, never INTERNAL.
        again = a.recovery.RegisterSubstitute(register)
        assert again.substitute.agent_id == "route-sub-1" and again.substitute.position == 0
        wait_until(
            lambda: len(b.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(session_id="route-s1")).substitutes) == 1,
            "B sees the substitute",
        )
        result = kill(b, "route-victim-1", session_id="route-s1", in_flight_steps=[step("o-1", "s1")])
        assert result.terminated
        assert [h.status for h in result.handoffs] == [r.HANDOFF_STATUS_HANDED_OFF], result
        assert result.handoffs[0].to_agent == "route-sub-1" and result.handoff_success_count == 1
        handoff = sub.wait_command(HANDOFF).handoff
        assert (handoff.kill_id, handoff.from_agent, handoff.step.step_id) == (result.kill_id, "route-victim-1", "s1")
        assert handoff.step.payload["order"] == 7
        assert len(sub.of(HANDOFF)) == 1
    finally:
        victim.close()
        sub.close()


def test_registering_a_substitute_on_two_sidecars_at_once_is_never_internal(route_fleet: Fleet) -> None:
    a, b, _ = route_fleet.sidecars[:3]
    a.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="route-sub-2")))
    wait_until(lambda: _can_substitute(b, "route-sub-2"), "B's registry has the agent")
    codes: list[grpc.StatusCode] = []

    def register(s: SidecarProc, request_id: str) -> None:
        req = rpb.RegisterSubstituteRequest(group="rg", agent_id="route-sub-2", request_id=request_id)
        try:
            s.recovery.RegisterSubstitute(req)
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as err:
            codes.append(err.code())

    # The same request (one request id) retried on A and B at once, and two other registrations.
    calls = [(a, "same"), (b, "same"), (a, "other-a"), (b, "other-b")]
    threads = [threading.Thread(target=register, args=call) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(codes) == 4 and set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.ALREADY_EXISTS}, codes
    assert codes.count(grpc.StatusCode.OK) >= 1
    # Registered on A or B: A lists it within the fleet's notification bound.
    wait_until(
        lambda: (
            [s.agent_id for s in a.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(group="rg")).substitutes]
            == ["route-sub-2"]
        ),
        "A lists the one substitute",
    )
    # And a retry of whichever won, on the other sidecar, answers with the stored entry.
    wait_until(
        lambda: (
            [s.agent_id for s in b.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(group="rg")).substitutes]
            == ["route-sub-2"]
        ),
        "B lists the one substitute",
    )


def _can_substitute(s: SidecarProc, agent_id: str) -> bool:
    try:
        s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(group="rg-probe", agent_id=agent_id))
        return True
    except grpc.RpcError as err:
        assert err.code() is grpc.StatusCode.NOT_FOUND, err
        return False


def test_a_restart_triggered_on_a_reaches_the_agent_attached_to_b(route_fleet: Fleet) -> None:
    a, b, _ = route_fleet.sidecars[:3]
    agent = attach(b, "route-restart-1")
    try:
        triggered: list[Any] = []

        def trigger() -> bool:  # A learns of the agent registered on B through NOTIFY
            try:
                req = rpb.TriggerRecoveryRequest(agent_id="route-restart-1", reason="drill")
                triggered.append(a.recovery.TriggerRecovery(req))
                return True
            except grpc.RpcError as err:
                assert err.code() is grpc.StatusCode.NOT_FOUND, err
                return False

        wait_until(trigger, "A knows the agent")
        result = triggered[0]
        assert "restart sent" in result.result.detail, result
        command = agent.wait_command(RESTART)
        assert command.reason == "drill" and len(agent.of(RESTART)) == 1
    finally:
        agent.close()


def test_a_budget_signal_caused_on_a_reaches_the_agent_attached_to_b(route_fleet: Fleet) -> None:
    a, b, _ = route_fleet.sidecars[:3]
    agent = attach(b, "route-budget-1")
    try:
        a.safeguard.Allocate(pb.AllocateRequest(agent_id="route-budget-1", tokens=1_000))
        a.safeguard.Consume(pb.ConsumeRequest(agent_id="route-budget-1", tokens=950))  # 95 %: SIGWARN
        command = agent.wait_command(SIGWARN)
        assert len(agent.of(SIGWARN)) == 1 and command.budget_signal.used == 950
    finally:
        agent.close()
