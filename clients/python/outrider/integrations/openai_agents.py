"""OpenAI Agents SDK: every function tool of an agent checked once per call by Outrider, paused for a person
when a hitl guardrail asks, and run with the arguments the reviewer approved.

    from agents import Agent, Runner
    from outrider import AsyncClient
    from outrider.integrations.openai_agents import OutriderGuard

    guard = OutriderGuard(AsyncClient(), "support-bot")
    agent = guard.guard_all(Agent(name="ops", tools=[deploy, ...]))   # every tool, handoff agents' too
    result = await Runner.run(agent, "deploy 3 to prod")
    while result.interruptions:                         # a person must decide
        result = await Runner.run(agent, await guard.resolve(result))

`guard_all(agent)` (or `guard.tool(function_tool)` for one tool) installs two hooks on each tool that share
one CheckAction per call (the tool-call id is the request id): the tool's `needs_approval` asks the sidecar
and pauses the run only when a person must decide; the tool's invoker runs the tool with the checked
arguments (an approver's edit replaces the model's) or answers the model with the reason it was blocked.
`resolve` waits for each pending approval and calls `RunState.approve` or `reject(rejection_message=the
reviewer's comment)`; the approved call then runs with the approved (possibly edited) arguments, without
asking again. A tool the guard cannot wrap (a hosted tool, an MCP server's) makes `guard_all` refuse the
agent rather than leave it unchecked: put MCP servers behind `outrider mcp-gateway`.

The earlier, hook-by-hook set-up (`needs_approval=guard.needs_approval(name)` and
`tool_input_guardrails=[guard.input_guardrail]`) still works and also checks once per call, but an input
guardrail cannot change arguments: an edited approval is answered with a refusal naming the approved
arguments for the model to call with.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)
from agents.tool_context import ToolContext

from outrider import AsyncClient

from ._guard import AsyncToolGuard, ToolDecision, normalize

_KEPT = 1024


def _args_key(tool: str, arguments: Any) -> str:
    return json.dumps([tool, normalize(arguments)], sort_keys=True, default=str)


def _parse(arguments: str | None) -> dict[str, Any]:
    parsed = json.loads(arguments or "{}")
    return parsed if isinstance(parsed, dict) else {}


class OutriderGuard:
    def __init__(self, client: AsyncClient, agent_id: str, *, action: Any = None) -> None:
        self.guard = AsyncToolGuard(client, agent_id, action=action)
        self._approvals: OrderedDict[str, str] = OrderedDict()  # call id -> its pending approval (bounded)
        # The decision of a call checked by one hook and not yet used by the next (call id -> (tool and
        # arguments, decision)); the next hook takes it instead of checking again: one check, one decision
        # row and one rate-limit count per tool call. Bounded; an entry is used once.
        self._decided: OrderedDict[str, tuple[str, ToolDecision]] = OrderedDict()
        self.input_guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._check_input, name="outrider"
        )

    # --- one check per call ---------------------------------------------------------------------------

    def _keep(self, call_id: str, tool: str, arguments: Any, decision: ToolDecision) -> None:
        self._decided[call_id] = (_args_key(tool, arguments), decision)
        while len(self._decided) > _KEPT:
            self._decided.popitem(last=False)

    def _take(self, call_id: str, tool: str, arguments: Any) -> ToolDecision | None:
        kept = self._decided.pop(call_id, None)
        if kept is None or kept[0] != _args_key(tool, arguments):
            return None  # another call reusing the id, or different arguments: check again
        return kept[1]

    async def _decide(self, tool: str, arguments: dict[str, Any], call_id: str) -> ToolDecision:
        return self._take(call_id, tool, arguments) or await self.guard.check(tool, arguments, call_id)

    # --- hooks ----------------------------------------------------------------------------------------

    def needs_approval(self, tool: str) -> Any:
        """The `needs_approval` callable for the tool named `tool`: True when a person must decide."""

        async def policy(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
            decision = await self.guard.check(tool, params, call_id)
            if decision.pending:
                self._approvals[call_id] = decision.approval_id
                while len(self._approvals) > _KEPT:
                    self._approvals.popitem(last=False)
            else:
                self._keep(call_id, tool, params, decision)
            return decision.pending

        return policy

    def approval_id(self, call_id: str) -> str:
        """The approval request a paused call (an interruption's call id) waits for; "" when not known here."""
        return self._approvals.get(call_id, "")

    async def _check_input(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        c = data.context
        decision = await self._decide(c.tool_name, _parse(c.tool_arguments), c.tool_call_id)
        return self._output(decision)

    def _output(self, decision: ToolDecision) -> ToolGuardrailFunctionOutput:
        if decision.allowed and not decision.edited:
            return ToolGuardrailFunctionOutput.allow(decision.meta())
        if decision.allowed:
            edited = json.dumps(decision.arguments, sort_keys=True)
            return ToolGuardrailFunctionOutput.reject_content(
                f"A reviewer approved this call with changed arguments: call the tool again with {edited}",
                decision.meta(),
            )
        return ToolGuardrailFunctionOutput.reject_content(decision.message(), decision.meta())

    def _invoker(self, tool: str, invoke: Callable[[ToolContext[Any], str], Awaitable[Any]]) -> Any:
        async def guarded(ctx: ToolContext[Any], arguments: str) -> Any:
            decision = await self._decide(tool, _parse(arguments), ctx.tool_call_id)
            if not decision.allowed:
                return decision.message()
            return await invoke(ctx, json.dumps(decision.arguments))

        guarded.__outrider_guard__ = self  # type: ignore[attr-defined]
        return guarded

    # --- set-up ---------------------------------------------------------------------------------------

    def tool(self, function_tool: FunctionTool) -> FunctionTool:
        """Guards one function tool in place (its `needs_approval` and its invoker); returns it."""
        if getattr(function_tool.on_invoke_tool, "__outrider_guard__", None) is self:
            return function_tool
        if function_tool.needs_approval is not False:
            raise ValueError(
                f"tool {function_tool.name!r} has its own needs_approval: with Outrider a hitl guardrail decides "
                "who must approve; remove it from the tool"
            )
        function_tool.needs_approval = self.needs_approval(function_tool.name)
        function_tool.on_invoke_tool = self._invoker(function_tool.name, function_tool.on_invoke_tool)
        if function_tool.tool_input_guardrails:  # the invoker checks; this guardrail would check a second time
            function_tool.tool_input_guardrails = [
                g for g in function_tool.tool_input_guardrails if g is not self.input_guardrail
            ]
        return function_tool

    def guard_all(self, agent: Agent[Any]) -> Agent[Any]:
        """Guards every function tool of `agent` and of the agents it hands off to; returns `agent`.

        Refuses (ValueError, naming them) tools it cannot check, hosted tools and MCP servers among them,
        before changing anything: no tool is left unguarded by accident."""
        agents = _reachable(agent)
        unguardable = [
            f"{a.name}: {getattr(t, 'name', type(t).__name__)}"
            for a in agents
            for t in a.tools
            if not isinstance(t, FunctionTool)
        ] + [f"{a.name}: MCP server {getattr(s, 'name', s)!r}" for a in agents for s in a.mcp_servers]
        if unguardable:
            raise ValueError(
                "OutriderGuard cannot check these tools (put MCP servers behind `outrider mcp-gateway`): "
                + ", ".join(unguardable)
            )
        for a in agents:
            for t in a.tools:
                assert isinstance(t, FunctionTool)
                self.tool(t)
        return agent

    async def resolve(self, result: Any, timeout: float | None = None) -> Any:
        """The run's state with every pending approval decided by Outrider; run it again to continue."""
        state = result.to_state()
        for item in result.interruptions:
            raw = item.raw_item
            call_id = str(getattr(raw, "call_id", None) or raw.get("call_id"))
            arguments = _parse(getattr(raw, "arguments", None) or raw.get("arguments"))
            tool = str(item.tool_name)
            decision = await self.guard.wait(tool, arguments, call_id, timeout)
            if decision.allowed:
                self._keep(call_id, tool, arguments, decision)  # the resumed run uses it: no second check
                state.approve(item)
            else:
                state.reject(item, rejection_message=decision.message())
        return state


def _reachable(agent: Agent[Any]) -> list[Agent[Any]]:
    """`agent` and every agent reachable through its handoffs (Agent objects; a `Handoff` hides its agent)."""
    seen: dict[int, Agent[Any]] = {}
    todo = [agent]
    while todo:
        a = todo.pop()
        if id(a) in seen:
            continue
        seen[id(a)] = a
        todo.extend(h for h in a.handoffs if isinstance(h, Agent))
    return list(seen.values())


__all__ = ["OutriderGuard"]
