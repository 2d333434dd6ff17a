"""`build_server(config, services=...)`: the production gRPC server around services the composition root
built on the in-memory repositories, so rule tests run in process on the fakes over real gRPC."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from outrider.v1 import common_pb2
from server.bootstrap import build_services
from server.sidecar import build_server
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail


def test_check_action_is_served_on_the_memory_repositories(
    memory_sidecar: RunningSidecar, memory_store: MemoryStore, clock: FakeClock
) -> None:
    memory_sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    assert [g.name for g in memory_store.guardrails.specs] == ["cap"]  # the chain is stored in the fake

    agent = memory_sidecar.as_agent("mem-agent-1")
    blocked = agent.stub.CheckAction(check(agent_id="mem-agent-1", context={"cost": 140}))
    allowed = agent.stub.CheckAction(check(agent_id="mem-agent-1", context={"cost": 40}))
    assert (blocked.allowed, blocked.guardrail, blocked.severity) == (False, "cap", common_pb2.SEVERITY_BLOCK)
    assert blocked.reason == "Cost 140 is over the cap"
    assert allowed.allowed

    assert memory_sidecar.services.decisions.flush()
    stored = {d.decision_id: d for _, d in memory_store.decisions.rows}
    assert stored[blocked.decision_id].allowed is False
    assert stored[allowed.decision_id].allowed is True
    # Decisions carry the injected clock's time: the services were built on `clock`, not the wall clock.
    assert stored[blocked.decision_id].create_time == clock.utcnow()


def test_the_database_file_is_not_used(
    tmp_path: Path, memory_sidecar: RunningSidecar, memory_store: MemoryStore
) -> None:
    r = memory_sidecar.stub.CheckAction(check(agent_id="mem-agent-2"))
    assert r.allowed and memory_sidecar.services.decisions.flush()
    assert memory_sidecar.services.decisions.repo is memory_store.decisions
    assert [d.decision_id for _, d in memory_store.decisions.rows] == [r.decision_id]
    # The SQLite file make_config prepared holds no decision: nothing was written through SQL.
    with sqlite3.connect(tmp_path / "data" / "outrider.db") as conn:
        assert conn.execute("SELECT count(*) FROM decisions").fetchone() == (0,)


def test_a_clock_beside_prebuilt_services_is_refused(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    services = build_services(config, repos=MemoryStore().repositories(), clock=FakeClock())
    try:
        with pytest.raises(ValueError, match="clock"):
            asyncio.run(build_server(config, services=services, clock=FakeClock()))
    finally:
        services.close()
