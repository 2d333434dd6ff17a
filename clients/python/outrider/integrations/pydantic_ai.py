"""Pydantic AI: a capability whose `before_tool_execute` asks Outrider before each tool runs, and a deferred-tool
handler that answers the paused calls from Outrider's decision.

    from pydantic_ai import Agent, DeferredToolRequests
    from outrider import AsyncClient
    from outrider.integrations.pydantic_ai import OutriderCapability, resolve

    client = AsyncClient()
    agent = Agent(model, tools=[deploy], output_type=[str, DeferredToolRequests],
                  capabilities=[OutriderCapability(client, "support-bot")])
    result = await agent.run("deploy 3 to prod")
    if isinstance(result.output, DeferredToolRequests):          # a person must decide
        results = await resolve(client, result.output)           # waits (WatchApproval)
        result = await agent.run(message_history=result.all_messages(), deferred_tool_results=results)

Allowed: the tool runs (with an approver's edited arguments). Blocked: the tool is skipped
(`SkipToolExecution`) and its result is Outrider's reason, which the model reads. Pending: `ApprovalRequired`
with `{"outrider": {approval_id, request_id, tool, args, reason}}` as the call's metadata, so the run ends
with `DeferredToolRequests`; `resolve` waits for each decision and answers `ToolApproved(override_args=the
edit)` or `ToolDenied(the reviewer's comment)`. `HandleDeferredToolCalls(handler=approval_handler(client))`
does the same inline, without ending the run. The tool-call id is the request id: when the approved call
finally runs, the hook asks again with the model's original arguments, re-attaches to the same approval and
runs what the sidecar granted (never the resume's word alone). `wait=SECONDS` waits inline instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic_ai import (
    ApprovalRequired,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolApproved,
    ToolDenied,
)
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import SkipToolExecution
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import ToolDefinition

from outrider import AsyncClient

from ._guard import AsyncToolGuard, ToolDecision, normalize

KEY = "outrider"  # the key of Outrider's entry in a deferred call's metadata


class OutriderCapability(AbstractCapability[Any]):
    """Checks every tool call of the agent it is given to, as `agent_id`."""

    def __init__(
        self,
        client: AsyncClient,
        agent_id: str,
        *,
        wait: float | None = None,
        action: Callable[[str], str] | None = None,
    ) -> None:
        self.guard = AsyncToolGuard(client, agent_id, action=action)
        self.wait = wait

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a live client: not built from a spec

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        name, call_id = call.tool_name, call.tool_call_id
        paused = _paused(ctx.tool_call_metadata) if ctx.tool_call_approved else None
        if paused is not None and paused.get("request_id") == call_id:
            # Resumed after a decision: `args` may be the approver's edit, so re-attach with the arguments
            # the approval was asked for; the sidecar's answer (and its arguments) is what runs.
            decision = await self.guard.check(name, paused.get("args") or {}, call_id)
        else:
            decision = await self.guard.check(name, args, call_id, wait=self.wait or 0.0)
        if decision.allowed:
            return decision.arguments
        if decision.pending and self.wait is None:
            raise ApprovalRequired(metadata={KEY: pause_payload(decision, name, args)})
        raise SkipToolExecution(decision.message())


def pause_payload(decision: ToolDecision, tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "approval_id": decision.approval_id,
        "request_id": decision.request_id,
        "tool": tool,
        "args": normalize(dict(args)),
        "reason": decision.reason,
    }


def _paused(metadata: Any) -> dict[str, Any] | None:
    info = metadata.get(KEY) if isinstance(metadata, Mapping) else None
    return dict(info) if isinstance(info, Mapping) and info.get("approval_id") else None


async def decide(client: AsyncClient, approval_id: str, timeout: float | None = None) -> ToolApproved | ToolDenied:
    """Waits (WatchApproval) until the approval is decided; the answer for its paused tool call."""
    from outrider.v1 import supervisor_pb2, supervisor_service_pb2

    request = supervisor_service_pb2.WatchApprovalRequest(approval_id=approval_id)
    async for update in client.watch(client.supervisor.WatchApproval, request, timeout=timeout):
        a = update.approval
        if a.state == supervisor_pb2.APPROVAL_STATE_PENDING:
            continue
        if a.state == supervisor_pb2.APPROVAL_STATE_APPROVED:
            edited = _struct(a.edited_context) if a.HasField("edited_context") else None
            return ToolApproved(override_args=edited)
        if a.state == supervisor_pb2.APPROVAL_STATE_REJECTED:
            return ToolDenied(f"Rejected by {a.decided_by}: {a.comment}")
        if a.state == supervisor_pb2.APPROVAL_STATE_EXPIRED:
            return ToolDenied("approval timed out")
        return ToolDenied(f"Approval cancelled by {a.decided_by}: {a.comment}")
    raise TimeoutError(f"approval {approval_id} was not decided")


def _struct(value: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    out = normalize(MessageToDict(value))
    return out if isinstance(out, dict) else {}


async def resolve(
    client: AsyncClient, requests: DeferredToolRequests, timeout: float | None = None
) -> DeferredToolResults:
    """The results for every call Outrider paused in `requests`, once each is decided; pass them to the next
    run as `deferred_tool_results` (with the previous run's messages). Calls paused by anything else are
    left out, for the caller to answer."""
    approvals: dict[str, ToolApproved | ToolDenied] = {}
    metadata: dict[str, dict[str, Any]] = {}
    for call in requests.approvals:
        paused = _paused(requests.metadata.get(call.tool_call_id))
        if paused is None:
            continue
        approvals[call.tool_call_id] = await decide(client, str(paused["approval_id"]), timeout)
        metadata[call.tool_call_id] = {KEY: paused}  # so the resumed hook re-attaches to the same approval
    return DeferredToolResults(approvals=dict(approvals), metadata=metadata)


def approval_handler(
    client: AsyncClient, timeout: float | None = None
) -> Callable[[RunContext[Any], DeferredToolRequests], Any]:
    """A handler for `HandleDeferredToolCalls`: waits for Outrider's decisions inside the run."""

    async def handle(ctx: RunContext[Any], requests: DeferredToolRequests) -> DeferredToolResults | None:
        results = await resolve(client, requests, timeout)
        return results if results.approvals else None

    return handle


__all__ = ["OutriderCapability", "approval_handler", "decide", "resolve"]
