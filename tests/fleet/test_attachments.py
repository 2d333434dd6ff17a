"""Attachments: the database records which sidecar holds each agent's control channel, on attach, detach
and the holding sidecar's death."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.recovery_sim import SimAgent

from .conftest import fast_failover_fleet
from .harness import Fleet, SidecarProc, cli, wait_until

# Three sidecar processes start in the module fixture: generous on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def attach_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    yield from fast_failover_fleet(tmp_path_factory, "attachments")


def sidecar_id(fleet: Fleet, s: SidecarProc) -> str:
    engine = sa.create_engine(fleet.db_url)
    try:
        with engine.connect() as conn:
            return str(
                conn.execute(
                    sa.text("SELECT sidecar_id FROM sidecars WHERE listen = :l AND stop_time IS NULL"), {"l": s.target}
                ).scalar_one()
            )
    finally:
        engine.dispose()


def attachment(fleet: Fleet, agent_id: str) -> dict[str, object] | None:
    engine = sa.create_engine(fleet.db_url)
    try:
        with engine.connect() as conn:
            row = (
                conn.execute(sa.text("SELECT * FROM fleet_attachments WHERE agent_id = :a"), {"a": agent_id})
                .mappings()
                .first()
            )
            return dict(row) if row else None
    finally:
        engine.dispose()


def attach(s: SidecarProc, agent_id: str, **kw: object) -> SimAgent:
    s.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))
    agent = SimAgent(s.recovery, agent_id, **kw)  # type: ignore[arg-type]
    agent.wait_for(lambda sim: sim.accepted is not None or sim.ended.is_set(), timeout=10.0)
    assert agent.accepted is not None, agent.error
    return agent


def test_attach_records_the_holding_sidecar_and_detach_forgets_it(attach_fleet: Fleet) -> None:
    a, b, _ = attach_fleet.sidecars
    agent = attach(b, "att-1")
    row = attachment(attach_fleet, "att-1")  # recorded before the agent was told it is accepted
    assert row is not None and row["sidecar_id"] == sidecar_id(attach_fleet, b)
    assert str(row["attachment_id"]).startswith("att-") and row["connect_time"] <= row["last_seen_time"]
    first = row["attachment_id"]
    again = SimAgent(a.recovery, "att-1")  # the agent attaches again, through A: the newest stream wins
    again.wait_for(lambda sim: sim.accepted is not None, timeout=10.0)
    row = attachment(attach_fleet, "att-1")
    assert row is not None and row["sidecar_id"] == sidecar_id(attach_fleet, a) and row["attachment_id"] != first
    agent.call.cancel()  # the old stream on B ends: A's attachment stays
    agent.ended.wait(5)
    wait_until(lambda: b.p.poll() is None, "B alive")
    assert (attachment(attach_fleet, "att-1") or {}).get("sidecar_id") == sidecar_id(attach_fleet, a)
    again.call.cancel()
    wait_until(lambda: attachment(attach_fleet, "att-1") is None, "the detach recorded")


def test_last_seen_follows_heartbeats_and_fleet_status_lists_attached_agents(attach_fleet: Fleet) -> None:
    _, _, c = attach_fleet.sidecars
    agent = attach(c, "att-2")
    try:
        before = (attachment(attach_fleet, "att-2") or {})["last_seen_time"]
        agent.heartbeat()
        wait_until(
            lambda: (attachment(attach_fleet, "att-2") or {})["last_seen_time"] > before,  # type: ignore[operator]
            "the heartbeat stamped",
        )
        r = cli(attach_fleet.tmp, attach_fleet.db_url, "fleet", "status", "--json")
        rows = {row["sidecar_id"]: row for row in map(json.loads, r.stdout.splitlines())}
        assert "att-2" in rows[sidecar_id(attach_fleet, c)]["attached_agents"]
    finally:
        agent.call.cancel()


def test_a_dead_sidecars_attachments_are_released(attach_fleet: Fleet) -> None:
    d = attach_fleet.start("D", config=attach_fleet.tmp / "outrider.yaml")
    attach(d, "att-3")
    # (a busy host may stall D past its timeout right after: the others release its row and D re-asserts it)
    wait_until(lambda: attachment(attach_fleet, "att-3") is not None, "D's attachment recorded")
    d.close(signal.SIGKILL)  # no detach is written: the other sidecars release D's rows once it is gone
    wait_until(lambda: attachment(attach_fleet, "att-3") is None, "D's attachment released", timeout=15.0)
