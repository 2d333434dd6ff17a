"""ExplainAction accepts exactly what CheckAction accepts (one validation step, the configured limits and the
canonical action), an agent's explanation is audited, and `explain.agents: false` keeps it for operators
(issue 27). Before, Explain converted the context under the default limits and skipped the action's
canonicalisation, so it called valid calls that CheckAction refused, and nobody saw an agent read the chain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb

from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail, struct


def explain(stub: Any, agent_id: str, action: str = "act", context: dict[str, Any] | None = None) -> Any:
    return stub.ExplainAction(pb.ExplainActionRequest(agent_id=agent_id, action=action, context=struct(context)))


def refusal(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as err:
        call()
    return err.value


def test_explain_refuses_what_check_refuses_under_the_configured_limits(tmp_path: Path) -> None:
    deep = {"a": {"b": {"c": {"d": 1}}}}
    long = {"note": "x" * 65}
    with RunningSidecar(make_config(tmp_path, max_context_depth=3, max_string_length=64)) as s:
        for context, problem in ((deep, "nested deeper than 3"), (long, "over the limit of 64")):
            checked = refusal(lambda c=context: s.stub.CheckAction(check(context=c)))
            explained = refusal(lambda c=context: explain(s.stub, "agent-1", context=c))
            for err in (checked, explained):
                assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert problem in (err.details() or "")
            assert error_info(checked).metadata["field"] == error_info(explained).metadata["field"]


def test_explain_canonicalises_the_action_as_check_does(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
    r = explain(sidecar.stub, "agent-1", action="\uff53\uff48\uff45\uff4c\uff4c.exec")  # full-width `shell`
    assert not r.allowed and r.guardrail == "tools"
    assert r.reason == "Action 'shell.exec' is denied by tools"
    err = refusal(lambda: explain(sidecar.stub, "agent-1", action="shell.exec "))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err).metadata["field"] == "action"


def test_binary_context_counts_against_the_context_limit_in_explain_too(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_context_bytes=1024)) as s:
        big = {"blob": b"x" * 2048}
        for call in (
            lambda: s.stub.CheckAction(check(binary_context=big)),
            lambda: s.stub.ExplainAction(pb.ExplainActionRequest(agent_id="agent-1", action="a", binary_context=big)),
        ):
            err = refusal(call)
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert error_info(err).metadata["field"] == "context"


def _register(agent: Any, agent_id: str) -> None:
    agent.stub.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))


def test_an_agents_explanation_is_audited(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
    agent = sidecar.as_agent("explainer-1")
    _register(agent, "explainer-1")
    assert not explain(agent.stub, "explainer-1", action="shell.exec").allowed
    explain(sidecar.stub, "explainer-1", action="files.read")  # an operator's is not recorded
    records = [r for r in sidecar.services.audit.repo.iter_all() if r.action == "chain.explain"]
    assert [
        (r.actor, r.subject, r.details["action"], r.details["allowed"], r.details["guardrail"]) for r in records
    ] == [("agent:explainer-1", "explainer-1", "shell.exec", False, "tools")]


def test_explain_agents_false_is_permission_denied_for_agents_only(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, explain_agents=False)) as s:
        agent = s.as_agent("explainer-2")
        _register(agent, "explainer-2")
        err = refusal(lambda: explain(agent.stub, "explainer-2"))
        assert err.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "explain.agents: false" in (err.details() or "")
        assert error_info(err).reason == "EXPLAIN_DISABLED"
        assert explain(s.stub, "explainer-2").allowed  # operators still can
        assert agent.stub.CheckAction(check(agent_id="explainer-2")).allowed  # checking is untouched
