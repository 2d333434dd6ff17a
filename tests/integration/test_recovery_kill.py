"""The kill switch with saga handoff over real gRPC (the Agent Governance Toolkit, section 4 and 6): intent first,
real handoffs
acked by substitutes, compensation, the termination callback's three outcomes, unconditional unregistration,
durable history, concurrency."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2

from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2
from outrider.v1 import supervisor_service_pb2 as spb
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .recovery_sim import FAILURE, SimAgent, ack_except, eventually, ping_check, register, seconds, silent
from .rpc import error_info

HANDOFF, KILL = r.CONTROL_COMMAND_TYPE_HANDOFF, r.CONTROL_COMMAND_TYPE_KILL
PENDING, HANDED_OFF, FAILED, COMPENSATED = (
    r.HANDOFF_STATUS_PENDING,
    r.HANDOFF_STATUS_HANDED_OFF,
    r.HANDOFF_STATUS_FAILED,
    r.HANDOFF_STATUS_COMPENSATED,
)
MANUAL = r.KILL_REASON_MANUAL


def step(saga: str, step_id: str, action: str = "notify_warehouse", **kw: Any) -> r.SagaStep:
    payload = struct_pb2.Struct()
    payload.update({"order": 42})
    return r.SagaStep(saga_id=saga, step_id=step_id, action=action, payload=payload, **kw)


def kill(s: RunningSidecar, agent_id: str, **kw: Any) -> r.KillResult:
    kw.setdefault("reason", MANUAL)
    return s.recovery.Kill(rpb.KillRequest(agent_id=agent_id, **kw), timeout=30).result


def substitutes(s: RunningSidecar, session: str, *agents: str) -> None:
    for agent_id in agents:
        s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(session_id=session, agent_id=agent_id))


def test_kill_hands_each_step_to_the_first_substitute_that_acks(s: RunningSidecar) -> None:
    for agent_id in ("victim", "offline", "refuser", "taker"):
        register(s, agent_id)
    substitutes(s, "sess-1", "victim", "offline", "refuser", "taker")
    refuse = lambda c: (FAILURE, "busy") if c.type == HANDOFF else None  # noqa: E731
    with (
        SimAgent(s.as_agent("victim").recovery, "victim") as victim,
        SimAgent(s.as_agent("refuser").recovery, "refuser", refuse) as refuser,
        SimAgent(s.as_agent("taker").recovery, "taker") as taker,
    ):
        for a in (victim, refuser, taker):
            a.wait_accepted()
        result = kill(
            s, "victim", session_id="sess-1", in_flight_steps=[step("order-9", "s4"), step("order-9", "s5")],
            details="drifting", reason=r.KILL_REASON_BEHAVIORAL_DRIFT,
        )  # fmt: skip
        assert victim.wait_ended() is not None and victim.error.code() == grpc.StatusCode.ABORTED
        assert error_info(victim.error).reason == "AGENT_KILLED"
        handoff = taker.of(HANDOFF)[0].handoff
        assert (handoff.kill_id, handoff.session_id, handoff.from_agent) == (result.kill_id, "sess-1", "victim")
        assert (handoff.step.saga_id, handoff.step.step_id, handoff.step.payload["order"]) == ("order-9", "s4", 42)
        assert victim.of(HANDOFF) == []  # never the killed agent
    assert re.fullmatch(r"kill:[0-9a-f]{8}", result.kill_id)
    assert (result.agent_id, result.session_id, result.reason) == ("victim", "sess-1", r.KILL_REASON_BEHAVIORAL_DRIFT)
    assert (result.handoff_success_count, result.compensation_triggered, result.terminated) == (2, False, True)
    assert result.detail == "ok" and result.request_details == "drifting"
    assert result.requested_by == "operator:test-operator" and result.HasField("complete_time")
    first = result.handoffs[0]
    assert (first.status, first.to_agent, first.from_agent, first.kill_id) == (
        HANDED_OFF,
        "taker",
        "victim",
        result.kill_id,
    )
    assert [(a.to_agent, a.status, a.detail) for a in first.attempts] == [
        ("offline", FAILED, "not connected"),
        ("refuser", FAILED, "handoff failure: busy"),
        ("taker", HANDED_OFF, "ok"),
    ]
    events = s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest(agent_id="victim")).events
    kinds = [e.type for e in reversed(events)]
    assert kinds.count(r.RECOVERY_EVENT_TYPE_HANDOFF) == 12 and kinds[-1] == r.RECOVERY_EVENT_TYPE_KILL
    audit = [rec.action for rec in s.services.audit.repo.iter_all()]
    assert audit.count("kill.handoff") == 2 and {"kill.start", "kill.complete"} <= set(audit)


def test_without_substitutes_steps_are_compensated(s: RunningSidecar) -> None:
    register(s, "victim")
    undo = safeguard_pb2.CompensatingAction(description="recall", action="cancel_notification")
    result = kill(
        s, "victim", session_id="lonely", in_flight_steps=[step("o", "s1", compensation=[undo]), step("o", "s2")]
    )
    assert (result.handoff_success_count, result.compensation_triggered) == (0, True)
    assert [(h.status, h.to_agent, list(h.attempts)) for h in result.handoffs] == [
        (COMPENSATED, "", []),
        (COMPENSATED, "", []),
    ]
    assert [c.action for c in result.handoffs[0].compensating_actions] == ["cancel_notification"]
    assert (result.terminated, result.detail) == (False, "not connected")
    compensated = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[r.RECOVERY_EVENT_TYPE_HANDOFF])
    ).events
    assert [e.handoff.compensating_actions[0].action for e in compensated if e.handoff.step_id == "s1"] == [
        "cancel_notification"
    ]


def test_substitute_ack_timeout_fails_that_attempt_and_tries_the_next(s: RunningSidecar, clock: FakeClock) -> None:
    for agent_id in ("victim", "slow", "fast"):
        register(s, agent_id)
    substitutes(s, "sess", "slow", "fast")
    with (
        SimAgent(s.as_agent("slow").recovery, "slow", silent) as slow,
        SimAgent(s.as_agent("fast").recovery, "fast") as fast,
        ThreadPoolExecutor(1) as pool,
    ):
        slow.wait_accepted()
        fast.wait_accepted()
        call = pool.submit(kill, s, "victim", session_id="sess", in_flight_steps=[step("o", "s1")])
        slow.wait_command(HANDOFF)
        time.sleep(0.05)
        pending = s.recovery.ListKills(rpb.ListKillsRequest(agent_id="victim")).kills[0]
        assert not pending.HasField("complete_time") and pending.handoffs[0].status == PENDING
        assert pending.handoffs[0].attempts[0].status == PENDING  # the intent and the attempt are stored first
        clock.advance(5)  # the default handoff timeout, on the injected clock
        result = call.result(10)
    assert [(a.to_agent, a.status, a.detail) for a in result.handoffs[0].attempts] == [
        ("slow", FAILED, "handoff ack timeout after 5s"),
        ("fast", HANDED_OFF, "ok"),
    ]
    assert result.handoffs[0].to_agent == "fast"


def test_termination_acked_timed_out_or_not_connected(s: RunningSidecar, clock: FakeClock) -> None:
    for agent_id in ("acks", "hangs", "offline"):
        register(s, agent_id)
    with SimAgent(s.as_agent("acks").recovery, "acks") as a:
        a.wait_accepted()
        done = kill(s, "acks")
        assert a.of(KILL)[0].kill.kill_id == done.kill_id
    assert (done.terminated, done.detail) == (True, "ok")
    with SimAgent(s.as_agent("hangs").recovery, "hangs", ack_except(KILL)) as h, ThreadPoolExecutor(1) as pool:
        h.wait_accepted()
        call = pool.submit(kill, s, "hangs", callback_timeout=seconds(2))
        h.wait_command(KILL)
        clock.advance(2)
        timed_out = call.result(10)
        assert h.wait_ended() is not None and error_info(h.error).reason == "AGENT_KILLED"  # closed anyway
    assert (timed_out.terminated, timed_out.detail) == (False, "kill ack timeout after 2s")
    offline = kill(s, "offline")
    assert (offline.terminated, offline.detail) == (False, "not connected")
    # Unregistered whatever the outcome.
    for agent_id in ("acks", "hangs", "offline"):
        with pytest.raises(grpc.RpcError) as err:
            s.stub.GetAgent(spb.GetAgentRequest(agent_id=agent_id))
        assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert [k.agent_id for k in s.recovery.ListKills(rpb.ListKillsRequest()).kills] == ["offline", "hangs", "acks"]


def test_kill_unregisters_everywhere_and_runs_the_hooks(s: RunningSidecar, clock: FakeClock) -> None:
    for agent_id in ("victim", "other"):
        register(s, agent_id, "g")
    s.recovery.AddHealthCheck(ping_check("victim"))
    s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="victim"))
    substitutes(s, "sess-a", "victim", "other")
    s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(group="g", agent_id="victim"))
    seen: list[str] = []
    kills = s.services.recovery.kills
    kills.on_kill(lambda notice: seen.append(notice.agent_id) or 3, counts="leases")

    async def cancel(notice: Any) -> int:
        return 2

    kills.on_kill(cancel, counts="approvals")
    kills.on_kill(lambda notice: 1 / 0)  # a failing hook counts nothing and stops nothing
    result = kill(s, "victim")
    assert seen == ["victim"] and (result.revoked_lease_count, result.cancelled_approval_count) == (3, 2)
    assert [
        x.agent_id for x in s.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(session_id="sess-a")).substitutes
    ] == ["other"]
    assert s.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(group="g")).substitutes == []
    assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id="victim")).retry_count == 0
    assert s.services.recovery.health.spec("victim") is None
    # A killed agent is terminated: its credentials are refused until an operator reinstates it.
    with SimAgent(s.as_agent("victim").recovery, "victim") as again:
        assert again.wait_ended() is not None and again.error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_info(again.error).reason == "AGENT_TERMINATED"


def test_duplicate_substitute_and_validation(s: RunningSidecar) -> None:
    register(s, "victim")
    register(s, "sub")
    substitutes(s, "sess", "sub")
    with pytest.raises(grpc.RpcError) as err:
        substitutes(s, "sess", "sub")
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
    same = s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(session_id="x", agent_id="sub", request_id="q"))
    again = s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(session_id="x", agent_id="sub", request_id="q"))
    assert same.substitute == again.substitute  # a retry, not a duplicate
    for request, code, field in (
        (rpb.RegisterSubstituteRequest(agent_id="sub"), grpc.StatusCode.INVALID_ARGUMENT, "scope"),
        (rpb.RegisterSubstituteRequest(session_id="s", agent_id="ghost"), grpc.StatusCode.NOT_FOUND, "agent_id"),
    ):
        with pytest.raises(grpc.RpcError) as err:
            s.recovery.RegisterSubstitute(request)
        assert (err.value.code(), error_info(err.value).metadata["field"]) == (code, field)
    bad_kills = [
        (dict(in_flight_steps=[r.SagaStep(step_id="s1")]), "in_flight_steps[0].saga_id"),
        (dict(in_flight_steps=[step("o", "s1"), r.SagaStep(saga_id="o")]), "in_flight_steps[1].step_id"),
        (dict(in_flight_steps=[step("o", "s1"), step("o", "s1")]), "in_flight_steps[1]"),
        (dict(reason=r.KILL_REASON_UNSPECIFIED), "reason"),
        (dict(callback_timeout=seconds(-1)), "callback_timeout"),
    ]
    for kw, field in bad_kills:
        with pytest.raises(grpc.RpcError) as err:
            kill(s, "victim", **kw)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, field
        assert error_info(err.value).metadata["field"] == field
    assert s.recovery.ListKills(rpb.ListKillsRequest()).kills == []  # nothing was recorded for bad requests
    # An agent that never registered is stoppable too (tests/adversarial/test_kill_containment.py).
    assert kill(s, "ghost").agent_id == "ghost"
    with pytest.raises(grpc.RpcError) as err:
        s.recovery.GetKill(rpb.GetKillRequest(kill_id="kill:00000000"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_kill_in_progress_and_request_id_retry(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "victim")
    with SimAgent(s.as_agent("victim").recovery, "victim", silent) as v, ThreadPoolExecutor(1) as pool:
        v.wait_accepted()
        call = pool.submit(kill, s, "victim", request_id="k-1")
        v.wait_command(KILL)
        with pytest.raises(grpc.RpcError) as err:
            kill(s, "victim")
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert error_info(err.value).reason == "KILL_IN_PROGRESS"
        in_progress = s.recovery.GetKill(
            rpb.GetKillRequest(kill_id=s.recovery.ListKills(rpb.ListKillsRequest()).kills[0].kill_id)
        )
        assert not in_progress.result.HasField("complete_time")
        clock.advance(5)
        first = call.result(10)
    assert kill(s, "victim", request_id="k-1") == first  # the same kill, though the agent is gone


def test_twenty_concurrent_kills_give_twenty_records(s: RunningSidecar) -> None:
    agents = [f"agent-{i:02d}" for i in range(20)]
    for agent_id in agents:
        register(s, agent_id)
    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(lambda a: kill(s, a, in_flight_steps=[step("o", a)]), agents))
    assert len({x.kill_id for x in results}) == 20
    stored = s.recovery.ListKills(rpb.ListKillsRequest(page_size=100)).kills
    assert sorted(k.agent_id for k in stored) == agents
    assert all(k.HasField("complete_time") and k.compensation_triggered for k in stored)


def test_kill_history_survives_a_restart(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config) as s:
        register(s, "victim")
        done = kill(s, "victim", session_id="sess", reason=r.KILL_REASON_RATE_LIMIT, in_flight_steps=[step("o", "s1")])
    with RunningSidecar(config) as s:
        kills = s.recovery.ListKills(rpb.ListKillsRequest(reason=r.KILL_REASON_RATE_LIMIT)).kills
        assert list(kills) == [done]
        assert s.recovery.ListKills(rpb.ListKillsRequest(reason=MANUAL)).kills == []
        assert s.recovery.GetKill(rpb.GetKillRequest(kill_id=done.kill_id)).result == done


def test_an_interrupted_kill_is_completed_at_start_up(tmp_path: Path) -> None:
    clock = FakeClock()
    config = make_config(tmp_path)
    s = RunningSidecar(config, clock=clock)
    register(s, "victim")
    register(s, "sub")
    substitutes(s, "sess", "sub")
    with SimAgent(s.as_agent("sub").recovery, "sub", silent) as sub, ThreadPoolExecutor(1) as pool:
        sub.wait_accepted()
        call = pool.submit(kill, s, "victim", session_id="sess", in_flight_steps=[step("o", "s1")])
        sub.wait_command(HANDOFF)
        time.sleep(0.05)
        s.stop()  # the sidecar goes away mid-kill
        with pytest.raises(grpc.RpcError):
            call.result(10)
    with RunningSidecar(config, clock=clock) as s2:
        kills = s2.services.recovery.kills
        eventually(lambda: not kills.is_being_killed("victim"), what="the resumed kill")
        result = s2.recovery.ListKills(rpb.ListKillsRequest()).kills[0]
    assert [(a.to_agent, a.status, a.detail) for a in result.handoffs[0].attempts] == [
        ("sub", FAILED, "interrupted by a restart")
    ]
    assert result.handoffs[0].status == COMPENSATED and result.detail == "not connected"
