"""LangChain v1 `create_agent` with OutriderMiddleware, a deterministic model (no network, no API key) and a
live sidecar: allow, block (the model's next input holds the reason), approve-then-resume, edit, reject."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from outrider import Client
from outrider.integrations.langchain import OutriderMiddleware, resume_value
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar
from .rpc import guardrail, struct

AGENT = "lc-agent"
RAN: list[dict[str, Any]] = []


@tool
def deploy(env: str, version: str) -> str:
    """Deploy a version to an environment."""
    RAN.append({"env": env, "version": version})
    return f"deployed {version} to {env}"


class ScriptedModel(GenericFakeChatModel):
    """Answers from a script and records every input it was given (what the model 'read')."""

    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Sequence[Any], **kw: Any) -> ScriptedModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kw)


def model(call_id: str, args: dict[str, Any]) -> ScriptedModel:
    script = [
        AIMessage(content="", tool_calls=[{"name": "deploy", "args": args, "id": call_id, "type": "tool_call"}]),
        AIMessage(content="done"),
    ]
    return ScriptedModel(messages=iter(script), seen=[])


@pytest.fixture
def client(sidecar: RunningSidecar) -> Iterator[Client]:
    RAN.clear()
    with Client(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, AGENT)) as c:
        yield c


def tool_messages(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def test_allowed_tool_runs(client: Client) -> None:
    agent = create_agent(
        model("c1", {"env": "dev", "version": "1"}), [deploy], middleware=[OutriderMiddleware(client, AGENT)]
    )
    out = agent.invoke({"messages": [("user", "deploy 1 to dev")]})
    assert RAN == [{"env": "dev", "version": "1"}]
    assert tool_messages(out["messages"])[0].content == "deployed 1 to dev"


def test_blocked_tool_reason_reaches_the_model(sidecar: RunningSidecar, client: Client) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-deploy", "action_list", deny=["deploy"]))
    m = model("c2", {"env": "prod", "version": "2"})
    agent = create_agent(m, [deploy], middleware=[OutriderMiddleware(client, AGENT)])
    out = agent.invoke({"messages": [("user", "deploy")]})
    assert RAN == []
    (msg,) = tool_messages(out["messages"])
    assert msg.status == "error" and "Blocked by Outrider (no-deploy)" in str(msg.content)
    assert any("no-deploy" in str(x.content) for x in m.seen[-1] if isinstance(x, ToolMessage))


def run_paused(sidecar: RunningSidecar, client: Client, call_id: str, decide: dict[str, Any]) -> list[BaseMessage]:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    agent = create_agent(
        model(call_id, {"env": "prod", "version": "3"}),
        [deploy],
        middleware=[OutriderMiddleware(client, AGENT)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": call_id}}
    first = agent.invoke({"messages": [("user", "deploy 3")]}, config)
    (paused,) = first["__interrupt__"]
    payload = paused.value["outrider"]
    assert payload["request_id"] == call_id and payload["approval_id"].startswith("apr_")
    assert RAN == []
    threading.Timer(
        0.2,
        lambda: sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=payload["approval_id"], **decide)),
    ).start()
    resumed = agent.invoke(Command(resume=resume_value(client, paused.value, timeout=30)), config)
    approvals = sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals
    assert len(approvals) == 1  # the node re-ran from its start and re-attached, never asking twice
    return list(resumed["messages"])


def test_approve_then_resume(sidecar: RunningSidecar, client: Client) -> None:
    messages = run_paused(sidecar, client, "c3", {"approve": True})
    assert RAN == [{"env": "prod", "version": "3"}]
    assert tool_messages(messages)[0].content == "deployed 3 to prod"


def test_edited_arguments_run(sidecar: RunningSidecar, client: Client) -> None:
    run_paused(sidecar, client, "c4", {"approve": True, "edited_context": struct({"env": "staging", "version": "3"})})
    assert RAN == [{"env": "staging", "version": "3"}]


def test_rejection_comment_is_the_tool_message(sidecar: RunningSidecar, client: Client) -> None:
    messages = run_paused(sidecar, client, "c5", {"approve": False, "comment": "freeze until Monday"})
    assert RAN == []
    (msg,) = tool_messages(messages)
    assert msg.status == "error" and "freeze until Monday" in str(msg.content)
