"""Agent registry and the decision log, on SQLite and on the real PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from google.protobuf import timestamp_pb2

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.values import digest
from server.services.supervisor.decision_log import DecisionLogSettings

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail


def register(s: RunningSidecar, agent_id: str, group: str = "", **labels: str) -> pb.RegisterAgentResponse:
    return s.stub.RegisterAgent(
        pb.RegisterAgentRequest(
            agent=common_pb2.Agent(agent_id=agent_id, group=group, capabilities=["read", "write"], labels=labels)
        )
    )


def test_register_update_list_page_deregister(sidecar_any_db: RunningSidecar) -> None:
    s = sidecar_any_db
    first = register(s, "a-1", "blue", owner="ann")
    assert first.created and first.agent.group == "blue" and first.agent.labels["owner"] == "ann"
    again = register(s, "a-1", "green")
    assert not again.created and again.agent.group == "green"
    assert again.agent.create_time == first.agent.create_time
    for i in range(2, 6):
        register(s, f"a-{i}", "blue")
    assert register(s, "solo").agent.group == "default"

    seen, token = [], ""
    while True:
        page = s.stub.ListAgents(pb.ListAgentsRequest(page_size=2, page_token=token))
        seen += [a.agent_id for a in page.agents]
        token = page.next_page_token
        if not token:
            break
    assert seen == ["a-1", "a-2", "a-3", "a-4", "a-5", "solo"]
    blue = s.stub.ListAgents(pb.ListAgentsRequest(group="blue")).agents
    assert [a.agent_id for a in blue] == ["a-2", "a-3", "a-4", "a-5"]

    s.stub.DeregisterAgent(pb.DeregisterAgentRequest(agent_id="a-3"))
    assert "a-3" not in [a.agent_id for a in s.stub.ListAgents(pb.ListAgentsRequest()).agents]
    assert list(s.stub.GetAgent(pb.GetAgentRequest(agent_id="a-1")).agent.capabilities) == ["read", "write"]


def wait_for_decisions(s: RunningSidecar, n: int, **flt: object) -> list[object]:
    assert s.services.decisions.flush(10)
    return list(s.stub.ListDecisions(pb.ListDecisionsRequest(**flt)).decisions)  # type: ignore[arg-type]


def test_decisions_are_logged_with_filters_and_paging(sidecar_any_db: RunningSidecar) -> None:
    s = sidecar_any_db
    s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=10))
    s.stub.AddGuardrail(guardrail("w", "action_list", deny=["noisy"], mode="warn"))
    ids = []
    for i in range(6):
        ids.append(s.stub.CheckAction(check("ag-1", "pay", {"cost": i * 4}, request_id=f"r{i}")).decision_id)
    s.stub.CheckAction(check("ag-2", "noisy"))
    all_ = wait_for_decisions(s, 7)
    assert len(all_) == 7 and all_[0].agent_id == "ag-2"  # newest first
    blocked = wait_for_decisions(s, 0, outcome="blocked")
    assert [d.decision_id for d in blocked] == ids[:2:-1]  # cost 12, 16, 20 blocked, newest first
    d = blocked[0]
    assert (d.agent_id, d.action, d.allowed, d.guardrail, d.reason, d.request_id) == (
        "ag-1",
        "pay",
        False,
        "cap",
        "Cost 20 is over the cap",
        "r5",
    )
    assert d.context_digest == digest({"cost": 20.0})
    assert d.create_time.seconds > 0 and d.latency.ToMicroseconds() >= 0
    noisy = wait_for_decisions(s, 0, agent_id="ag-2")
    assert [(w.guardrail, w.reason) for w in noisy[0].warnings] == [("w", "Action 'noisy' is denied by w")]
    assert len(wait_for_decisions(s, 0, guardrail="w", outcome="allowed")) == 4  # the last result names "w"

    page1 = s.stub.ListDecisions(pb.ListDecisionsRequest(page_size=4))
    page2 = s.stub.ListDecisions(pb.ListDecisionsRequest(page_size=4, page_token=page1.next_page_token))
    assert len(page1.decisions) == 4 and len(page2.decisions) == 3 and not page2.next_page_token

    future = timestamp_pb2.Timestamp()
    future.FromDatetime(datetime.now(UTC) + timedelta(hours=1))
    assert wait_for_decisions(s, 0, start_time=future) == []


def test_overflow_drops_and_counts_instead_of_slowing_checks(tmp_path: Path) -> None:
    settings = DecisionLogSettings(queue_size=1, batch_size=1, flush_interval=0.001)
    with RunningSidecar(make_config(tmp_path, decision_log=settings)) as s:
        # Block the writer so the queue stays full while checks keep coming.
        repo = s.services.decisions.repo
        original = repo.insert_many
        gate = __import__("threading").Event()

        def slow_insert(rows: object) -> None:
            gate.wait(600)  # storage answers only once the test opens the gate, after the 50 checks
            original(rows)  # type: ignore[arg-type]

        repo.insert_many = slow_insert  # type: ignore[method-assign]
        try:
            # The hot path never waited on storage: with storage blocked, every check still answers within
            # its own deadline (one that waited would block until the gate opens, after all of them).
            for _ in range(50):
                assert s.stub.CheckAction(check(), timeout=30).allowed
            dropped = s.services.decisions.stats.dropped
        finally:
            gate.set()
        assert dropped >= 45, dropped
        assert s.services.decisions.flush(30)
        assert s.services.decisions.stats.written == 50 - dropped


def test_retention_prunes_old_and_excess_rows(tmp_path: Path) -> None:
    settings = DecisionLogSettings(max_rows=3, max_age=3600)
    with RunningSidecar(make_config(tmp_path, decision_log=settings), with_scheduler=False) as s:
        for _ in range(5):
            s.stub.CheckAction(check())
        assert s.services.decisions.flush(10)
        assert s.services.decisions.prune() == 2
        assert len(s.stub.ListDecisions(pb.ListDecisionsRequest()).decisions) == 3
