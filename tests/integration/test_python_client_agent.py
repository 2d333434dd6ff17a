"""The Python client's `Agent` helper on a real control channel: pings answered on its own, RESTART /
RESTART_CLEAN / KILL / HANDOFF through callbacks with the right acks, stream heartbeats, reconnects after
the sidecar drops the stream (a re-sent command acked again, run once), a replaced stream, budget signals,
and the asyncio twin."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import struct_pb2

from outrider import (
    Agent,
    AsyncAgent,
    AsyncClient,
    Budget,
    Client,
    Command,
    CommandRejected,
    CommandType,
    Handoff,
    KillReason,
    NotFoundError,
    Signal,
    SignalType,
    heartbeat,
)
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as spb
from server.domain.access.principals import PrincipalKind
from server.domain.errors import Unavailable
from server.domain.recovery.control import CommandOutcome, CommandResult, Delivery

from .harness import RunningSidecar
from .recovery_sim import SimAgent, eventually, ping_check, register, seconds


def agent_client(s: RunningSidecar, agent_id: str) -> Client:
    return Client(s.sidecar.target, s.issue(PrincipalKind.AGENT, agent_id), timeout=30)


@pytest.fixture
def op(sidecar: RunningSidecar) -> Iterator[Client]:
    with Client(sidecar.sidecar.target, sidecar.operator_secret, timeout=30) as c:
        yield c


def result_of(s: RunningSidecar, command_id: str) -> CommandResult | None:
    return s.services.recovery.hub.result_of(command_id)  # type: ignore[no-any-return]


def acked(s: RunningSidecar, command_id: str) -> tuple[CommandOutcome | None, str]:
    eventually(lambda: result_of(s, command_id) is not None, what=f"the ack of {command_id}")
    done = result_of(s, command_id)
    assert done is not None and done.delivery is Delivery.ACKED, done
    return done.outcome, done.detail


def no_cooldown(s: RunningSidecar, action: int = r.RECOVERY_ACTION_RESTART) -> None:
    policy = r.RecoveryPolicy(group="", cooldown=seconds(0), default_action=action, max_retries=10, escalate_after=10)
    s.recovery.SetRecoveryPolicy(rpb.SetRecoveryPolicyRequest(policy=policy))


def restart(s: RunningSidecar, agent_id: str) -> str:
    result = s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id=agent_id, reason="test")).result
    assert result.command_id, result.detail
    return str(result.command_id)


def test_the_agent_answers_a_ping_health_check(sidecar: RunningSidecar) -> None:
    register(sidecar, "a1")
    sidecar.recovery.AddHealthCheck(ping_check("a1", timeout=2))
    with agent_client(sidecar, "a1") as c, Agent(c, "a1", instance_id="host:42") as agent:
        assert agent.connected and agent.connects == 1
        statuses = sidecar.recovery.RunHealthChecks(rpb.RunHealthChecksRequest()).statuses
        assert [(st.agent_id, st.healthy, st.reason) for st in statuses] == [("a1", True, "")]
        status = sidecar.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="a1")).status
        assert status.connected
        conn = sidecar.services.recovery.hub.connection("a1")
        assert (conn.instance_id, conn.client) == ("host:42", "outrider-python/0.1.0")
    eventually(lambda: not sidecar.services.recovery.hub.is_connected("a1"), what="the stream closed")
    assert (agent.stopped_because, agent.connected) == ("closed", False)


def test_restart_commands_reach_the_callbacks_and_are_acked(sidecar: RunningSidecar) -> None:
    register(sidecar, "a1")
    no_cooldown(sidecar)
    got: list[Command] = []

    def on_restart(command: Command) -> None:
        got.append(command)

    def on_restart_clean(command: Command) -> None:
        raise RuntimeError("disk full")

    with agent_client(sidecar, "a1") as c, Agent(c, "a1", on_restart=on_restart, on_restart_clean=on_restart_clean):
        first = restart(sidecar, "a1")
        assert acked(sidecar, first) == (CommandOutcome.SUCCESS, "")
        assert [(g.command_id, g.type, g.reason) for g in got] == [(first, "RESTART", "test")]
        assert got[0].type is CommandType.RESTART  # an enum that still equals the old string
        no_cooldown(sidecar, r.RECOVERY_ACTION_RESTART_CLEAN)
        clean = restart(sidecar, "a1")
        assert acked(sidecar, clean) == (CommandOutcome.FAILURE, "RuntimeError: disk full")
    with agent_client(sidecar, "a1") as c, Agent(c, "a1"):  # no callbacks: refused, not pretended
        unhandled = restart(sidecar, "a1")
        assert acked(sidecar, unhandled) == (CommandOutcome.REJECTED, "RESTART_CLEAN is not handled by this agent")
    assert len(got) == 1


def step(step_id: str) -> r.SagaStep:
    payload = struct_pb2.Struct()
    payload.update({"order": 42, "items": ["a", "b"]})
    return r.SagaStep(saga_id="order-9", step_id=step_id, action="notify_warehouse", payload=payload)


def test_kill_with_a_handoff_to_a_substitute_agent(sidecar: RunningSidecar) -> None:
    for agent_id in ("victim", "sub"):
        register(sidecar, agent_id)
    sidecar.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(session_id="sess-1", agent_id="sub"))
    kills: list[Command] = []
    handoffs: list[Handoff] = []

    def take(h: Handoff) -> bool:
        handoffs.append(h)
        return h.step_id == "s1"  # it takes the first step and turns the second down

    with (
        agent_client(sidecar, "victim") as vc,
        agent_client(sidecar, "sub") as sc,
        Agent(vc, "victim", on_kill=kills.append) as victim,
        Agent(sc, "sub", on_handoff=take) as sub,
    ):
        request = rpb.KillRequest(
            agent_id="victim",
            session_id="sess-1",
            reason=r.KILL_REASON_RING_BREACH,
            details="escape attempt",
            in_flight_steps=[step("s1"), step("s2")],
        )
        result = sidecar.recovery.Kill(request, timeout=30).result
        assert victim.wait(30) and (victim.stopped_because, victim.killed) == ("killed", True)
        assert victim.error is not None and victim.error.reason == "AGENT_KILLED"
        assert sub.connected and not sub.killed  # the substitute carries on
    assert (result.terminated, result.handoff_success_count, result.compensation_triggered) == (True, 1, True)
    s1, s2 = result.handoffs
    assert (s1.status, s1.to_agent) == (r.HANDOFF_STATUS_HANDED_OFF, "sub")
    assert [(a.to_agent, a.status, a.detail) for a in s2.attempts] == [
        ("sub", r.HANDOFF_STATUS_FAILED, "handoff failure: callback returned False")
    ]
    assert s2.status == r.HANDOFF_STATUS_COMPENSATED
    assert kills[0].type is CommandType.KILL and kills[0].kill and kills[0].kill.reason is KillReason.RING_BREACH
    assert [(k.type, k.kill.kill_id, k.kill.reason, k.kill.details) for k in kills if k.kill] == [
        ("KILL", result.kill_id, "RING_BREACH", "escape attempt")
    ]
    h = handoffs[0]
    assert (h.kill_id, h.session_id, h.from_agent, h.saga_id, h.step_id, h.action) == (
        result.kill_id,
        "sess-1",
        "victim",
        "order-9",
        "s1",
        "notify_warehouse",
    )
    assert h.payload == {"order": 42, "items": ["a", "b"]}
    assert [x.step_id for x in handoffs] == ["s1", "s2"]


def test_kill_without_a_callback_is_acked_and_a_refusing_one_still_ends_the_agent(sidecar: RunningSidecar) -> None:
    for agent_id in ("a1", "a2"):
        register(sidecar, agent_id)

    def refuse(command: Command) -> None:
        raise CommandRejected("not now")

    with (
        agent_client(sidecar, "a1") as c1,
        agent_client(sidecar, "a2") as c2,
        Agent(c1, "a1") as plain,
        Agent(c2, "a2", on_kill=refuse) as stubborn,
    ):
        done = sidecar.recovery.Kill(rpb.KillRequest(agent_id="a1", reason=r.KILL_REASON_MANUAL), timeout=30)
        assert (done.result.terminated, done.result.detail) == (True, "terminating")
        refused = sidecar.recovery.Kill(rpb.KillRequest(agent_id="a2", reason=r.KILL_REASON_MANUAL), timeout=30)
        assert (refused.result.terminated, refused.result.detail) == (False, "kill rejected: not now")
        for agent in (plain, stubborn):  # killed means unregistered: neither reconnects
            assert agent.wait(30) and agent.stopped_because == "killed"


def test_reconnects_after_the_sidecar_drops_the_stream(sidecar: RunningSidecar) -> None:
    """The stream breaks while a RESTART callback runs and the callback ends while disconnected: the ack has
    no stream to go to. On the next stream the sidecar re-sends the command with the same id; the helper
    acks it again from memory, without running the callback twice. Pings work on the new stream."""
    register(sidecar, "a1")
    no_cooldown(sidecar)
    sidecar.recovery.AddHealthCheck(ping_check("a1", timeout=2))
    hub = sidecar.services.recovery.hub
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    runs: list[str] = []

    def slow_restart(command: Command) -> None:
        runs.append(command.command_id)
        started.set()
        assert release.wait(60)
        finished.set()

    with (
        agent_client(sidecar, "a1") as c,
        Agent(c, "a1", on_restart=slow_restart, reconnect_base=1.0, rng=random.Random(3)) as agent,
    ):
        command_id = restart(sidecar, "a1")
        assert started.wait(30)
        sidecar.loop.call_soon_threadsafe(hub.end_stream, "a1", Unavailable("dropped by the test"))
        eventually(lambda: not agent.connected, what="the helper saw the stream end")
        assert agent.error is not None and agent.error.message == "dropped by the test"
        release.set()  # the callback ends while there is no stream (the reconnect waits 0.5-1.5 s)
        assert finished.wait(30)
        eventually(lambda: agent.connects == 2, what="the reconnect")
        assert acked(sidecar, command_id) == (CommandOutcome.SUCCESS, "")
        assert runs == [command_id]
        statuses = sidecar.recovery.RunHealthChecks(rpb.RunHealthChecksRequest()).statuses
        assert [st.healthy for st in statuses] == [True]
        sidecar.loop.call_soon_threadsafe(hub.end_stream, "a1", None)  # a normal end: reconnect too
        eventually(lambda: agent.connects == 3, what="the second reconnect")
        assert agent.connected and not agent.stopped_because


def test_another_process_attaching_as_the_agent_replaces_the_helper(sidecar: RunningSidecar) -> None:
    register(sidecar, "a1")
    with (
        agent_client(sidecar, "a1") as c,
        Agent(c, "a1", reconnect_base=0.01) as agent,
        SimAgent(sidecar.as_agent("a1").recovery, "a1") as other,
    ):
        other.wait_accepted()
        assert agent.wait(30) and agent.stopped_because == "replaced"
        assert agent.error is not None and agent.error.reason == "STREAM_REPLACED"
        time.sleep(0.3)  # were it to reconnect, it would have by now
        assert sidecar.services.recovery.hub.connection("a1").instance_id == "sim:1"  # no tug of war


def test_an_unregistered_agent_is_refused_at_once(sidecar: RunningSidecar) -> None:
    with agent_client(sidecar, "ghost") as c:
        with pytest.raises(NotFoundError) as err, Agent(c, "ghost"):
            pass
        assert err.value.field == "hello.agent_id"
        with pytest.raises(NotFoundError):
            heartbeat(c, "ghost")


def test_heartbeats_on_the_stream_and_without_one(sidecar: RunningSidecar) -> None:
    """With a heartbeat check the sidecar asks for a heartbeat every half silence threshold; the helper
    sends them on its stream, so the agent stays healthy while idle. `heartbeat()` is the unary fallback.

    A busy host may freeze either process for longer than the threshold, and the agent is then rightly silent
    for a moment: so the test idles past twice the threshold and then waits for "healthy", which only a helper
    that keeps sending heartbeats can reach (a silent agent stays silent)."""
    register(sidecar, "a1")
    check = r.HealthCheck(heartbeat=r.HeartbeatCheck(silence_threshold=seconds(0.4)))
    sidecar.recovery.AddHealthCheck(rpb.AddHealthCheckRequest(agent_id="a1", check=check))

    def health() -> list[tuple[bool, str]]:
        return [
            (st.healthy, st.reason) for st in sidecar.recovery.RunHealthChecks(rpb.RunHealthChecksRequest()).statuses
        ]

    with agent_client(sidecar, "a1") as c:
        assert heartbeat(c, "a1") == 0.2
        with Agent(c, "a1") as agent:
            time.sleep(1.0)  # idle for more than twice the silence threshold
            eventually(lambda: health() == [(True, "")], what="an idle agent on its stream is healthy")
            assert agent.heartbeat() == 0.2
        time.sleep(0.6)  # no stream, no heartbeat: silent
        eventually(lambda: not health()[0][0] and health()[0][1].startswith("silent for"), what="silent")

    async def idle_async_agent() -> None:
        async with (
            AsyncClient(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, "a1")) as ac,
            AsyncAgent(ac, "a1"),
        ):
            await asyncio.sleep(1.0)
            deadline = time.monotonic() + 30
            while health() != [(True, "")]:
                assert time.monotonic() < deadline, "an idle async agent on its stream is healthy"
                await asyncio.sleep(0.05)

    asyncio.run(idle_async_agent())


def test_budget_signals_reach_on_signal(sidecar: RunningSidecar, op: Client) -> None:
    """The sidecar sends an agent's own signals to that agent, and global ones to every attached agent."""
    register(sidecar, "a1")
    got: list[Signal] = []
    with agent_client(sidecar, "a1") as c, Agent(c, "a1", on_signal=got.append):
        b = Budget(op, "a1")
        b.allocate(100)
        b.consume(95)  # SIGWARN and ...
        b.consume(5)  # ... SIGSTOP
        b.allocate(200)  # room again: SIGRESUME
        op.call(op.safeguard.SetGlobalBudget, spb.SetGlobalBudgetRequest(tokens=110))  # the pool at 91%
        eventually(lambda: len(got) == 4, what="four signals")
    assert [(g.type, g.agent_id, g.is_global, g.used, g.allocated) for g in got] == [
        ("SIGWARN", "a1", False, 95, 100),
        ("SIGSTOP", "a1", False, 100, 100),
        ("SIGRESUME", "a1", False, 0, 200),
        ("SIGWARN", "", True, 100, 110),
    ]
    assert [g.type for g in got] == [SignalType.SIGWARN, SignalType.SIGSTOP, SignalType.SIGRESUME, SignalType.SIGWARN]
    assert all(isinstance(g.type, SignalType) for g in got)


def test_async_agent(sidecar: RunningSidecar) -> None:
    for agent_id in ("a1", "sub"):
        register(sidecar, agent_id)
    no_cooldown(sidecar)
    sidecar.recovery.AddHealthCheck(ping_check("a1", timeout=2))
    sidecar.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(session_id="s", agent_id="sub"))
    seen: list[str] = []

    async def on_restart(command: Command) -> None:
        await asyncio.sleep(0)
        seen.append(command.type)

    def on_handoff(h: Handoff) -> bool:  # a plain function runs in a worker thread
        seen.append(f"handoff {h.step_id}")
        return True

    async def on_kill(command: Command) -> Any:
        seen.append("kill")
        return None

    agents: list[AsyncAgent] = []

    def operator_side() -> tuple[list[bool], Any, Any]:
        healthy = [st.healthy for st in sidecar.recovery.RunHealthChecks(rpb.RunHealthChecksRequest()).statuses]
        hub = sidecar.services.recovery.hub
        sidecar.loop.call_soon_threadsafe(hub.end_stream, "a1", Unavailable("dropped by the test"))
        eventually(lambda: agents[0].connects == 2, what="the reconnect")
        command_id = restart(sidecar, "a1")
        restarted = acked(sidecar, command_id)
        request = rpb.KillRequest(
            agent_id="a1", session_id="s", reason=r.KILL_REASON_MANUAL, in_flight_steps=[step("x")]
        )
        return healthy, restarted, sidecar.recovery.Kill(request, timeout=30).result

    async def go() -> tuple[Any, ...]:
        async with (
            AsyncClient(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, "a1")) as c1,
            AsyncClient(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, "sub")) as c2,
            AsyncAgent(c1, "a1", on_restart=on_restart, on_kill=on_kill, reconnect_base=0.05) as agent,
            AsyncAgent(c2, "sub", on_handoff=on_handoff) as sub,
        ):
            assert agent.connected and sub.connected
            agents.append(agent)
            healthy, restarted, killed = await asyncio.to_thread(operator_side)
            assert await agent.wait(30)
            return healthy, restarted, killed, agent.stopped_because, await sub.heartbeat()

    healthy, restarted, killed, why, interval = asyncio.run(go())
    assert (healthy, restarted, why, interval) == ([True], (CommandOutcome.SUCCESS, ""), "killed", None)
    assert (killed.terminated, killed.handoff_success_count) == (True, 1)
    assert seen == ["RESTART", "handoff x", "kill"]
