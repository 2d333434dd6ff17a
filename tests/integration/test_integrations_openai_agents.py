"""OpenAI Agents SDK with OutriderGuard, the SDK's own ScriptedModel (no network, no API key) and a live
sidecar: allow, block (the model's next input holds the reason), approve-then-resume, edit, reject; one
check per tool call; `guard_all` leaves no tool unguarded."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest
from agents import Agent, Runner, WebSearchTool, function_tool
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


def run_agent(
    sidecar: RunningSidecar, call_id: str, decide: dict[str, Any] | None = None, setup: str = "hooks"
) -> tuple[Any, ScriptedModel]:
    """`setup`: "hooks" (needs_approval and the input guardrail set by hand) or "guard_all"."""
    RAN.clear()
    token = sidecar.issue(PrincipalKind.AGENT, AGENT)
    model = scripted(call_id)

    async def go() -> Any:
        async with AsyncClient(sidecar.sidecar.target, token) as client:
            guard = OutriderGuard(client, AGENT)
            if setup == "hooks":
                tool = function_tool(
                    deploy,
                    needs_approval=guard.needs_approval("deploy"),
                    tool_input_guardrails=[guard.input_guardrail],
                )
                agent = Agent(name="ops", model=model, tools=[tool])
            else:
                agent = guard.guard_all(Agent(name="ops", model=model, tools=[function_tool(deploy)]))
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


def decisions(sidecar: RunningSidecar, call_id: str) -> list[Any]:
    assert sidecar.services.decisions.flush(10)
    rows = sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id=AGENT)).decisions
    return [d for d in reversed(rows) if d.request_id == call_id]  # oldest first


@pytest.mark.parametrize("setup", ["hooks", "guard_all"])
def test_one_check_per_tool_call(sidecar: RunningSidecar, setup: str) -> None:
    # One call a minute: checking the call twice (once per hook) would count two and block it.
    sidecar.stub.AddGuardrail(guardrail("pace", "rate_limit", max=1, window="60s"))
    _, model = run_agent(sidecar, f"once-{setup}", setup=setup)
    assert RAN == [{"env": "prod", "version": "3"}]
    assert tool_outputs(model) == ["deployed 3 to prod"]
    (row,) = decisions(sidecar, f"once-{setup}")
    assert row.allowed


def test_guard_all_blocked_reason_reaches_the_model(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-deploy", "action_list", deny=["deploy"]))
    _, model = run_agent(sidecar, "ga_block", setup="guard_all")
    assert RAN == []
    (out,) = tool_outputs(model)
    assert "Blocked by Outrider (no-deploy)" in out
    assert len(decisions(sidecar, "ga_block")) == 1


@pytest.mark.parametrize(
    ("decide", "ran", "said"),
    [
        ({"approve": True}, [{"env": "prod", "version": "3"}], "deployed 3 to prod"),
        ({"approve": False, "comment": "freeze until Monday"}, [], "freeze until Monday"),
        (
            {"approve": True, "edited_context": struct({"env": "staging", "version": "3"})},
            [{"env": "staging", "version": "3"}],
            "deployed 3 to staging",
        ),
    ],
    ids=["approve", "reject", "edit"],
)
def test_guard_all_pause_then_resume_runs_what_was_approved(
    sidecar: RunningSidecar, decide: dict[str, Any], ran: list[dict[str, Any]], said: str
) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    result, model = run_agent(sidecar, "ga_pause", decide, setup="guard_all")
    assert ran == RAN  # an edit runs as approved: the model is not asked to call again
    (out,) = tool_outputs(model)
    assert said in out
    assert result.final_output == "done" and not result.interruptions
    assert len(sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals) == 1
    # The pause's decision (pending), then the verdict once decided: no further check when the tool runs.
    assert [r.allowed for r in decisions(sidecar, "ga_pause")] == [False, bool(ran)]


def noop() -> str:
    """Does nothing."""
    return "ok"


def test_guard_all_covers_handoff_agents_and_refuses_what_it_cannot_check(sidecar: RunningSidecar) -> None:
    async def go() -> None:
        async with AsyncClient(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, AGENT)) as client:
            guard = OutriderGuard(client, AGENT)
            helper = Agent(name="helper", tools=[function_tool(noop)])
            main = Agent(name="main", tools=[function_tool(deploy)], handoffs=[helper])
            assert guard.guard_all(main) is main
            for a in (main, helper):
                (t,) = a.tools
                assert callable(t.needs_approval)  # type: ignore[union-attr]
            guard.guard_all(main)  # twice: no double wrapping (one check per call)
            assert getattr(main.tools[0].on_invoke_tool, "__outrider_guard__", None) is guard  # type: ignore[union-attr]

            hosted = Agent(name="web", tools=[function_tool(noop), WebSearchTool()])
            with pytest.raises(ValueError, match="web: web_search"):
                guard.guard_all(hosted)
            assert hosted.tools[0].needs_approval is False  # type: ignore[union-attr]  # nothing half-guarded

            with pytest.raises(ValueError, match="own needs_approval"):
                guard.tool(function_tool(noop, needs_approval=True))

    anyio.run(go)
