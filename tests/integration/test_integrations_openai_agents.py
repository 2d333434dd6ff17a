"""OpenAI Agents SDK with OutriderGuard, the SDK's own ScriptedModel (no network, no API key) and a live
sidecar: allow, block (the model's next input holds the reason), approve-then-resume, edit, reject."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest
from agents import Agent, Runner, function_tool
from agents.testing.model import ScriptedModel, assistant_message, function_call

from outrider import AsyncClient
from outrider.integrations.openai_agents import OutriderGuard
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar
from .rpc import guardrail, struct

AGENT = "oa-agent"
RAN: list[dict[str, Any]] = []


def deploy(env: str, version: str) -> str:
    """Deploy a version to an environment."""
    RAN.append({"env": env, "version": version})
    return f"deployed {version} to {env}"


def scripted(call_id: str) -> ScriptedModel:
    return ScriptedModel(
        [[function_call("deploy", {"env": "prod", "version": "3"}, call_id=call_id)], [assistant_message("done")]]
    )


def run_agent(sidecar: RunningSidecar, call_id: str, decide: dict[str, Any] | None = None) -> tuple[Any, ScriptedModel]:
    RAN.clear()
    token = sidecar.issue(PrincipalKind.AGENT, AGENT)
    model = scripted(call_id)

    async def go() -> Any:
        async with AsyncClient(sidecar.sidecar.target, token) as client:
            guard = OutriderGuard(client, AGENT)
            tool = function_tool(
                deploy, needs_approval=guard.needs_approval("deploy"), tool_input_guardrails=[guard.input_guardrail]
            )
            agent = Agent(name="ops", model=model, tools=[tool])
            result = await Runner.run(agent, "deploy 3 to prod")
            if decide is not None:
                assert result.interruptions, "the run should pause for a person"
                assert RAN == []
                (approval,) = sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals
                assert approval.request_id == call_id
                decided = threading.Timer(
                    0.2,
                    lambda: sidecar.stub.DecideApproval(
                        pb.DecideApprovalRequest(approval_id=approval.approval_id, **decide)
                    ),
                )
                decided.start()
                state = await guard.resolve(result, timeout=30)  # waits for the reviewer
                decided.join()
                result = await Runner.run(agent, state)
            return result

    return anyio.run(go), model


def tool_outputs(model: ScriptedModel) -> list[str]:
    last = model.calls[-1]
    items = last.input if isinstance(last.input, list) else []
    return [str(i.get("output")) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]


def test_allowed_tool_runs(sidecar: RunningSidecar) -> None:
    result, model = run_agent(sidecar, "call_1")
    assert RAN == [{"env": "prod", "version": "3"}]
    assert tool_outputs(model) == ["deployed 3 to prod"]
    assert result.final_output == "done"


def test_blocked_reason_reaches_the_model(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-deploy", "action_list", deny=["deploy"]))
    _, model = run_agent(sidecar, "call_2")
    assert RAN == []
    (out,) = tool_outputs(model)
    assert "Blocked by Outrider (no-deploy)" in out


@pytest.mark.parametrize(
    ("decide", "ran", "said"),
    [
        ({"approve": True}, [{"env": "prod", "version": "3"}], "deployed 3 to prod"),
        ({"approve": False, "comment": "freeze until Monday"}, [], "freeze until Monday"),
        (
            {"approve": True, "edited_context": struct({"env": "staging", "version": "3"})},
            [],
            'call the tool again with {"env": "staging", "version": "3"}',
        ),
    ],
    ids=["approve", "reject", "edit"],
)
def test_pause_then_resume_from_outriders_decision(
    sidecar: RunningSidecar, decide: dict[str, Any], ran: list[dict[str, Any]], said: str
) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    _, model = run_agent(sidecar, "call_3", decide)
    assert ran == RAN
    (out,) = tool_outputs(model)
    assert said in out
