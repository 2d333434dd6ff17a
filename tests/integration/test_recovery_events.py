"""The control channel (Attach, Heartbeat, auth), the durable event stream with its resume cursor, and cascade
detection in and out of its sliding window, over real gRPC."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import grpc
import pytest

from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as spb
from tests.fakes import FakeClock

from .harness import RunningSidecar
from .recovery_sim import SimAgent, eventually, register, seconds, silent
from .rpc import error_info

CASCADE = r.RECOVERY_EVENT_TYPE_CASCADE


def fail(s: RunningSidecar, src: str, dst: str, **kw: Any) -> rpb.ReportFailureResponse:
    return s.recovery.ReportFailure(rpb.ReportFailureRequest(from_agent=src, to_agent=dst, **kw))


# ---- the control channel --------------------------------------------------------------------------


def test_attach_only_as_itself_and_only_when_registered(s: RunningSidecar) -> None:
    register(s, "w1")
    register(s, "w2")
    with SimAgent(s.as_agent("w1").recovery, "w2") as impostor:
        assert impostor.wait_ended() is not None and impostor.error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_info(impostor.error).reason == "NOT_YOUR_AGENT"
    with SimAgent(s.as_agent("ghost").recovery, "ghost") as ghost:
        assert ghost.wait_ended() is not None and ghost.error.code() == grpc.StatusCode.NOT_FOUND
    with SimAgent(s.as_agent("w1").recovery, "w1", hello=False) as no_hello:
        no_hello.heartbeat()
        assert no_hello.wait_ended() is not None and no_hello.error.code() == grpc.StatusCode.INVALID_ARGUMENT
    with SimAgent(s.as_agent("w1").recovery, "w1") as agent:
        agent.wait_accepted()
        agent.send(rpb.AttachRequest(hello=r.AttachHello(agent_id="w1")))
        assert agent.wait_ended() is not None and agent.error.code() == grpc.StatusCode.INVALID_ARGUMENT
    # An agent credential cannot kill, nor act for other agents.
    agent_stubs = s.as_agent("w1").recovery
    for call in (
        lambda: agent_stubs.Kill(rpb.KillRequest(agent_id="w2", reason=r.KILL_REASON_MANUAL)),
        lambda: agent_stubs.Heartbeat(rpb.HeartbeatRequest(agent_id="w2")),
        lambda: agent_stubs.ReportFailure(rpb.ReportFailureRequest(from_agent="w1", to_agent="w2")),
    ):
        with pytest.raises(grpc.RpcError) as err:
            call()
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert agent_stubs.Heartbeat(rpb.HeartbeatRequest(agent_id="w1")).HasField("receive_time")
    assert agent_stubs.ReportFailure(rpb.ReportFailureRequest(from_agent="w2", to_agent="w1")).failure.to_agent == "w1"
    status = agent_stubs.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="w1")).status
    assert status.HasField("last_seen_time") and not status.connected


def test_reconnect_replaces_the_stream_and_resends_unacked_commands(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1")
    hub = s.services.recovery.hub
    with SimAgent(s.as_agent("w1").recovery, "w1", silent) as first:
        first.wait_accepted()
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="w1", reason="stuck"))
        restart = first.wait_command(r.CONTROL_COMMAND_TYPE_RESTART)
        with SimAgent(s.as_agent("w1").recovery, "w1") as second:
            second.wait_accepted()
            assert first.wait_ended() is not None and first.error.code() == grpc.StatusCode.ABORTED
            assert error_info(first.error).reason == "STREAM_REPLACED"
            again = second.wait_command(r.CONTROL_COMMAND_TYPE_RESTART)
            assert again.command_id == restart.command_id  # the same id: agents treat it as a duplicate
            eventually(lambda: hub.result_of(restart.command_id) is not None, what="the ack on the new stream")
            assert hub.result_of(restart.command_id).succeeded
            status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="w1")).status
            assert status.connected and status.HasField("connect_time")
            second.ack("cmd-unknown")  # ignored
            second.ack(restart.command_id)  # a late duplicate ack: ignored too
            second.heartbeat()
            eventually(lambda: hub.pending_count("w1") == 0, what="nothing pending")
            assert not second.ended.is_set()


# ---- events -----------------------------------------------------------------------------------------


class Watcher:
    def __init__(self, s: RunningSidecar, **kw: Any) -> None:
        self.events: list[r.RecoveryEvent] = []
        self.error: grpc.RpcError | None = None
        self.cond = threading.Condition()
        self.call = s.recovery.WatchRecoveryEvents(rpb.WatchRecoveryEventsRequest(**kw))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for resp in self.call:
                with self.cond:
                    self.events.append(resp.event)
                    self.cond.notify_all()
        except grpc.RpcError as err:
            self.error = err
            with self.cond:
                self.cond.notify_all()

    def wait(self, n: int, timeout: float = 10) -> list[r.RecoveryEvent]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.events) >= n or self.error is not None, timeout), self.events
        return self.events

    def close(self) -> None:
        self.call.cancel()
        self.thread.join(5)


def test_watch_with_a_resume_cursor_misses_nothing(s: RunningSidecar, clock: FakeClock) -> None:
    for a in ("a", "b"):
        register(s, a)
    live = Watcher(s, types=[r.RECOVERY_EVENT_TYPE_RECOVERY_ATTEMPT])
    eventually(lambda: len(s.services.recovery.events._subs) == 1, what="the watcher subscribed")
    s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="a"))
    seen = live.wait(1)
    cursor = seen[0].sequence
    live.close()  # the listener goes away; events happen meanwhile
    s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="b"))
    s.recovery.ReportFailure(rpb.ReportFailureRequest(from_agent="a", to_agent="b"))
    resumed = Watcher(s, start_cursor=cursor)
    got = resumed.wait(1)
    assert [e.recovery_result.agent_id for e in got] == ["b"] and got[0].sequence > cursor
    clock.advance(5)
    s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="a"))
    got = resumed.wait(2)
    assert [(e.type, e.agent_id) for e in got] == [
        (r.RECOVERY_EVENT_TYPE_RECOVERY_ATTEMPT, "b"),
        (r.RECOVERY_EVENT_TYPE_RECOVERY_ATTEMPT, "a"),
    ]
    assert got[0].sequence < got[1].sequence
    resumed.close()
    everything = Watcher(s, start_cursor=0, agent_id="a")
    assert [e.recovery_result.retry_count for e in everything.wait(2)] == [1, 2]
    everything.close()
    listing = s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest())
    ahead = Watcher(s, start_cursor=listing.latest_sequence + 1)
    ahead.wait(1)
    assert ahead.error is not None and ahead.error.code() == grpc.StatusCode.OUT_OF_RANGE
    ahead.close()


def test_pruned_events_put_an_old_cursor_out_of_range(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "a")
    events = s.services.recovery.events
    events.max_rows = 1
    for _ in range(3):
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="a"))
        clock.advance(5)
    assert events.prune() == 2
    assert len(s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest()).events) == 1
    old = Watcher(s, start_cursor=1)
    old.wait(1)
    assert old.error is not None and old.error.code() == grpc.StatusCode.OUT_OF_RANGE
    old.close()
    fine = Watcher(s, start_cursor=2)
    assert [e.sequence for e in fine.wait(1)] == [3]
    fine.close()


def test_the_pruned_mark_is_stored_before_the_events_go(s: RunningSidecar, clock: FakeClock) -> None:
    """A watch that starts while retention deletes is told its events were pruned, never silently given
    less: when the rows go, the stored "pruned through" mark already covers them."""
    register(s, "a")
    events = s.services.recovery.events
    events.max_rows = 1
    for _ in range(3):
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="a"))
        clock.advance(5)
    seen: list[int] = []
    delete = events.repo.prune_through

    def watched_delete(cut: int) -> int:
        seen.append(events._stored_pruned_through())  # what a watch starting now would read
        return delete(cut)

    events.repo.prune_through = watched_delete  # type: ignore[method-assign]
    try:
        assert events.prune() == 2
    finally:
        events.repo.prune_through = delete  # type: ignore[method-assign]
    assert seen == [2]


# ---- cascades -----------------------------------------------------------------------------------------


def test_cascade_inside_the_window_not_outside(s: RunningSidecar, clock: FakeClock) -> None:
    policy = s.recovery.GetCascadePolicy(rpb.GetCascadePolicyRequest()).policy
    assert (policy.window.seconds, policy.threshold, policy.action, policy.source) == (
        60,
        3,
        r.CASCADE_ACTION_NONE,
        "builtin",
    )
    assert not fail(s, "a", "b").HasField("cascade")
    assert not fail(s, "b", "c").HasField("cascade")
    clock.advance(60)  # both leave the window (a failure is kept while now - t < window)
    assert not fail(s, "c", "d").HasField("cascade")  # would have been the third related failure
    assert not fail(s, "x", "y").HasField("cascade")  # unrelated to the chain
    clock.advance(30)
    assert not fail(s, "d", "e").HasField("cascade")  # c -> d -> e: two related, x -> y does not count
    resp = fail(s, "e", "f", detail="timeout")
    assert resp.HasField("cascade") and resp.failure.detail == "timeout"
    cascade = resp.cascade
    assert list(cascade.agent_ids) == ["c", "d", "e", "f"]
    assert [(f.from_agent, f.to_agent) for f in cascade.failures] == [("c", "d"), ("d", "e"), ("e", "f")]
    assert cascade.root_agent == "c" and cascade.action == r.CASCADE_ACTION_NONE
    # The failures that formed the cascade left the window: one chain, one event per threshold failures.
    assert not fail(s, "f", "g").HasField("cascade")
    assert not fail(s, "g", "h").HasField("cascade")
    events = s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest(types=[CASCADE])).events
    assert len(events) == 1 and events[0].agent_id == "c" and events[0].cascade.cascade_id == cascade.cascade_id
    audit = [rec.action for rec in s.services.audit.repo.iter_all()]
    assert audit.count("cascade.detected") == 1


def test_cascade_policy_kill_root_and_validation(s: RunningSidecar, clock: FakeClock) -> None:
    for bad in (r.CascadePolicy(window=seconds(-1)), r.CascadePolicy(threshold=-1)):
        with pytest.raises(grpc.RpcError) as err:
            s.recovery.SetCascadePolicy(rpb.SetCascadePolicyRequest(policy=bad))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    stored = s.recovery.SetCascadePolicy(
        rpb.SetCascadePolicyRequest(policy=r.CascadePolicy(threshold=2, action=r.CASCADE_ACTION_KILL_ROOT))
    ).policy
    assert (stored.window.seconds, stored.threshold, stored.kill_reason, stored.source) == (
        60,
        2,
        r.KILL_REASON_BEHAVIORAL_DRIFT,
        "runtime",
    )
    register(s, "root")
    fail(s, "root", "mid")
    cascade = fail(s, "mid", "leaf").cascade
    assert cascade.root_agent == "root" and cascade.kill_id.startswith("kill:")
    eventually(
        lambda: s.recovery.GetKill(rpb.GetKillRequest(kill_id=cascade.kill_id)).result.HasField("complete_time"),
        what="the root's kill",
    )
    k = s.recovery.GetKill(rpb.GetKillRequest(kill_id=cascade.kill_id)).result
    assert (k.agent_id, k.reason, k.requested_by) == ("root", r.KILL_REASON_BEHAVIORAL_DRIFT, "system")
    with pytest.raises(grpc.RpcError) as err:
        s.stub.GetAgent(spb.GetAgentRequest(agent_id="root"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    # A cycle has no root: nothing is killed.
    cycle = [fail(s, "p", "q"), fail(s, "q", "p")][-1].cascade
    assert cycle.root_agent == "" and cycle.kill_id == ""


def test_breakers_report_from_a_worker_thread_or_from_the_loop(s: RunningSidecar) -> None:
    cascade = s.services.recovery.cascade
    s.recovery.SetCascadePolicy(rpb.SetCascadePolicyRequest(policy=r.CascadePolicy(threshold=2)))
    cascade.report_failure_threadsafe("db", "api", "circuit 'api:db' opened")  # waits for the report
    assert cascade.window_size() == 1

    async def from_the_loop() -> None:
        cascade.report_failure_threadsafe("api", "web", "circuit 'web:api' opened")  # must not block the loop

    asyncio.run_coroutine_threadsafe(from_the_loop(), s.loop).result(5)
    eventually(lambda: len(s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest(types=[CASCADE])).events) == 1)
    event = s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest(types=[CASCADE])).events[0]
    assert event.cascade.root_agent == "db" and [f.source for f in event.cascade.failures] == ["breaker", "breaker"]


def test_cascade_policy_open_breakers_trips_each_failing_agents_breaker(s: RunningSidecar) -> None:
    s.recovery.SetCascadePolicy(
        rpb.SetCascadePolicyRequest(policy=r.CascadePolicy(threshold=3, action=r.CASCADE_ACTION_OPEN_BREAKERS))
    )
    fail(s, "a", "b")
    fail(s, "b", "c")
    cascade = fail(s, "a", "c").cascade
    assert cascade.action == r.CASCADE_ACTION_OPEN_BREAKERS and list(cascade.opened_breakers) == ["a", "b"]
    assert cascade.root_agent == "a" and list(cascade.agent_ids) == ["a", "b", "c"]
