"""Monitoring ownership across three sidecar processes: ping and heartbeat checks run only on the
sidecar holding the agent's control channel, grpc and http checks on one elected sidecar (re-elected
when it dies), and StartMonitoring / StopMonitoring anywhere apply fleet-wide."""

from __future__ import annotations

import http.server
import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from tests.integration.recovery_sim import SimAgent, ping_check, register, seconds

from .conftest import _pg
from .harness import Fleet, SidecarProc, wait_until

CONFIG = "fleet:\n  heartbeat_interval: 250ms\n  sidecar_timeout: 3s\n"
INTERVAL = 0.3
PING = r.CONTROL_COMMAND_TYPE_PING
pytestmark = pytest.mark.timeout(300)  # starting sidecars on a loaded 2-core machine


@pytest.fixture
def mon_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("monitoring")
    config = tmp / "outrider.yaml"
    config.write_text(CONFIG)
    for url in _pg():
        # One after the other: three first starts on a fresh database with a policy file can race on
        # storing the file's chain (a unique violation on policy_state, not monitoring's concern).
        f = Fleet(tmp, url, count=1, config=config)
        try:
            later = [SidecarProc(tmp, url, f.token, name, config=config) for name in "BC"]
            f.sidecars += [p.wait_serving() for p in later]
            yield f
        finally:
            f.close()


class _Stubs:
    def __init__(self, s: SidecarProc) -> None:
        self.stub = s.supervisor
        self.recovery = s.recovery


def _running(s: SidecarProc) -> bool:
    return bool(s.recovery.GetMonitoringState(rpb.GetMonitoringStateRequest()).state.running)


def _failures(s: SidecarProc, agent_id: str) -> int:
    events = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[r.RECOVERY_EVENT_TYPE_HEALTH_CHECK_FAILED], agent_id=agent_id)
    ).events
    return len(events)


def test_pings_come_only_from_the_agents_sidecar_and_start_stop_are_fleet_wide(mon_fleet: Fleet) -> None:
    a, b, c = mon_fleet.sidecars
    register(_Stubs(a), "mon-ping")
    a.recovery.AddHealthCheck(ping_check("mon-ping", timeout=2))
    with SimAgent(b.recovery, "mon-ping") as agent:  # attached to B, acks every ping
        agent.wait_accepted()
        b.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=seconds(INTERVAL)))
        wait_until(lambda: _running(a) and _running(c), "monitoring started on A and C", timeout=30)
        agent.wait_command(PING, count=3, timeout=30)
        start, pings = time.monotonic(), len(agent.of(PING))
        time.sleep(3 * INTERVAL * 5)  # fifteen intervals
        rate = (len(agent.of(PING)) - pings) / (time.monotonic() - start)
        # One sidecar pings once per interval; three would ping three times as often.
        assert rate < 1.5 / INTERVAL, rate
        # A and C cannot see the agent's channel and never judged it: no failure, not ejected.
        assert _failures(a, "mon-ping") == 0
        a.recovery.StopMonitoring(rpb.StopMonitoringRequest())
        wait_until(lambda: not _running(b) and not _running(c), "monitoring stopped on B and C", timeout=30)
        time.sleep(2 * INTERVAL)
        after_stop = len(agent.of(PING))
        time.sleep(5 * INTERVAL)
        assert len(agent.of(PING)) == after_stop  # StopMonitoring on A stopped B's pings


class _Counter(http.server.BaseHTTPRequestHandler):
    hits: list[float] = []

    def do_GET(self) -> None:
        _Counter.hits.append(time.monotonic())
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


def _leader(db_url: str) -> tuple[str, int]:
    e = sa.create_engine(db_url)
    try:
        with e.connect() as conn:
            row = conn.execute(
                sa.text(
                    "SELECT j.owner, s.pid FROM fleet_jobs j JOIN sidecars s ON s.sidecar_id = j.owner "
                    "WHERE j.job_id = 'monitor-network-checks' AND j.due_time > now()"
                )
            ).first()
    finally:
        e.dispose()
    return (str(row[0]), int(row[1])) if row else ("", 0)


def test_http_checks_run_on_one_elected_sidecar_and_a_new_one_takes_over_when_it_dies(mon_fleet: Fleet) -> None:
    a, b, _c = mon_fleet.sidecars
    _Counter.hits = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        register(_Stubs(a), "mon-http")
        url = f"http://127.0.0.1:{httpd.server_address[1]}/health"
        a.recovery.AddHealthCheck(
            rpb.AddHealthCheckRequest(agent_id="mon-http", check=r.HealthCheck(http=r.HttpCheck(url=url)))
        )
        a.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=seconds(INTERVAL)))
        wait_until(lambda: len(_Counter.hits) >= 3, "the http check runs", timeout=30)
        start, hits = time.monotonic(), len(_Counter.hits)
        time.sleep(15 * INTERVAL)
        rate = (len(_Counter.hits) - hits) / (time.monotonic() - start)
        assert rate < 1.5 / INTERVAL, rate  # one sidecar checks; three would check three times as often
        owner, pid = _leader(mon_fleet.db_url)
        assert pid in {s.p.pid for s in mon_fleet.sidecars}
        leader = next(s for s in mon_fleet.sidecars if s.p.pid == pid)
        os.kill(pid, signal.SIGKILL)
        leader.p.wait(10)
        killed_at = len(_Counter.hits)
        # Re-elected within the sidecar timeout (1 s) plus a heartbeat, then checked every interval.
        wait_until(lambda: len(_Counter.hits) >= killed_at + 3, "another sidecar runs the http check", timeout=30)
        new_owner, new_pid = _leader(mon_fleet.db_url)
        assert new_owner and new_owner != owner and new_pid != pid
        start, hits = time.monotonic(), len(_Counter.hits)
        time.sleep(10 * INTERVAL)
        rate = (len(_Counter.hits) - hits) / (time.monotonic() - start)
        assert rate < 1.5 / INTERVAL, rate
        survivor = a if leader is not a else b
        survivor.recovery.StopMonitoring(rpb.StopMonitoringRequest())
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_an_agent_attached_nowhere_is_judged_once_by_the_elected_sidecar(mon_fleet: Fleet) -> None:
    """No sidecar sees its channel, so the elected one judges its ping check as a sidecar alone would (not
    connected): failures come once per interval, not once per sidecar."""
    a, b, c = mon_fleet.sidecars
    register(_Stubs(a), "mon-nowhere")
    b.recovery.AddHealthCheck(ping_check("mon-nowhere", timeout=1))
    c.recovery.StartMonitoring(rpb.StartMonitoringRequest(interval=seconds(INTERVAL)))
    try:
        wait_until(lambda: _failures(a, "mon-nowhere") >= 2, "the elected sidecar judges the agent", timeout=30)
        start, failures = time.monotonic(), _failures(a, "mon-nowhere")
        time.sleep(10 * INTERVAL)
        rate = (_failures(a, "mon-nowhere") - failures) / (time.monotonic() - start)
        assert rate < 1.5 / INTERVAL, rate  # one judge; three would triple it
        owner, pid = _leader(mon_fleet.db_url)
        assert owner and pid in {s.p.pid for s in mon_fleet.sidecars}
        detail = a.recovery.ListRecoveryEvents(
            rpb.ListRecoveryEventsRequest(types=[r.RECOVERY_EVENT_TYPE_HEALTH_CHECK_FAILED], agent_id="mon-nowhere")
        ).events[0]
        assert "connect" in str(detail).lower()  # judged as not connected, as one sidecar alone would
    finally:
        a.recovery.StopMonitoring(rpb.StopMonitoringRequest())


def _last_status(s: SidecarProc, agent_id: str) -> tuple[bool, str] | None:
    status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id=agent_id)).status
    return (status.last_status.healthy, status.last_status.reason) if status.HasField("last_status") else None


def _has_check(s: SidecarProc, agent_id: str) -> bool:
    status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id=agent_id)).status
    return status.HasField("health_check")


def test_a_checks_result_on_b_is_the_result_every_sidecar_reports(shared_fleet: Fleet) -> None:
    """Before: the latest result lived in the memory of the sidecar that ran the check, so A and C
    reported no result (and chose substitutes as if the agent were healthy)."""
    a, b, c = shared_fleet.sidecars
    register(_Stubs(a), "mon-status")
    a.recovery.AddHealthCheck(ping_check("mon-status", timeout=0.5))
    with SimAgent(b.recovery, "mon-status", lambda command: None) as hung:  # attached to B, never answers
        hung.wait_accepted()
        # B runs the checks it knows: the spec added on A reaches B's cache by the change feed (on a loaded
        # machine, not necessarily before the next line without this wait).
        wait_until(lambda: _has_check(b, "mon-status"), "the check spec on B")
        ran = b.recovery.RunHealthChecks(rpb.RunHealthChecksRequest(), timeout=60)
    mine = [(st.healthy, st.reason) for st in ran.statuses if st.agent_id == "mon-status"]
    assert mine == [(False, "ping timed out after 0.5s")]  # B holds the channel: B ran it
    for s in (a, c):
        # The change feed brings it (within fleet.resync_interval at worst), well inside a deadline that a
        # poll of minutes would miss.
        wait_until(lambda s=s: _last_status(s, "mon-status") == mine[0], f"B's result on {s.name}", timeout=30)
    with SimAgent(c.recovery, "mon-status") as healthy:  # now on C, answering
        healthy.wait_accepted()
        ran = c.recovery.RunHealthChecks(rpb.RunHealthChecksRequest(), timeout=60)
        assert [(st.healthy, st.reason) for st in ran.statuses if st.agent_id == "mon-status"] == [(True, "")]
    for s in (a, b):
        wait_until(lambda s=s: _last_status(s, "mon-status") == (True, ""), f"C's result on {s.name}", timeout=30)
    # A new spec starts without a result, on every sidecar.
    a.recovery.AddHealthCheck(ping_check("mon-status", timeout=2))
    for s in (a, b, c):
        wait_until(lambda s=s: _last_status(s, "mon-status") is None, f"the new spec on {s.name}", timeout=30)
