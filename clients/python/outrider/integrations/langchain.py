"""LangChain v1 / LangGraph: an `AgentMiddleware` that asks Outrider before each tool runs, sync and async.

    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
    from outrider import Client
    from outrider.integrations.langchain import OutriderMiddleware, resume_value

    agent = create_agent(model, tools, middleware=[OutriderMiddleware(Client(), "support-bot")],
                         checkpointer=InMemorySaver())

`agent.invoke` and `agent.ainvoke` are both guarded (`wrap_tool_call` and `awrap_tool_call`). With a `Client`
the async hook runs the check on a worker thread; with an `AsyncClient` it awaits it (and `invoke` is refused:
a grpc.aio channel belongs to its event loop). A custom `StateGraph` guards its tools with
`OutriderMiddleware(...).tool_node(tools)`, a LangGraph `ToolNode` wrapped by the same hooks.

Allowed: the tool runs (with an approver's edited arguments). Blocked or rejected: a `ToolMessage` with
status "error" carrying the reason or the reviewer's comment, which the model reads. Pending: the run pauses
with `interrupt({"outrider": {...approval...}})`; resume it with `Command(resume=resume_value(client, ...))`
(or `await aresume_value(...)`) once decided. LangGraph re-runs the tool node from its start on resume; the
tool-call id is the request id, so the check re-attaches to the same approval instead of asking twice, and
the sidecar's answer (approved, edited or rejected) decides what runs, whatever value the resume carried.
`wait=SECONDS` waits inline for the reviewer instead of pausing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

from outrider import AsyncClient, Client

from ._guard import AsyncToolGuard, ToolDecision, ToolGuard


class OutriderMiddleware(AgentMiddleware):
    """Checks every tool call of a LangChain agent (or a `ToolNode`) with the sidecar, for one agent id."""

    def __init__(
        self,
        client: Client | AsyncClient,
        agent_id: str,
        *,
        wait: float | None = None,
        action: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__()
        self.agent_id = agent_id
        self.wait = wait
        self.guard: ToolGuard | None = (
            ToolGuard(client, agent_id, action=action) if isinstance(client, Client) else None
        )
        self.aguard: AsyncToolGuard | None = (
            AsyncToolGuard(client, agent_id, action=action) if isinstance(client, AsyncClient) else None
        )
        if self.guard is None and self.aguard is None:
            raise TypeError(f"OutriderMiddleware needs an outrider Client or AsyncClient, not {type(client).__name__}")

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if self.guard is None:
            raise TypeError(
                "OutriderMiddleware was given an AsyncClient: run the agent with ainvoke/astream, "
                "or pass a Client to use invoke"
            )
        name, args, call_id = _call(request)
        decision = self.guard.check(name, args, call_id, wait=self.wait or 0.0)
        if decision.pending and self.wait is None:
            interrupt({"outrider": pause_payload(decision, name, args)})
            # Resumed before the reviewer decided: the sidecar's decision is the truth, whatever the resume carried.
            decision = self.guard.wait(name, args, call_id)
        if decision.allowed:
            return handler(_with_args(request, decision))
        return _refusal(decision, name, call_id)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        name, args, call_id = _call(request)
        decision = await self._acheck(name, args, call_id)
        if decision.pending and self.wait is None:
            interrupt({"outrider": pause_payload(decision, name, args)})
            decision = await self._await(name, args, call_id)
        if decision.allowed:
            return await handler(_with_args(request, decision))
        return _refusal(decision, name, call_id)

    async def _acheck(self, name: str, args: dict[str, Any], call_id: str) -> ToolDecision:
        if self.aguard is not None:
            return await self.aguard.check(name, args, call_id, wait=self.wait or 0.0)
        assert self.guard is not None
        return await asyncio.to_thread(self.guard.check, name, args, call_id, wait=self.wait or 0.0)

    async def _await(self, name: str, args: dict[str, Any], call_id: str) -> ToolDecision:
        if self.aguard is not None:
            return await self.aguard.wait(name, args, call_id)
        assert self.guard is not None
        return await asyncio.to_thread(self.guard.wait, name, args, call_id)

    def tool_node(self, tools: Sequence[Any], **kw: Any) -> ToolNode:
        """A LangGraph `ToolNode` for a custom `StateGraph` whose every tool call goes through these hooks
        (sync and async); `kw` goes to `ToolNode` (name, handle_tool_errors, ...)."""
        return ToolNode(tools, wrap_tool_call=self.wrap_tool_call, awrap_tool_call=self.awrap_tool_call, **kw)


def _call(request: Any) -> tuple[str, dict[str, Any], str]:
    call = request.tool_call
    return call["name"], dict(call.get("args") or {}), str(call.get("id") or "")


def _with_args(request: Any, decision: ToolDecision) -> Any:
    return request.override(tool_call={**request.tool_call, "args": decision.arguments})


def _refusal(decision: ToolDecision, name: str, call_id: str) -> ToolMessage:
    return ToolMessage(content=decision.message(), tool_call_id=call_id, name=name, status="error")


def pause_payload(decision: ToolDecision, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "approval_id": decision.approval_id,
        "request_id": decision.request_id,
        "tool": tool,
        "args": args,
        "reason": decision.reason,
    }


def _decided(approval_id: str, state: int) -> dict[str, Any] | None:
    from outrider.v1 import supervisor_pb2

    if state == supervisor_pb2.APPROVAL_STATE_PENDING:
        return None
    return {"approval_id": approval_id, "state": supervisor_pb2.ApprovalState.Name(state)}


def _watch_request(payload: dict[str, Any]) -> tuple[str, Any]:
    from outrider.v1 import supervisor_service_pb2

    approval_id = str(payload.get("outrider", payload)["approval_id"])
    return approval_id, supervisor_service_pb2.WatchApprovalRequest(approval_id=approval_id)


def resume_value(client: Client, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """Waits until the approval in an interrupt's payload is decided; returns the value to resume with."""
    approval_id, request = _watch_request(payload)
    for update in client.watch(client.supervisor.WatchApproval, request, timeout=timeout):
        if (value := _decided(approval_id, update.approval.state)) is not None:
            return value
    raise TimeoutError(f"approval {approval_id} was not decided")


async def aresume_value(client: AsyncClient, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """`resume_value` for asyncio, over an `AsyncClient`."""
    approval_id, request = _watch_request(payload)
    async for update in client.watch(client.supervisor.WatchApproval, request, timeout=timeout):
        if (value := _decided(approval_id, update.approval.state)) is not None:
            return value
    raise TimeoutError(f"approval {approval_id} was not decided")


__all__ = ["OutriderMiddleware", "aresume_value", "pause_payload", "resume_value"]
