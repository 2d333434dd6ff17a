"""LangChain v1 / LangGraph: an `AgentMiddleware` whose `wrap_tool_call` asks Outrider before each tool runs.

    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
    from outrider import Client
    from outrider.integrations.langchain import OutriderMiddleware, resume_value

    agent = create_agent(model, tools, middleware=[OutriderMiddleware(Client(), "support-bot")],
                         checkpointer=InMemorySaver())

Allowed: the tool runs (with an approver's edited arguments). Blocked or rejected: a `ToolMessage` with
status "error" carrying the reason or the reviewer's comment, which the model reads. Pending: the run pauses
with `interrupt({"outrider": {...approval...}})`; resume it with `Command(resume=resume_value(client, ...))`
once decided. LangGraph re-runs the tool node from its start on resume; the tool-call id is the request id,
so the check re-attaches to the same approval instead of asking twice. `wait=SECONDS` waits inline instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.types import interrupt

from outrider import Client

from ._guard import ToolDecision, ToolGuard


class OutriderMiddleware(AgentMiddleware):
    def __init__(
        self,
        client: Client,
        agent_id: str,
        *,
        wait: float | None = None,
        action: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__()
        self.guard = ToolGuard(client, agent_id, action=action)
        self.wait = wait

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        call = request.tool_call
        name, args, call_id = call["name"], dict(call.get("args") or {}), str(call.get("id") or "")
        decision = self.guard.check(name, args, call_id, wait=self.wait or 0.0)
        if decision.pending and self.wait is None:
            interrupt({"outrider": pause_payload(decision, name, args)})
            # Resumed: the sidecar's decision is the truth, whatever value the resume carried.
            decision = self.guard.wait(name, args, call_id)
        if decision.allowed:
            return handler(request.override(tool_call={**call, "args": decision.arguments}))
        return ToolMessage(content=decision.message(), tool_call_id=call_id, name=name, status="error")


def pause_payload(decision: ToolDecision, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "approval_id": decision.approval_id,
        "request_id": decision.request_id,
        "tool": tool,
        "args": args,
        "reason": decision.reason,
    }


def resume_value(client: Client, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """Waits until the approval in an interrupt's payload is decided; returns the value to resume with."""
    from outrider.v1 import supervisor_pb2, supervisor_service_pb2

    info = payload.get("outrider", payload)
    request = supervisor_service_pb2.WatchApprovalRequest(approval_id=info["approval_id"])
    for update in client.watch(client.supervisor.WatchApproval, request, timeout=timeout):
        state = update.approval.state
        if state != supervisor_pb2.APPROVAL_STATE_PENDING:
            return {"approval_id": info["approval_id"], "state": supervisor_pb2.ApprovalState.Name(state)}
    raise TimeoutError(f"approval {info['approval_id']} was not decided")


__all__ = ["OutriderMiddleware", "resume_value"]
