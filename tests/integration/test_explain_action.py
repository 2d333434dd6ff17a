"""ExplainAction over real gRPC: every guardrail's verdict in evaluation order, the same answer CheckAction gives
at that moment, and no side effect (no rate count, no approval, no permit, no decision-log record)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from outrider.v1 import common_pb2
from outrider.v1 import safeguard_service_pb2 as sg
from outrider.v1 import supervisor_service_pb2 as pb
from tests import plugins

from .harness import RunningSidecar
from .rpc import check, error_info, guardrail, struct

INFO, WARNING, BLOCK = common_pb2.SEVERITY_INFO, common_pb2.SEVERITY_WARNING, common_pb2.SEVERITY_BLOCK


def add(s: RunningSidecar, name: str, kind: str, **options: object) -> None:
    s.stub.AddGuardrail(guardrail(name, kind, **options))


def explain(
    stub: Any, agent_id: str = "agent-1", action: str = "act", context: dict[str, Any] | None = None
) -> pb.ExplainActionResponse:
    r: pb.ExplainActionResponse = stub.ExplainAction(
        pb.ExplainActionRequest(agent_id=agent_id, action=action, context=struct(context))
    )
    return r


def verdict(r: Any) -> tuple[Any, ...]:
    return (r.allowed, r.reason, r.severity, r.guardrail, [(w.guardrail, w.reason) for w in r.warnings])


def decisions(s: RunningSidecar) -> int:
    s.services.decisions.flush()
    return len(s.stub.ListDecisions(pb.ListDecisionsRequest()).decisions)


@pytest.fixture(autouse=True)
def _clear_calls() -> None:
    plugins.CALLS.clear()


def test_every_guardrail_in_evaluation_order_and_the_one_that_decided(sidecar: RunningSidecar) -> None:
    add(sidecar, "heads-up", "action_list", deny=["act"], mode="warn")
    add(sidecar, "cap", "cost_cap", max=100)
    add(sidecar, "after", "plugin", **{"class": "tests.plugins:Recorder", "label": "after"})
    add(sidecar, "root", "trust_root", blocked_patterns=["rm -rf"])
    r = explain(sidecar.stub, context={"cost": 140})
    assert [(g.guardrail, g.kind, g.evaluated, g.decided) for g in r.guardrails] == [
        ("root", "trust_root", True, False),  # trust roots first, as CheckAction evaluates them
        ("heads-up", "action_list", True, False),
        ("cap", "cost_cap", True, True),
        ("after", "plugin", False, False),  # an earlier block decided: it would not run
    ]
    assert (r.guardrails[1].allowed, r.guardrails[1].severity, r.guardrails[1].reason) == (
        True,
        WARNING,
        "Action 'act' is denied by heads-up",
    )
    assert r.guardrails[2].duration.ToMicroseconds() >= 0
    assert verdict(r) == verdict(sidecar.stub.CheckAction(check(context={"cost": 140})))
    assert verdict(r) == (
        False,
        "Cost 140 is over the cap",
        BLOCK,
        "cap",
        [("heads-up", "Action 'act' is denied by heads-up")],
    )
    allowed = explain(sidecar.stub, context={"cost": 10})
    assert [g.decided for g in allowed.guardrails] == [False, False, False, True]  # all allow: the last answers
    assert verdict(allowed) == verdict(sidecar.stub.CheckAction(check(context={"cost": 10})))


def test_no_decision_record_and_no_rate_count(sidecar: RunningSidecar) -> None:
    add(sidecar, "rate", "rate_limit", max=1, window="1h")
    for _ in range(5):
        assert explain(sidecar.stub).allowed  # explaining is not counted
    assert decisions(sidecar) == 0
    assert sidecar.stub.CheckAction(check()).allowed  # the one admitted check
    r = explain(sidecar.stub)
    assert verdict(r) == (
        False,
        "Rate limit exceeded: more than 1 checks per 3600s for agent 'agent-1'",
        BLOCK,
        "rate",
        [],
    )
    assert verdict(r) == verdict(sidecar.stub.CheckAction(check()))
    assert decisions(sidecar) == 2  # the two CheckActions, never an explanation


def test_a_matching_hitl_would_ask_a_human_and_no_approval_is_created(sidecar: RunningSidecar) -> None:
    add(sidecar, "approval", "hitl", patterns=["deploy"])
    add(sidecar, "after", "cost_cap", max=1)
    r = explain(sidecar.stub, action="deploy-prod", context={"cost": 5})
    assert r.needs_approval and not r.allowed
    assert (r.guardrail, r.severity) == ("approval", BLOCK)
    assert r.reason == "Would ask a human: guardrail 'approval' requires approval"
    assert [(g.guardrail, g.evaluated, g.needs_approval) for g in r.guardrails] == [
        ("approval", True, True),
        ("after", False, False),
    ]
    assert list(sidecar.stub.ListApprovals(pb.ListApprovalsRequest()).approvals) == []
    # An action the pattern does not match goes on through the chain, as in CheckAction.
    other = explain(sidecar.stub, action="read", context={"cost": 5})
    assert not other.needs_approval and other.guardrail == "after"


def test_breaker_is_previewed_without_taking_a_permit(sidecar: RunningSidecar) -> None:
    add(sidecar, "circuit", "breaker")
    r = explain(sidecar.stub)
    assert r.allowed and r.guardrail == "circuit"
    with pytest.raises(grpc.RpcError) as err:  # no breaker was even created
        sidecar.safeguard.GetBreaker(sg.GetBreakerRequest(key="agent-1"))
    assert err.value.code() is grpc.StatusCode.NOT_FOUND
    sidecar.safeguard.ForceOpen(sg.ForceOpenRequest(key="agent-1", reason="test"))
    before = sidecar.safeguard.GetBreaker(sg.GetBreakerRequest(key="agent-1")).breaker
    blocked = explain(sidecar.stub)
    assert not blocked.allowed and blocked.reason.startswith("Circuit 'agent-1' is OPEN")
    assert sidecar.safeguard.GetBreaker(sg.GetBreakerRequest(key="agent-1")).breaker == before
    assert verdict(blocked) == verdict(sidecar.stub.CheckAction(check()))


def test_an_agent_may_explain_only_its_own_calls(sidecar: RunningSidecar) -> None:
    add(sidecar, "cap", "cost_cap", max=100)
    agent = sidecar.as_agent("agent-7")
    assert explain(agent.stub, agent_id="agent-7", context={"cost": 1}).allowed
    with pytest.raises(grpc.RpcError) as err:
        explain(agent.stub, agent_id="agent-8")
    assert err.value.code() is grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.parametrize(
    ("agent_id", "action", "field"),
    [("agent-1", "", "action"), ("", "act", "agent_id"), ("agent-1", "x" * 1025, "action")],
)
def test_bad_input_is_invalid_argument_naming_the_field(
    sidecar: RunningSidecar, agent_id: str, action: str, field: str
) -> None:
    with pytest.raises(grpc.RpcError) as err:
        explain(sidecar.stub, agent_id=agent_id, action=action)
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).metadata["field"] == field
