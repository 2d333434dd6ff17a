"""Kills across sidecars: at most one running kill per agent fleet-wide, each owned by a sidecar, and a
kill whose owner died is resumed by exactly one other sidecar. Audit times under three writers."""

from __future__ import annotations

import contextlib
import itertools
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
import sqlalchemy as sa
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import common_pb2, recovery_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.recovery_sim import SimAgent, silent

from .conftest import _pg
from .harness import Fleet, SidecarProc, wait_until

# A short heartbeat, so a dead owner is "gone" within seconds (the default is 15 s).
CONFIG = "fleet:\n  heartbeat_interval: 250ms\n  sidecar_timeout: 3s\n"


@pytest.fixture(scope="module")
def kill_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("kills")
    config = tmp / "outrider.yaml"
    config.write_text(CONFIG)
    for url in _pg():
        f = Fleet(tmp, url, config=config)
        try:
            yield f
        finally:
            f.close()


def _register(s: SidecarProc, agent_id: str) -> None:
    s.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))


def _kill(s: SidecarProc, agent_id: str, callback_seconds: int) -> recovery_pb2.KillResult:
    return s.recovery.Kill(
        rpb.KillRequest(
            agent_id=agent_id,
            reason=recovery_pb2.KILL_REASON_MANUAL,
            details="fleet test",
            callback_timeout=Duration(seconds=callback_seconds),
        ),
        timeout=60,
    ).result


def _kill_events(s: SidecarProc, agent_id: str) -> int:
    events = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[recovery_pb2.RECOVERY_EVENT_TYPE_KILL], agent_id=agent_id)
    ).events
    return len(events)


def _running(s: SidecarProc, agent_id: str) -> bool:
    kills = s.recovery.ListKills(rpb.ListKillsRequest(agent_id=agent_id)).kills
    return any(not k.HasField("complete_time") for k in kills)


def _attached_silent(s: SidecarProc, agent_id: str) -> SimAgent:
    agent = SimAgent(s.recovery, agent_id, behavior=silent)
    agent.wait_for(lambda sim: sim.accepted is not None or sim.ended.is_set(), timeout=10.0)
    assert agent.accepted is not None, agent.error
    return agent


def test_a_second_kill_of_the_same_agent_on_another_sidecar_is_refused(kill_fleet: Fleet) -> None:
    a, b, c = kill_fleet.sidecars
    _register(a, "kill-once-1")
    agent = _attached_silent(a, "kill-once-1")  # never acks: the kill waits its 3 s callback timeout
    first: list[recovery_pb2.KillResult] = []
    runner = threading.Thread(target=lambda: first.append(_kill(a, "kill-once-1", 3)))
    runner.start()
    try:
        wait_until(lambda: _running(b, "kill-once-1"), "the kill recorded")
        for s in (b, c):
            with pytest.raises(grpc.RpcError) as err:
                _kill(s, "kill-once-1", 1)
            assert err.value.code() is grpc.StatusCode.FAILED_PRECONDITION
            assert "already in progress" in (err.value.details() or "")
    finally:
        runner.join(30)
        agent.call.cancel()
    assert first and first[0].complete_time.seconds
    # B and C's take-over job ran all along: A is alive, so they never resumed A's kill.
    assert _kill_events(c, "kill-once-1") == 1
    assert len(c.recovery.ListKills(rpb.ListKillsRequest(agent_id="kill-once-1")).kills) == 1


def test_concurrent_kills_of_one_agent_on_three_sidecars_record_one(kill_fleet: Fleet) -> None:
    a, b, c = kill_fleet.sidecars
    _register(b, "kill-race-1")
    agent = _attached_silent(b, "kill-race-1")
    try:

        def kill(s: SidecarProc) -> str:
            try:
                return _kill(s, "kill-race-1", 10).kill_id
            except grpc.RpcError as err:
                assert err.code() is grpc.StatusCode.FAILED_PRECONDITION, err
                return ""

        with ThreadPoolExecutor(3) as pool:
            ids = [k for k in pool.map(kill, (a, b, c)) if k]
    finally:
        agent.call.cancel()
    assert len(ids) == 1
    assert len(a.recovery.ListKills(rpb.ListKillsRequest(agent_id="kill-race-1")).kills) == 1


def test_a_kill_whose_owner_died_is_resumed_by_exactly_one_sidecar(kill_fleet: Fleet) -> None:
    a, b, c = kill_fleet.sidecars
    config = kill_fleet.tmp / "outrider.yaml"
    d = kill_fleet.start("D", config=config)
    _register(d, "kill-orphan-1")
    agent = _attached_silent(d, "kill-orphan-1")

    def kill_on_d() -> None:
        with contextlib.suppress(grpc.RpcError):  # D dies under the call
            _kill(d, "kill-orphan-1", 60)

    killer = threading.Thread(target=kill_on_d)
    killer.start()
    try:
        wait_until(lambda: _running(a, "kill-orphan-1"), "D's kill recorded")
        d.close(signal.SIGKILL)  # D dies mid-kill: its kill is left running, owned by a dead sidecar
    finally:
        killer.join(30)
        agent.call.cancel()
    # A, B and C each try to take it over once D's heartbeat lapses; one claims it and completes it.
    wait_until(lambda: not _running(a, "kill-orphan-1"), "the orphaned kill completed", timeout=30.0)
    wait_until(lambda: _kill_events(b, "kill-orphan-1") >= 1, "its KILL event")
    assert _kill_events(c, "kill-orphan-1") == 1
    kills = a.recovery.ListKills(rpb.ListKillsRequest(agent_id="kill-orphan-1")).kills
    assert len(kills) == 1 and kills[0].HasField("complete_time")


def test_audit_times_never_go_backwards_under_three_writers(kill_fleet: Fleet) -> None:
    stubs = [s.supervisor for s in kill_fleet.sidecars if s.p.poll() is None]

    def register(i: int) -> None:
        stubs[i % len(stubs)].RegisterAgent(
            spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=f"audit-writer-{i}"))
        )

    with ThreadPoolExecutor(12) as pool:
        list(pool.map(register, range(90)))
    engine = sa.create_engine(kill_fleet.db_url)
    try:
        with engine.connect() as conn:
            times = [r[0] for r in conn.execute(sa.text("SELECT record_time FROM audit_log ORDER BY seq"))]
    finally:
        engine.dispose()
    assert len(times) >= 90
    assert all(earlier <= later for earlier, later in itertools.pairwise(times))
