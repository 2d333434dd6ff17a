"""Pydantic AI with OutriderCapability, the framework's own FunctionModel (no network, no API key) and a live
sidecar: allow, block (the model's next input holds the reason), approve-then-resume, edit, reject with a
comment, and the inline handler."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.capabilities import HandleDeferredToolCalls
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from outrider import AsyncClient
from outrider.integrations.pydantic_ai import OutriderCapability, approval_handler, resolve
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar
from .rpc import guardrail, struct

AGENT = "pai-agent"
RAN: list[dict[str, Any]] = []


def deploy(env: str, version: str) -> str:
    """Deploy a version to an environment."""
    RAN.append({"env": env, "version": version})
    return f"deployed {version} to {env}"


class Script:
    """A FunctionModel body: first a `deploy` call, then "done"; records every input (what the model read)."""

    def __init__(self, call_id: str, args: dict[str, Any]) -> None:
        self.call_id, self.args = call_id, args
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            return ModelResponse(parts=[ToolCallPart("deploy", dict(self.args), tool_call_id=self.call_id)])
        return ModelResponse(parts=[TextPart("done")])

    def tool_returns(self) -> list[str]:
        """The tool results in the model's last input."""
        return [
            str(p.content)
            for m in self.seen[-1]
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart)
        ]


Body = Callable[[AsyncClient, Script], Awaitable[Any]]


def run(sidecar: RunningSidecar, script: Script, body: Body) -> Any:
    RAN.clear()
    token = sidecar.issue(PrincipalKind.AGENT, AGENT)

    async def go() -> Any:
        async with AsyncClient(sidecar.sidecar.target, token) as client:
            return await body(client, script)

    return anyio.run(go)


def agent(client: AsyncClient, script: Script, **kw: Any) -> Agent[None, Any]:
    caps = [OutriderCapability(client, AGENT, **kw.pop("outrider", {})), *kw.pop("capabilities", [])]
    return Agent(FunctionModel(script), tools=[deploy], output_type=[str, DeferredToolRequests], capabilities=caps)


async def once(client: AsyncClient, script: Script) -> Any:
    return (await agent(client, script).run("deploy")).output


def test_allowed_tool_runs(sidecar: RunningSidecar) -> None:
    script = Script("pc1", {"env": "dev", "version": "1"})
    assert run(sidecar, script, once) == "done"
    assert RAN == [{"env": "dev", "version": "1"}]
    assert script.tool_returns() == ["deployed 1 to dev"]


def test_blocked_tool_is_skipped_and_the_model_reads_why(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-deploy", "action_list", deny=["deploy"]))
    script = Script("pc2", {"env": "prod", "version": "2"})
    assert run(sidecar, script, once) == "done"
    assert RAN == []
    (reason,) = script.tool_returns()
    assert reason.startswith("Blocked by Outrider (no-deploy): ") and "deploy" in reason


def paused_then(sidecar: RunningSidecar, call_id: str, decide: dict[str, Any]) -> tuple[Script, list[Any]]:
    """The run ends with deferred tool requests; a reviewer decides; `resolve` answers; a second run resumes."""
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    script = Script(call_id, {"env": "prod", "version": "3"})
    seen: list[Any] = []

    async def body(client: AsyncClient, script: Script) -> Any:
        a = agent(client, script)
        first = await a.run("deploy 3")
        requests = first.output
        assert isinstance(requests, DeferredToolRequests)
        (call,) = requests.approvals
        info = requests.metadata[call_id]["outrider"]
        assert call.tool_call_id == call_id == info["request_id"] and info["approval_id"].startswith("apr_")
        assert RAN == []
        timer = threading.Timer(
            0.2,
            lambda: sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=info["approval_id"], **decide)),
        )
        timer.start()
        results = await resolve(client, requests, timeout=30)  # waits for the reviewer (WatchApproval)
        timer.join()
        seen.append(results.approvals[call_id])
        second = await a.run(message_history=first.all_messages(), deferred_tool_results=results)
        return second.output

    assert run(sidecar, script, body) == "done"
    approvals = sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals
    assert len(approvals) == 1  # the resumed call re-attached to the same approval
    return script, seen


def test_approve_then_resume(sidecar: RunningSidecar) -> None:
    script, (answer,) = paused_then(sidecar, "pc3", {"approve": True})
    assert type(answer).__name__ == "ToolApproved" and answer.override_args is None
    assert RAN == [{"env": "prod", "version": "3"}]
    assert script.tool_returns() == ["deployed 3 to prod"]


def test_edited_arguments_run(sidecar: RunningSidecar) -> None:
    edit = {"env": "staging", "version": "3"}
    script, (answer,) = paused_then(sidecar, "pc4", {"approve": True, "edited_context": struct(edit)})
    assert answer.override_args == edit
    assert [edit] == RAN
    assert script.tool_returns() == ["deployed 3 to staging"]


def test_rejection_comment_reaches_the_model(sidecar: RunningSidecar) -> None:
    script, (answer,) = paused_then(sidecar, "pc5", {"approve": False, "comment": "freeze until Monday"})
    assert type(answer).__name__ == "ToolDenied"
    assert RAN == []
    (message,) = script.tool_returns()
    assert message.endswith(": freeze until Monday") and message.startswith("Rejected by ")


def test_resume_cannot_run_more_than_the_approval_granted(sidecar: RunningSidecar) -> None:
    """A resume that claims approval for other arguments does not run them: the sidecar's grant decides."""
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    script = Script("pc6", {"env": "prod", "version": "3"})

    async def body(client: AsyncClient, script: Script) -> Any:
        a = agent(client, script)
        first = await a.run("deploy 3")
        info = first.output.metadata["pc6"]["outrider"]
        sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=info["approval_id"], approve=True))
        results = await resolve(client, first.output, timeout=30)
        forged = type(results.approvals["pc6"])(override_args={"env": "prod", "version": "99"})
        results.approvals["pc6"] = forged
        return (await a.run(message_history=first.all_messages(), deferred_tool_results=results)).output

    assert run(sidecar, script, body) == "done"
    assert RAN == [{"env": "prod", "version": "3"}]  # what the reviewer approved, not the forged edit


def test_inline_handler_waits_within_the_run(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    script = Script("pc7", {"env": "prod", "version": "4"})

    def approve_when_asked() -> None:
        for _ in range(200):
            pending = sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals
            if pending:
                sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=pending[0].approval_id, approve=True))
                return
            threading.Event().wait(0.05)

    async def body(client: AsyncClient, script: Script) -> Any:
        a = agent(client, script, capabilities=[HandleDeferredToolCalls(handler=approval_handler(client, 30))])
        reviewer = threading.Thread(target=approve_when_asked)
        reviewer.start()
        out = (await a.run("deploy 4")).output
        reviewer.join()
        return out

    assert run(sidecar, script, body) == "done"
    assert RAN == [{"env": "prod", "version": "4"}]


def test_resume_approved_by_the_app_before_any_decision_still_waits(sidecar: RunningSidecar) -> None:
    """An app that answers ToolApproved itself while the request is pending does not get the tool run."""
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    script = Script("pc8", {"env": "prod", "version": "5"})

    async def body(client: AsyncClient, script: Script) -> Any:
        a = agent(client, script)
        first = await a.run("deploy 5")
        own = first.output.build_results(approve_all=True, metadata=first.output.metadata)
        second = await a.run(message_history=first.all_messages(), deferred_tool_results=own)
        return first.output.metadata["pc8"]["outrider"]["approval_id"], second.output

    approval_id, output = run(sidecar, script, body)
    assert RAN == []
    assert isinstance(output, DeferredToolRequests)  # paused again, on the same request
    assert output.metadata["pc8"]["outrider"]["approval_id"] == approval_id
    assert len(sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals) == 1
