"""Episodic memory, reversibility and plan validation over real gRPC."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from google.protobuf import timestamp_pb2

from outrider.v1 import common_pb2
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from server.services.safeguards.settings import SafeguardSettings

from .harness import RunningSidecar, make_config
from .rpc import struct


def record(stub: object, task: str, agent: str = "a1", task_type: str = "faq", outcome: str = "success") -> sg.Episode:
    e = sg.Episode(task_id=task, agent_id=agent, task_type=task_type, outcome=outcome, metadata=struct({"t": task}))
    return stub.RecordEpisode(pb.RecordEpisodeRequest(episode=e)).episode  # type: ignore[attr-defined,no-any-return]


def test_episodes_are_bounded_newest_first_and_durable(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url, safeguards=SafeguardSettings(max_episodes=3))
    with RunningSidecar(config) as s:
        st = s.safeguard
        ids = [record(st, f"t{i}", task_type=("FAQ-lookup" if i % 2 else "billing")).episode_id for i in range(4)]
        assert ids == [1, 2, 3, 4]
        e = sg.Episode(
            task_id="t4",
            agent_id="a2",
            task_type="faq",
            outcome="FAILURE",
            episode_time=timestamp_pb2.Timestamp(seconds=42),
        )
        dropped = st.RecordEpisode(pb.RecordEpisodeRequest(episode=e))
        assert dropped.evicted_count == 1 and dropped.episode.episode_time.seconds == 42
        similar = st.QuerySimilar(pb.QuerySimilarRequest(task_type="faq")).episodes
        assert [x.task_id for x in similar] == ["t4", "t3"]  # t1 was evicted
        assert [x.task_id for x in st.QuerySimilar(pb.QuerySimilarRequest(limit=2)).episodes] == ["t4", "t3"]
        assert [x.task_id for x in st.QueryByOutcome(pb.QueryByOutcomeRequest(outcome="failure")).episodes] == ["t4"]
        assert [x.task_id for x in st.QueryByAgent(pb.QueryByAgentRequest(agent_id="a1")).episodes] == ["t3", "t2"]
        with pytest.raises(grpc.RpcError) as err:
            st.QuerySimilar(pb.QuerySimilarRequest(limit=-1))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with RunningSidecar(config) as s:
        st = s.safeguard
        got = st.QuerySimilar(pb.QuerySimilarRequest()).episodes
        assert [(x.episode_id, x.task_id, dict(x.metadata)) for x in got][:2] == [(5, "t4", {}), (4, "t3", {"t": "t3"})]
        assert record(st, "t5").episode_id == 6


def test_episode_agent_scope(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path)) as s:
        a1, a2 = s.as_agent("a1").safeguard, s.as_agent("a2").safeguard
        record(a1, "mine")
        record(a2, "theirs", agent="a2")
        with pytest.raises(grpc.RpcError) as err:
            record(a2, "forged", agent="a1")
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as err:
            a2.QueryByAgent(pb.QueryByAgentRequest(agent_id="a1"))
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert [e.task_id for e in a2.QuerySimilar(pb.QuerySimilarRequest()).episodes] == ["theirs"]
        assert [e.task_id for e in a2.QueryByOutcome(pb.QueryByOutcomeRequest(outcome="SUCCESS")).episodes] == [
            "theirs"
        ]
        assert len(s.safeguard.QuerySimilar(pb.QuerySimilarRequest()).episodes) == 2  # operators see all


LEVEL = sg.ReversibilityLevel


TABLE = [
    ("write_file", LEVEL.REVERSIBILITY_LEVEL_FULLY_REVERSIBLE, False, "restore_file_backup"),
    ("create_file", LEVEL.REVERSIBILITY_LEVEL_FULLY_REVERSIBLE, False, "delete_file"),
    ("delete_file", LEVEL.REVERSIBILITY_LEVEL_IRREVERSIBLE, True, "restore_file_backup"),
    ("database_write", LEVEL.REVERSIBILITY_LEVEL_FULLY_REVERSIBLE, False, "rollback_transaction"),
    ("drop_table", LEVEL.REVERSIBILITY_LEVEL_IRREVERSIBLE, True, "restore_table_backup"),
    ("send_email", LEVEL.REVERSIBILITY_LEVEL_PARTIALLY_REVERSIBLE, False, "recall_email"),
    ("deploy", LEVEL.REVERSIBILITY_LEVEL_IRREVERSIBLE, True, "rollback_deployment"),
    ("execute_code", LEVEL.REVERSIBILITY_LEVEL_IRREVERSIBLE, True, ""),
    ("teleport", LEVEL.REVERSIBILITY_LEVEL_UNKNOWN, True, ""),
]


def test_reversibility_table(sidecar: RunningSidecar) -> None:
    st = sidecar.as_agent("a1").safeguard
    for action, level, approval, compensation in TABLE:
        a = st.AssessReversibility(
            pb.AssessReversibilityRequest(action=action, parameters=struct({"path": "/x", "table": "t"}))
        ).assessment
        assert (a.action, a.level, a.requires_extra_approval) == (action, level, approval)
        assert [c.action for c in a.compensating_actions][:1] == ([compensation] if compensation else [])
    write = st.AssessReversibility(
        pb.AssessReversibilityRequest(action="write_file", parameters=struct({"path": "/x"}))
    )
    assert dict(write.assessment.compensating_actions[0].parameters) == {"path": "/x"}


def test_reversibility_from_the_policy_file(tmp_path: Path) -> None:
    path = tmp_path / "outrider.yaml"
    path.write_text(
        "reversibility:\n"
        "  - action: 'deploy*'\n"
        "    level: partially_reversible\n"
        "    reason: blue/green switch\n"
        "    compensating:\n"
        "      - {description: Switch back, action: switch_traffic, effectiveness: full, time_window: 30m,\n"
        "         parameters: {to: '{previous}'}}\n"
    )
    from server.config import load_config

    config = make_config(tmp_path, config_path=path, reversibility=load_config(str(path), env={}).reversibility)
    with RunningSidecar(config) as s:
        a = s.safeguard.AssessReversibility(
            pb.AssessReversibilityRequest(action="deploy", parameters=struct({"previous": "blue"}))
        ).assessment
        assert (a.level, a.source, a.requires_extra_approval) == (
            LEVEL.REVERSIBILITY_LEVEL_PARTIALLY_REVERSIBLE,
            "policy",
            False,
        )
        (c,) = a.compensating_actions
        assert (c.action, dict(c.parameters), c.time_window.seconds, c.effectiveness) == (
            "switch_traffic",
            {"to": "blue"},
            1800,
            sg.COMPENSATION_EFFECTIVENESS_FULL,
        )
        rules = s.safeguard.ListReversibilityRules(pb.ListReversibilityRulesRequest(page_size=3))
        assert (rules.rules[0].action, rules.rules[0].source) == ("deploy*", "policy") and rules.next_page_token
        with pytest.raises(grpc.RpcError) as err:
            s.safeguard.AssessReversibility(pb.AssessReversibilityRequest(action=""))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def step(step_id: str, action: str, *deps: str) -> sg.PlanStep:
    return sg.PlanStep(step_id=step_id, action=action, depends_on=list(deps))


def test_plan_violations(sidecar: RunningSidecar) -> None:
    st = sidecar.as_agent("planner").safeguard
    ok = st.ValidatePlan(
        pb.ValidatePlanRequest(
            plan=sg.ExecutionPlan(steps=[step("r", "db.read"), step("w", "file.write", "r")]),
            capabilities=["db.read", "file.write"],
        )
    )
    assert ok.valid and not ok.violations
    bad = st.ValidatePlan(
        pb.ValidatePlanRequest(
            plan=sg.ExecutionPlan(
                steps=[step("a", "db.read", "b"), step("b", "db.drop", "a"), step("", ""), step("c", "db.read", "zz")]
            ),
            capabilities=["db.read"],
        )
    )
    T = sg.PlanViolationType
    assert not bad.valid
    assert [(v.type, v.step_index, list(v.related)) for v in bad.violations] == [
        (T.PLAN_VIOLATION_TYPE_DEPENDENCY_CYCLE, 0, ["a", "b"]),
        (T.PLAN_VIOLATION_TYPE_ACTION_NOT_ALLOWED, 1, ["db.drop"]),
        (T.PLAN_VIOLATION_TYPE_MISSING_STEP_ID, 2, []),
        (T.PLAN_VIOLATION_TYPE_MISSING_ACTION, 2, []),
        (T.PLAN_VIOLATION_TYPE_UNKNOWN_DEPENDENCY, 3, ["zz"]),
    ]
    assert bad.violations[0].message == "step 0 ('a') is in a dependency cycle: a -> b -> a"


def test_plan_capabilities_from_the_registered_agent(sidecar: RunningSidecar) -> None:
    sidecar.stub.RegisterAgent(
        spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="hands", capabilities=["db.read"]))
    )
    plan = sg.ExecutionPlan(steps=[step("r", "db.read"), step("w", "file.write")])
    got = sidecar.safeguard.ValidatePlan(pb.ValidatePlanRequest(plan=plan, agent_id="hands"))
    assert [v.related[0] for v in got.violations] == ["file.write"]
    with pytest.raises(grpc.RpcError) as err:
        sidecar.safeguard.ValidatePlan(pb.ValidatePlanRequest(plan=plan, agent_id="nobody"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
