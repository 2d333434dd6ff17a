"""Faults of a fleet's sidecars, with real processes on one PostgreSQL: a sidecar paused past the timeout
(SIGSTOP, as a VM freeze or a long GC) and resumed, a sidecar SIGKILLed in the middle of a kill, related
failures reported to three sidecars, a killed agent's CheckActions stream. Every wait is bounded; no test
asserts how long anything took."""

from __future__ import annotations

import contextlib
import signal
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import grpc
import pytest
import sqlalchemy as sa
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import common_pb2, recovery_pb2, supervisor_pb2, supervisor_service_pb2_grpc
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from server.storage.fleet.attachments import SqlAttachmentRepository
from tests.fleet.conftest import _pg
from tests.fleet.harness import Fleet, SidecarProc, cli, guardrail_names, wait_until
from tests.integration.checkstream import CheckStream
from tests.integration.creds import with_token
from tests.integration.recovery_sim import SimAgent, silent
from tests.integration.rpc import check, error_info, guardrail

# Each case starts a sidecar process of its own and waits out a timeout or two: on a loaded machine that
# takes minutes, not the suite's default two.
pytestmark = pytest.mark.timeout(600)

# A short heartbeat and timeout, so "paused past the timeout" and "gone" take a second or two.
SIDECAR_TIMEOUT = 3.0
CONFIG = f"fleet:\n  heartbeat_interval: 250ms\n  sidecar_timeout: {SIDECAR_TIMEOUT:g}s\n"
KILL = recovery_pb2.CONTROL_COMMAND_TYPE_KILL


@pytest.fixture(scope="module")
def fault_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("faults")
    (tmp / "outrider.yaml").write_text(CONFIG)
    for url in _pg():
        f = Fleet(tmp, url, config=tmp / "outrider.yaml")
        try:
            yield f
        finally:
            f.close()


@pytest.fixture(scope="module")
def db(fault_fleet: Fleet) -> Iterator[sa.Engine]:
    engine = sa.create_engine(fault_fleet.db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        yield engine
    finally:
        engine.dispose()


def _id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _register(s: SidecarProc, agent_id: str) -> None:
    s.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))


def _kill(s: SidecarProc, agent_id: str, callback_seconds: int) -> recovery_pb2.KillResult:
    killed: recovery_pb2.KillResult = s.recovery.Kill(
        rpb.KillRequest(
            agent_id=agent_id,
            reason=recovery_pb2.KILL_REASON_MANUAL,
            details="fault test",
            callback_timeout=Duration(seconds=callback_seconds),
        ),
        timeout=120,
    ).result
    return killed


def _holder(db: sa.Engine, agent_id: str) -> str | None:
    with db.connect() as conn:
        return conn.execute(
            sa.text("SELECT sidecar_id FROM fleet_attachments WHERE agent_id = :a"), {"a": agent_id}
        ).scalar()


def _present(db: sa.Engine, sidecar_id: str) -> bool:
    """Present as routing sees it (server/storage/fleet/attachments.py `present_clause`), by the fleet's timeout."""
    gone_before = _db_now(db) - timedelta(seconds=SIDECAR_TIMEOUT)
    return SqlAttachmentRepository(db).present(sidecar_id, gone_before)


def _db_now(db: sa.Engine) -> datetime:
    with db.connect() as conn:
        now: datetime = conn.execute(sa.text("SELECT now()")).scalar_one()
    return now


def _sidecar_id(db: sa.Engine, s: SidecarProc) -> str:
    with db.connect() as conn:
        return str(conn.execute(sa.text("SELECT sidecar_id FROM sidecars WHERE pid = :p"), {"p": s.p.pid}).scalar_one())


def _attached(s: SidecarProc, agent_id: str, behavior: Any = None) -> SimAgent:
    agent = SimAgent(s.recovery, agent_id) if behavior is None else SimAgent(s.recovery, agent_id, behavior=behavior)
    agent.wait_accepted(timeout=30.0)
    return agent


@contextlib.contextmanager
def _paused(s: SidecarProc) -> Iterator[None]:
    s.p.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        s.p.send_signal(signal.SIGCONT)


def test_a_sidecar_resumed_after_the_timeout_is_reachable_and_grants_nothing_stale(
    fault_fleet: Fleet, db: sa.Engine
) -> None:
    a = fault_fleet[0]
    d = fault_fleet.start("D-pause", config=fault_fleet.tmp / "outrider.yaml")
    agent_id, key = _id("paused-agent"), _id("paused-key")
    _register(a, agent_id)
    agent = _attached(d, agent_id)
    try:
        d_id = _sidecar_id(db, d)
        wait_until(lambda: _holder(db, agent_id) == d_id, "the attachment recorded", timeout=30.0)
        # D's breaker cache holds the key CLOSED.
        first = d.safeguard.AcquirePermit(pb.AcquirePermitRequest(key=key))
        assert first.permitted
        d.safeguard.ReleasePermit(pb.ReleasePermitRequest(permit_id=first.permit_id))
        with _paused(d):
            # Declared gone: the others release its attachment ...
            wait_until(lambda: _holder(db, agent_id) is None, "D's attachment released", timeout=30.0)
            # ... and the breaker is forced open meanwhile, longer ago than D's staleness bound when it resumes
            # (2 x fleet.resync_interval: a change younger than that may be answered from a cache, by contract).
            a.safeguard.ForceOpen(pb.ForceOpenRequest(key=key))
            opened = _db_now(db)
            wait_until(lambda: (_db_now(db) - opened).total_seconds() > 3, "the pause outlasts the bound", 30.0)
            # Calls that reach D while it is paused are answered the moment it resumes.
            waiting = [
                d.safeguard.AcquirePermit.future(pb.AcquirePermitRequest(key=key), timeout=60) for _ in range(20)
            ]
        answers = [f.result() for f in waiting]
        assert [x.permitted for x in answers] == [False] * 20, [x.state for x in answers]
        assert all(x.state == sg.BREAKER_STATE_OPEN for x in answers)
        # D re-asserts the stream it still holds, and once it is present again (a fresh heartbeat and its
        # listener connected: what routing requires of a target), a Kill issued on A reaches the agent on D.
        wait_until(lambda: _holder(db, agent_id) == d_id, "D's attachment re-asserted", timeout=30.0)
        wait_until(lambda: _present(db, d_id), "D present again", timeout=30.0)
        result = _kill(a, agent_id, 20)
        assert result.terminated, result.detail
        agent.wait_command(KILL, timeout=30.0)
    finally:
        agent.close()
        d.close()


def _kills(s: SidecarProc, agent_id: str) -> list[recovery_pb2.KillResult]:
    return list(s.recovery.ListKills(rpb.ListKillsRequest(agent_id=agent_id)).kills)


def test_a_kill_taken_over_from_a_sigkilled_sidecar_records_the_acknowledgement(fault_fleet: Fleet) -> None:
    a, b, _c = fault_fleet.sidecars[:3]
    e = fault_fleet.start("E-kill", config=fault_fleet.tmp / "outrider.yaml")
    agent_id = _id("acked-agent")
    _register(a, agent_id)
    received, go = threading.Event(), threading.Event()

    def ack_when_told(command: recovery_pb2.ControlCommand) -> tuple[int, str] | None:
        if command.type != KILL:
            return None
        received.set()
        go.wait(60)
        return recovery_pb2.COMMAND_OUTCOME_SUCCESS, "stopped cleanly"

    agent = _attached(a, agent_id, ack_when_told)

    def kill_on_e() -> None:
        with contextlib.suppress(grpc.RpcError):  # E dies under the call
            _kill(e, agent_id, 60)

    killer = threading.Thread(target=kill_on_e)
    killer.start()
    try:
        # E routed the KILL to A, A delivered it: the agent holds it, unanswered, when E dies.
        assert received.wait(60), "the KILL did not reach the agent"
        e.close(signal.SIGKILL)
        go.set()  # the agent acknowledges: A stores the ack on the routed command
        # Once E is gone, a sidecar takes the kill over and completes it with the agent's acknowledgement.
        wait_until(
            lambda: any(k.HasField("complete_time") for k in _kills(b, agent_id)), "the kill completed", timeout=60.0
        )
    finally:
        go.set()
        killer.join(30)
        agent.close()
    [kill] = _kills(b, agent_id)
    assert kill.terminated, kill.detail
    assert kill.detail == "stopped cleanly"
    assert len(agent.of(KILL)) == 1  # never sent twice


def test_a_kill_answers_the_streams_waiting_request_then_ends_the_stream_permission_denied(
    fault_fleet: Fleet,
) -> None:
    a, b = fault_fleet[0], fault_fleet[1]
    name = _id("ff-approve")
    a.supervisor.AddGuardrail(guardrail(name, "hitl", patterns=["ff-deploy"]))
    for s in fault_fleet.sidecars[:3]:  # A, B and C (the module's other cases stop the sidecars they start)

        def runs(s: SidecarProc = s) -> bool:
            return name in guardrail_names(s)

        wait_until(runs, f"{name} on {s.name}", timeout=30.0)
    agent_id = _id("stream-agent")
    _register(a, agent_id)
    issued = cli(fault_fleet.tmp, fault_fleet.db_url, "tokens", "issue", "--agent", agent_id)
    assert issued.returncode == 0, issued.stderr
    assert b.raw is not None
    stub = supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(b.raw, issued.stdout.strip()))
    stream = CheckStream(stub, timeout=120)
    try:
        stream.send(1, check(agent_id, "read"))
        assert stream.wait(1, timeout=30)[0].response.allowed
        stream.send(2, check(agent_id, "ff-deploy", request_id=_id("rq")))  # waits for a reviewer
        wait_until(lambda: _pending(a, agent_id), "the approval request", timeout=30.0)
        killed = _kill(a, agent_id, 5)
        # The waiting request is answered (its approval cancelled by the kill), then the stream ends.
        [waited] = stream.wait(2, timeout=60)
        assert not waited.response.allowed
        err = stream.ended(timeout=60)
        assert err is not None and err.code() == grpc.StatusCode.PERMISSION_DENIED, err
        assert error_info(err).reason == "AGENT_TERMINATED"
        assert killed.kill_id in (err.details() or "")
    finally:
        stream.cancel()


def _pending(s: SidecarProc, agent_id: str) -> bool:
    listed = s.supervisor.ListApprovals(
        spb.ListApprovalsRequest(agent_id=agent_id, state=supervisor_pb2.APPROVAL_STATE_PENDING)
    )
    return len(listed.approvals) > 0


def test_three_related_failures_reported_to_three_sidecars_raise_one_cascade(fault_fleet: Fleet) -> None:
    a, b, c = fault_fleet.sidecars[:3]
    x, y, z, w = (_id(n) for n in ("cx", "cy", "cz", "cw"))

    def fail(s: SidecarProc, src: str, dst: str) -> rpb.ReportFailureResponse:
        reported: rpb.ReportFailureResponse = s.recovery.ReportFailure(
            rpb.ReportFailureRequest(from_agent=src, to_agent=dst)
        )
        return reported

    # x -> y on A, y -> z on B: two related failures, no cascade yet; an unrelated one on C does not count.
    assert not fail(a, x, y).HasField("cascade")
    assert not fail(b, y, z).HasField("cascade")
    assert not fail(c, _id("other"), _id("other")).HasField("cascade")
    # z -> w on C completes the chain: the fleet's one window holds all three.
    third = fail(c, z, w)
    assert third.HasField("cascade"), "three related failures on three sidecars raised no cascade"
    cascade = third.cascade
    assert cascade.root_agent == x
    assert [(f.from_agent, f.to_agent) for f in cascade.failures] == [(x, y), (y, z), (z, w)]
    # One CASCADE event, seen on every sidecar; the failures left the window (a fourth starts afresh).
    for s in (a, b, c):
        events = s.recovery.ListRecoveryEvents(
            rpb.ListRecoveryEventsRequest(types=[recovery_pb2.RECOVERY_EVENT_TYPE_CASCADE], page_size=1000)
        ).events
        assert [e.cascade.cascade_id for e in events if x in e.cascade.agent_ids] == [cascade.cascade_id]
    assert not fail(a, w, x).HasField("cascade")


def _kill_events(s: SidecarProc, agent_id: str) -> int:
    listed = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[recovery_pb2.RECOVERY_EVENT_TYPE_KILL], agent_id=agent_id)
    )
    return len(listed.events)


def test_a_resumed_sidecar_gives_up_the_kill_another_took_over(fault_fleet: Fleet, db: sa.Engine) -> None:
    a, b = fault_fleet[0], fault_fleet[1]
    f = fault_fleet.start("F-pause", config=fault_fleet.tmp / "outrider.yaml")
    agent_id = _id("slow-agent")
    _register(a, agent_id)
    agent = _attached(a, agent_id, silent)  # never acknowledges: F's kill waits for its callback timeout

    def kill_on_f() -> None:
        with contextlib.suppress(grpc.RpcError):
            _kill(f, agent_id, 8)

    killer = threading.Thread(target=kill_on_f)
    killer.start()
    try:
        agent.wait_command(KILL, timeout=60.0)
        f_id = _sidecar_id(db, f)
        with _paused(f):
            # Declared gone, its running kill is claimed by another sidecar, which completes it.
            wait_until(
                lambda: any(k.HasField("complete_time") for k in _kills(b, agent_id)), "the kill taken over", 90.0
            )
        # F, resumed, finds the kill is not its own any more and stops running it: it completes once.
        wait_until(lambda: "given up" in f.log_path.read_text(), "F gives the kill up", timeout=60.0)
        wait_until(lambda: _alive(db, f_id), "F alive again", timeout=30.0)
        assert _kill_events(b, agent_id) == 1
        [kill] = _kills(b, agent_id)
        assert not kill.terminated and "timeout" in kill.detail
    finally:
        killer.join(60)
        agent.close()
        f.close()


def _alive(db: sa.Engine, sidecar_id: str) -> bool:
    with db.connect() as conn:
        fresh = conn.execute(
            sa.text("SELECT heartbeat_time > now() - interval '1 second' FROM sidecars WHERE sidecar_id = :s"),
            {"s": sidecar_id},
        ).scalar()
    return bool(fresh)
