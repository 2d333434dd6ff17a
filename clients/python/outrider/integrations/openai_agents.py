"""OpenAI Agents SDK: Outrider as `needs_approval`, a tool input guardrail, and a helper that resumes a paused run.

    from agents import Agent, Runner, function_tool
    from outrider import AsyncClient
    from outrider.integrations.openai_agents import OutriderGuard

    guard = OutriderGuard(AsyncClient(), "support-bot")
    deploy = function_tool(deploy_fn, needs_approval=guard.needs_approval("deploy"),
                           tool_input_guardrails=[guard.input_guardrail])
    result = await Runner.run(agent, "deploy 3 to prod")
    while result.interruptions:                         # a person must decide
        result = await Runner.run(agent, await guard.resolve(result))

`needs_approval` asks CheckAction without waiting (the tool-call id is the request id) and pauses the run
only when a person must decide; the input guardrail refuses a blocked call with the reason the model reads;
`resolve` waits for each pending approval and calls `RunState.approve` or `reject(rejection_message=the
reviewer's comment)`. The SDK offers no hook that replaces a tool's arguments, so an approval with edited
arguments is answered with a refusal that gives the model the approved arguments to call with.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from agents import RunContextWrapper, ToolGuardrailFunctionOutput, ToolInputGuardrail, ToolInputGuardrailData

from outrider import AsyncClient

from ._guard import AsyncToolGuard, ToolDecision

_KEPT = 1024


class OutriderGuard:
    def __init__(self, client: AsyncClient, agent_id: str, *, action: Any = None) -> None:
        self.guard = AsyncToolGuard(client, agent_id, action=action)
        self._approvals: OrderedDict[str, str] = OrderedDict()  # call id -> its pending approval (bounded)
        self.input_guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._check_input, name="outrider"
        )

    def needs_approval(self, tool: str) -> Any:
        """The `needs_approval` callable for the tool named `tool`: True when a person must decide."""

        async def policy(ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str) -> bool:
            decision = await self.guard.check(tool, params, call_id)
            if decision.pending:
                self._approvals[call_id] = decision.approval_id
                while len(self._approvals) > _KEPT:
                    self._approvals.popitem(last=False)
            return decision.pending

        return policy

    def approval_id(self, call_id: str) -> str:
        """The approval request a paused call (an interruption's call id) waits for; "" when not known here."""
        return self._approvals.get(call_id, "")

    async def _check_input(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        c = data.context
        args = json.loads(c.tool_arguments or "{}")
        decision = await self.guard.check(c.tool_name, args, c.tool_call_id)
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

    async def resolve(self, result: Any, timeout: float | None = None) -> Any:
        """The run's state with every pending approval decided by Outrider; run it again to continue."""
        state = result.to_state()
        for item in result.interruptions:
            raw = item.raw_item
            call_id = getattr(raw, "call_id", None) or raw.get("call_id")
            arguments = getattr(raw, "arguments", None) or raw.get("arguments") or "{}"
            decision = await self.guard.wait(str(item.tool_name), json.loads(arguments), str(call_id), timeout)
            if decision.allowed:
                state.approve(item)
            else:
                state.reject(item, rejection_message=decision.message())
        return state


__all__ = ["OutriderGuard"]
