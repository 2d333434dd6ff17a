"""Health checks over real gRPC: ping over the control channel, heartbeat silence, grpc.health.v1 and HTTP
probes, concurrency (a hung agent delays nobody), failures starting recovery, and the monitoring job."""

from __future__ import annotations

import http.server
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import grpc
import pytest

from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .recovery_sim import SimAgent, ack_except, eventually, ping_check, register, seconds, silent
from .rpc import error_info

PING = r.CONTROL_COMMAND_TYPE_PING


def statuses(resp: rpb.RunHealthChecksResponse) -> dict[str, tuple[bool, str]]:
    return {st.agent_id: (st.healthy, st.reason) for st in resp.statuses}


def test_ping_healthy_timed_out_and_not_connected(s: RunningSidecar, clock: FakeClock) -> None:
    for agent_id in ("good", "hung", "gone"):
        register(s, agent_id)
        s.recovery.AddHealthCheck(ping_check(agent_id, timeout=5))
    with (
        SimAgent(s.as_agent("good").recovery, "good") as good,
        SimAgent(s.as_agent("hung").recovery, "hung", silent) as hung,
        ThreadPoolExecutor(1) as pool,
    ):
        good.wait_accepted()
        hung.wait_accepted()
        run = pool.submit(s.recovery.RunHealthChecks, rpb.RunHealthChecksRequest())
        hung.wait_command(PING)
        good.wait_command(PING)

        def gone_failed() -> bool:  # its recovery attempt stored before the clock moves: its cooldown starts now
            # (the failure's event comes first: a stalled host may store the attempt after the advance)
            status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="gone")).status
            return status.retry_count == 1

        deadline = time.monotonic() + 30
        while not gone_failed() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not run.done()  # waiting on the injected clock for the hung agent's ack
        clock.advance(5)
        resp = run.result(10)
    assert statuses(resp) == {
        "gone": (False, "not connected"),
        "good": (True, ""),
        "hung": (False, "ping timed out after 5s"),
    }
    assert [(x.agent_id, x.action_taken, x.trigger) for x in resp.recoveries] == [
        ("gone", r.RECOVERY_ACTION_RESTART, r.RECOVERY_TRIGGER_HEALTH_CHECK),
        ("hung", r.RECOVERY_ACTION_RESTART, r.RECOVERY_TRIGGER_HEALTH_CHECK),
    ]
    assert resp.recoveries[0].reason == "not connected"
    failed = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[r.RECOVERY_EVENT_TYPE_HEALTH_CHECK_FAILED])
    ).events
    assert sorted(e.health_status.agent_id for e in failed) == ["gone", "hung"]
    status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="hung")).status
    assert not status.connected and not status.last_status.healthy and status.retry_count == 1  # stream closed
    # A second run: "gone" failed 5 s ago (its cooldown has passed), "hung" only now (refused, in cooldown).
    with SimAgent(s.as_agent("good").recovery, "good") as good, ThreadPoolExecutor(1) as pool:
        good.wait_accepted()
        run = pool.submit(s.recovery.RunHealthChecks, rpb.RunHealthChecksRequest(group="default"))
        resp = run.result(10)
    assert [(x.agent_id, x.in_cooldown, x.retry_count) for x in resp.recoveries] == [
        ("gone", False, 2),
        ("hung", True, 1),
    ]


def test_one_hung_agent_does_not_delay_the_others(s: RunningSidecar, clock: FakeClock) -> None:
    # Structural, not timed: the timeouts wait on the injected clock, which stands still until every agent
    # has its PING. Checks run one after another would never send the second hung agent its PING, since the
    # first one's timeout cannot fire. (A wall-clock bound here failed on a loaded CI machine.)
    with ExitStack() as stack, ThreadPoolExecutor(1) as pool:
        agents = []
        for i in range(12):
            agent_id = f"a{i:02d}"
            register(s, agent_id)
            hung = i < 8  # the answering four get a longer timeout: their ack may land after the advance
            s.recovery.AddHealthCheck(ping_check(agent_id, timeout=5 if hung else 60))
            agents.append(
                stack.enter_context(SimAgent(s.as_agent(agent_id).recovery, agent_id, silent if hung else ack_except()))
            )
        for a in agents:
            a.wait_accepted()
        run = pool.submit(s.recovery.RunHealthChecks, rpb.RunHealthChecksRequest(), timeout=30)
        for a in agents:
            a.wait_command(PING)  # all twelve, the clock not moved: every check is under way at once
        assert not run.done()  # the eight hung ones wait for their timeout on the injected clock
        clock.advance(5)
        resp = run.result(30)
    result = statuses(resp)
    assert [a for a, (ok, _) in result.items() if not ok] == [f"a{i:02d}" for i in range(8)]
    assert {reason for ok, reason in result.values() if not ok} == {"ping timed out after 5s"}
    fast = [st for st in resp.statuses if st.healthy]
    assert [st.agent_id for st in fast] == ["a08", "a09", "a10", "a11"]
    assert all(st.latency.ToTimedelta().total_seconds() <= 5 for st in fast)  # not held up by the hung ones


def test_heartbeat_check_measures_silence(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1")
    s.recovery.AddHealthCheck(
        rpb.AddHealthCheckRequest(
            agent_id="w1", check=r.HealthCheck(heartbeat=r.HeartbeatCheck(silence_threshold=seconds(30)))
        )
    )
    beat = s.as_agent("w1").recovery.Heartbeat(rpb.HeartbeatRequest(agent_id="w1"))
    assert beat.heartbeat_interval.seconds == 15
    clock.advance(29)
    assert statuses(s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest())) == {"w1": (True, "")}
    clock.advance(2)
    assert statuses(s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest())) == {"w1": (False, "silent for 31s")}
    # A heartbeat on the Attach stream counts as well.
    with SimAgent(s.as_agent("w1").recovery, "w1") as agent:
        agent.wait_accepted()
        assert agent.accepted is not None and agent.accepted.heartbeat_interval.seconds == 15
        clock.advance(20)
        agent.heartbeat()
        hub = s.services.recovery.hub
        eventually(lambda: hub.last_seen("w1")[0] == clock.t, what="the heartbeat")
        clock.advance(10)
        assert statuses(s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest())) == {"w1": (True, "")}


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/ok" else 503)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_grpc_and_http_probes(tmp_path: Path) -> None:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        with RunningSidecar(make_config(tmp_path)) as s:
            checks = {
                "grpc-up": r.HealthCheck(grpc=r.GrpcCheck(target=s.sidecar.target, timeout=seconds(2))),
                "grpc-unknown": r.HealthCheck(grpc=r.GrpcCheck(target=s.sidecar.target, service="nope")),
                "grpc-down": r.HealthCheck(grpc=r.GrpcCheck(target=f"127.0.0.1:{_free_port()}", timeout=seconds(1))),
                "http-up": r.HealthCheck(http=r.HttpCheck(url=f"{base}/ok")),
                "http-503": r.HealthCheck(http=r.HttpCheck(url=f"{base}/bad")),
                "http-down": r.HealthCheck(
                    http=r.HttpCheck(url=f"http://127.0.0.1:{_free_port()}/", timeout=seconds(1))
                ),
            }
            for agent_id, check in checks.items():
                register(s, agent_id)
                s.recovery.AddHealthCheck(rpb.AddHealthCheckRequest(agent_id=agent_id, check=check))
            result = statuses(s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest(), timeout=15))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert result["grpc-up"] == (True, "") and result["http-up"] == (True, "")
    assert result["grpc-unknown"][1].startswith("grpc NOT_FOUND")
    assert result["grpc-down"][1].startswith("grpc UNAVAILABLE")
    assert result["http-503"] == (False, "HTTP 503")
    assert not result["http-down"][0] and result["http-down"][1].startswith("check raised:")


def test_add_and_remove_health_check_validation(s: RunningSidecar) -> None:
    register(s, "w1")
    bad = [
        (r.HealthCheck(), "check"),
        (r.HealthCheck(grpc=r.GrpcCheck()), "check.grpc.target"),
        (r.HealthCheck(http=r.HttpCheck(url="ftp://x")), "check.http.url"),
        (r.HealthCheck(ping=r.PingCheck(timeout=seconds(-1))), "check.ping.timeout"),
        (r.HealthCheck(heartbeat=r.HeartbeatCheck(silence_threshold=seconds(0))), "check.heartbeat.silence_threshold"),
    ]
    for check, field in bad:
        with pytest.raises(grpc.RpcError) as err:
            s.recovery.AddHealthCheck(rpb.AddHealthCheckRequest(agent_id="w1", check=check))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, field
        assert error_info(err.value).metadata["field"] == field
    with pytest.raises(grpc.RpcError) as err:
        s.recovery.AddHealthCheck(ping_check("ghost"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert not s.recovery.AddHealthCheck(ping_check("w1")).replaced
    added = s.recovery.AddHealthCheck(ping_check("w1", timeout=2))
    assert added.replaced and added.check.ping.timeout.seconds == 2
    s.recovery.RemoveHealthCheck(rpb.RemoveHealthCheckRequest(agent_id="w1"))
    with pytest.raises(grpc.RpcError) as err:
        s.recovery.RemoveHealthCheck(rpb.RemoveHealthCheckRequest(agent_id="w1"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_monitoring_runs_at_a_fixed_rate_until_stopped_and_resumes_after_restart(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    with RunningSidecar(config) as s:
        register(s, "w1")
        s.recovery.AddHealthCheck(ping_check("w1", timeout=1))
        assert not s.recovery.GetMonitoringState(rpb.GetMonitoringStateRequest()).state.running
        with pytest.raises(grpc.RpcError) as err:
            s.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=seconds(-1)))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with SimAgent(s.as_agent("w1").recovery, "w1") as agent:
            agent.wait_accepted()
            state = s.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=seconds(0.1))).state
            assert state.running and state.interval.ToTimedelta().total_seconds() == 0.1
            assert state.HasField("next_run_time")
            agent.wait_command(PING, count=3, timeout=10)
            stopped = s.recovery.StopMonitoring(rpb.StopMonitoringRequest()).state
            assert not stopped.running and not stopped.HasField("next_run_time")
            assert stopped.HasField("last_run_time")
            time.sleep(0.15)  # let a run already in flight finish
            seen = len(agent.of(PING))
            time.sleep(0.35)  # real clock: three intervals without a run
            assert len(agent.of(PING)) == seen
        s.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=seconds(30)))
    with RunningSidecar(config) as s:
        state = s.recovery.GetMonitoringState(rpb.GetMonitoringStateRequest()).state
        assert state.running and state.interval.seconds == 30 and state.HasField("next_run_time")
        s.recovery.StopMonitoring(rpb.StopMonitoringRequest())
