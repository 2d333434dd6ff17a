"""A Pydantic AI agent whose tools are checked by Outrider: one call allowed, one blocked, one waiting for a
reviewer, then resumed with the reviewer's decision.

OUTRIDER_TOKEN=otr_... python examples/pydantic-ai/agent.py

The model is scripted (Pydantic AI's FunctionModel) so the example runs without an API key; put your own
model in `Agent(...)` instead. The sidecar's guardrails decide: `make run`'s demo policy (outrider.example.yaml)
denies `delete_note` (keep-notes) and asks a person before `deploy_production` (release-review).
"""

from __future__ import annotations

import anyio
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from outrider import AsyncClient
from outrider.integrations.pydantic_ai import OutriderCapability, resolve

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


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls the planned tools one by one, printing what each returned (what a model would read)."""
    for part in messages[-1].parts if isinstance(messages[-1], ModelRequest) else []:
        if isinstance(part, ToolReturnPart):
            print(f"{part.tool_name}: {part.content}", flush=True)
    step = sum(isinstance(m, ModelResponse) for m in messages)
    if step < len(PLAN):
        name, args = PLAN[step]
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"call-{step}")])
    return ModelResponse(parts=[TextPart("done")])


async def main() -> None:
    async with AsyncClient() as client:  # $OUTRIDER_TARGET, $OUTRIDER_TOKEN (the agent's token)
        agent = Agent(
            FunctionModel(scripted),
            tools=[list_notes, delete_note, deploy_production],
            output_type=[str, DeferredToolRequests],
            capabilities=[OutriderCapability(client, "support-bot")],
        )
        result = await agent.run("tidy the notes, then ship 1.4")
        while isinstance(result.output, DeferredToolRequests):  # a person must decide
            for call in result.output.approvals:
                info = result.output.metadata[call.tool_call_id]["outrider"]
                print(f"{call.tool_name}: waiting for a reviewer ({info['approval_id']})", flush=True)
            answers = await resolve(client, result.output)
            result = await agent.run(message_history=result.all_messages(), deferred_tool_results=answers)
        print("agent:", result.output)


if __name__ == "__main__":
    anyio.run(main)
