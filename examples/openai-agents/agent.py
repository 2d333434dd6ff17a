"""An OpenAI Agents SDK agent whose tools are checked by Outrider: one call allowed, one blocked, one waiting
for a reviewer (the run pauses with an interruption), then resumed with the reviewer's decision.

OUTRIDER_TOKEN=otr_... python examples/openai-agents/agent.py

The model is scripted (the SDK's agents.testing.ScriptedModel) so the example runs without an API key; give
the `Agent` your own model instead. The sidecar's guardrails decide: `make run`'s demo policy
(outrider.example.yaml) denies `delete_note` (keep-notes) and asks a person before `deploy_production`
(release-review).
"""

from __future__ import annotations

from typing import Any

import anyio
from agents import Agent, Runner, function_tool
from agents.items import ToolCallItem, ToolCallOutputItem
from agents.testing.model import ScriptedModel, assistant_message, function_call

from outrider import AsyncClient
from outrider.integrations.openai_agents import OutriderGuard

PLAN = [("list_notes", {}), ("delete_note", {"title": "q3"}), ("deploy_production", {"version": "1.4"})]


def list_notes() -> str:
    """The notes' titles."""
    return "q3, retro"


def delete_note(title: str) -> str:
    """Delete a note."""
    return f"deleted {title}"


def deploy_production(version: str) -> str:
    """Deploy a version to production."""
    return f"deployed {version} to production"


def field(raw: Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)


def report(result: Any, names: dict[str, str], shown: set[str]) -> None:
    """Prints each tool's output once (what the model reads next)."""
    for item in result.new_items:
        if isinstance(item, ToolCallItem):
            names[str(field(item.raw_item, "call_id"))] = str(field(item.raw_item, "name"))
        elif isinstance(item, ToolCallOutputItem):
            call_id = str(field(item.raw_item, "call_id"))
            if call_id not in shown:
                shown.add(call_id)
                print(f"{names.get(call_id, '?')}: {item.output}", flush=True)


async def main() -> None:
    model = ScriptedModel(
        [[function_call(n, a, call_id=f"call-{i}")] for i, (n, a) in enumerate(PLAN)] + [[assistant_message("done")]]
    )
    async with AsyncClient() as client:  # $OUTRIDER_TARGET, $OUTRIDER_TOKEN (the agent's token)
        guard = OutriderGuard(client, "support-bot")
        tools = [function_tool(fn) for fn in (list_notes, delete_note, deploy_production)]
        agent = guard.guard_all(Agent(name="notes", model=model, tools=tools))  # every tool, checked once per call
        names: dict[str, str] = {}
        shown: set[str] = set()
        result = await Runner.run(agent, "tidy the notes, then ship 1.4")
        report(result, names, shown)
        while result.interruptions:  # a person must decide
            for item in result.interruptions:
                approval = guard.approval_id(str(field(item.raw_item, "call_id")))
                print(f"{item.tool_name}: waiting for a reviewer ({approval})", flush=True)
            result = await Runner.run(agent, await guard.resolve(result))
            report(result, names, shown)
        print("agent:", result.final_output)


if __name__ == "__main__":
    anyio.run(main)
