"""LangChain v1 `create_agent` (and a custom StateGraph with `tool_node`) with OutriderMiddleware, a deterministic
model (no network, no API key) and a live sidecar, sync and async: allow, block (the model's next input holds
the reason), approve-then-resume, edit, reject, one decision per check."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import anyio
import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from outrider import AsyncClient, Client
from outrider.integrations.langchain import OutriderMiddleware, aresume_value, resume_value
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
    # The reviewer decides while the agent waits; joined before the test ends, since the agent can see the
    # decision before DecideApproval's own answer is back (a sidecar stopped then cancels that answer).
    reviewer = threading.Timer(
        0.2,
        lambda: sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=payload["approval_id"], **decide)),
    )
    reviewer.start()
    resumed = agent.invoke(Command(resume=resume_value(client, paused.value, timeout=30)), config)
    reviewer.join(60)
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


# --- async (`ainvoke`), a custom StateGraph with `tool_node`, and one decision per check -------------------
#
# Each case runs in three ways: a `Client` with `invoke` ("sync"), an `AsyncClient` with `ainvoke` ("async"),
# and a `Client` with `ainvoke` (the check on a worker thread: "thread").

MODES = ["sync", "async", "thread"]


def agent_graph(mw: OutriderMiddleware, m: ScriptedModel) -> Any:
    return create_agent(m, [deploy], middleware=[mw], checkpointer=InMemorySaver())


def custom_graph(mw: OutriderMiddleware, m: ScriptedModel) -> Any:
    """A hand-built StateGraph: a model node and Outrider's ToolNode."""
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import tools_condition

    g = StateGraph(MessagesState)
    g.add_node("model", lambda s: {"messages": [m.invoke(s["messages"])]})
    g.add_node("tools", mw.tool_node([deploy]))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", tools_condition)
    g.add_edge("tools", "model")
    return g.compile(checkpointer=InMemorySaver())


def drive(
    sidecar: RunningSidecar,
    mode: str,
    build: Any,
    call_id: str,
    args: dict[str, Any],
    decide: dict[str, Any] | None = None,
) -> tuple[list[BaseMessage], ScriptedModel]:
    """Runs the graph once; when it pauses, a reviewer decides (`decide`) and the run resumes."""
    RAN.clear()
    token = sidecar.issue(PrincipalKind.AGENT, AGENT)
    m = model(call_id, args)
    config: Any = {"configurable": {"thread_id": call_id}}
    start = {"messages": [("user", "deploy")]}

    def reviewer(out: dict[str, Any]) -> dict[str, Any]:
        assert decide is not None, f"unexpected pause: {out.get('__interrupt__')}"
        (paused,) = out["__interrupt__"]
        payload = paused.value["outrider"]
        assert payload["request_id"] == call_id and RAN == []
        sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=payload["approval_id"], **decide))
        return dict(paused.value)

    if mode == "sync":
        with Client(sidecar.sidecar.target, token) as c:
            graph = build(OutriderMiddleware(c, AGENT), m)
            out = graph.invoke(start, config)
            if "__interrupt__" in out:
                out = graph.invoke(Command(resume=resume_value(c, reviewer(out), timeout=30)), config)
        return list(out["messages"]), m

    async def go() -> dict[str, Any]:
        if mode == "async":
            async with AsyncClient(sidecar.sidecar.target, token) as ac:
                graph = build(OutriderMiddleware(ac, AGENT), m)
                out = await graph.ainvoke(start, config)
                if "__interrupt__" in out:
                    value = await aresume_value(ac, reviewer(out), timeout=30)
                    out = await graph.ainvoke(Command(resume=value), config)
                return dict(out)
        with Client(sidecar.sidecar.target, token) as c:
            graph = build(OutriderMiddleware(c, AGENT), m)
            out = await graph.ainvoke(start, config)
            if "__interrupt__" in out:
                out = await graph.ainvoke(Command(resume=resume_value(c, reviewer(out), timeout=30)), config)
            return dict(out)

    return list(anyio.run(go)["messages"]), m


def decisions(sidecar: RunningSidecar, call_id: str) -> list[Any]:
    assert sidecar.services.decisions.flush(10)
    rows = sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id=AGENT)).decisions
    return [d for d in rows if d.request_id == call_id]


@pytest.mark.parametrize("build", [agent_graph, custom_graph], ids=["create_agent", "tool_node"])
@pytest.mark.parametrize("mode", MODES)
def test_allowed_runs_with_one_decision(sidecar: RunningSidecar, mode: str, build: Any) -> None:
    messages, _ = drive(sidecar, mode, build, f"ok-{mode}", {"env": "dev", "version": "1"})
    assert RAN == [{"env": "dev", "version": "1"}]
    assert tool_messages(messages)[0].content == "deployed 1 to dev"
    (row,) = decisions(sidecar, f"ok-{mode}")
    assert row.allowed


@pytest.mark.parametrize("build", [agent_graph, custom_graph], ids=["create_agent", "tool_node"])
@pytest.mark.parametrize("mode", MODES)
def test_blocked_reason_reaches_the_model_in_every_mode(sidecar: RunningSidecar, mode: str, build: Any) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-deploy", "action_list", deny=["deploy"]))
    messages, m = drive(sidecar, mode, build, f"no-{mode}", {"env": "prod", "version": "2"})
    assert RAN == []
    (msg,) = tool_messages(messages)
    assert msg.status == "error" and "Blocked by Outrider (no-deploy)" in str(msg.content)
    assert any("no-deploy" in str(x.content) for x in m.seen[-1] if isinstance(x, ToolMessage))
    (row,) = decisions(sidecar, f"no-{mode}")
    assert not row.allowed and row.guardrail == "no-deploy"


@pytest.mark.parametrize("build", [agent_graph, custom_graph], ids=["create_agent", "tool_node"])
@pytest.mark.parametrize("mode", MODES)
def test_pause_then_resume_with_edited_arguments(sidecar: RunningSidecar, mode: str, build: Any) -> None:
    sidecar.stub.AddGuardrail(guardrail("review", "hitl", patterns=["deploy"]))
    call_id = f"ed-{mode}"
    edit = {"approve": True, "edited_context": struct({"env": "staging", "version": "3"})}
    messages, _ = drive(sidecar, mode, build, call_id, {"env": "prod", "version": "3"}, edit)
    assert RAN == [{"env": "staging", "version": "3"}]  # what the reviewer approved, not what the model asked
    assert tool_messages(messages)[0].content == "deployed 3 to staging"
    assert len(sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals) == 1
    # One decision per check: the pause's (pending), then the verdict once decided; never a repeat.
    rows = decisions(sidecar, call_id)
    assert [r.allowed for r in reversed(rows)] == [False, True]


@pytest.mark.parametrize("mode", MODES)
def test_pause_then_rejection_in_every_mode(sidecar: RunningSidecar, mode: str) -> None:
    sidecar.stub.AddGuardrail(guardrail("review", "hitl", patterns=["deploy"]))
    decide = {"approve": False, "comment": "freeze until Monday"}
    messages, _ = drive(sidecar, mode, agent_graph, f"rj-{mode}", {"env": "prod", "version": "3"}, decide)
    assert RAN == []
    (msg,) = tool_messages(messages)
    assert msg.status == "error" and "freeze until Monday" in str(msg.content)


def test_an_async_client_refuses_invoke_with_a_clear_error(sidecar: RunningSidecar) -> None:
    async def go() -> None:
        async with AsyncClient(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, AGENT)) as ac:
            agent = agent_graph(OutriderMiddleware(ac, AGENT), model("sy-1", {"env": "dev", "version": "1"}))
            with pytest.raises(TypeError, match="ainvoke"):
                agent.invoke({"messages": [("user", "deploy")]}, {"configurable": {"thread_id": "sy-1"}})

    anyio.run(go)
    assert RAN == []


def test_wait_inline_in_ainvoke_runs_the_approved_edit_without_pausing(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("review", "hitl", patterns=["deploy"]))
    RAN.clear()

    def reviewer() -> None:
        (approval,) = wait_for_approvals(sidecar)
        sidecar.stub.DecideApproval(
            pb.DecideApprovalRequest(
                approval_id=approval.approval_id,
                approve=True,
                edited_context=struct({"env": "staging", "version": "4"}),
            )
        )

    async def go() -> dict[str, Any]:
        async with AsyncClient(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, AGENT)) as ac:
            agent = agent_graph(OutriderMiddleware(ac, AGENT, wait=60), model("wi-1", {"env": "prod", "version": "4"}))
            deciding = threading.Thread(target=reviewer)
            deciding.start()
            out = await agent.ainvoke({"messages": [("user", "deploy")]}, {"configurable": {"thread_id": "wi-1"}})
            deciding.join(30)
            return dict(out)

    out = anyio.run(go)
    assert "__interrupt__" not in out
    assert RAN == [{"env": "staging", "version": "4"}]


def wait_for_approvals(sidecar: RunningSidecar) -> list[Any]:
    """The agent's approval requests, once there is one (polled with a generous deadline)."""
    import time

    give_up = time.monotonic() + 30
    while time.monotonic() < give_up:
        approvals = list(sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals)
        if approvals:
            return approvals
        time.sleep(0.05)
    raise AssertionError("no approval was requested")
