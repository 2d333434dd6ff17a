"""A LangChain v1 agent whose tools are checked by Outrider: one call allowed, one blocked, one waiting for a
reviewer (the graph pauses with `interrupt`), then resumed with the reviewer's decision.

OUTRIDER_TOKEN=otr_... python examples/langchain/agent.py

The model is scripted (LangChain's GenericFakeChatModel) so the example runs without an API key; put your
own chat model in `create_agent(...)` instead. The sidecar's guardrails decide: `make run`'s demo policy
(outrider.example.yaml) denies `delete_note` (keep-notes) and asks a person before `deploy_production`
(release-review).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from outrider import Client
from outrider.integrations.langchain import OutriderMiddleware, resume_value

PLAN = [("list_notes", {}), ("delete_note", {"title": "q3"}), ("deploy_production", {"version": "1.4"})]


@tool
def list_notes() -> str:
    """The notes' titles."""
    return "q3, retro"


@tool
def delete_note(title: str) -> str:
    """Delete a note."""
    return f"deleted {title}"


@tool
def deploy_production(version: str) -> str:
    """Deploy a version to production."""
    return f"deployed {version} to production"


class Scripted(GenericFakeChatModel):
    """Calls the planned tools one by one, printing what each returned (what a model would read)."""

    def bind_tools(self, tools: Sequence[Any], **kw: Any) -> Scripted:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> Any:
        if isinstance(messages[-1], ToolMessage):
            print(f"{messages[-1].name}: {messages[-1].content}", flush=True)
        return super()._generate(messages, *args, **kw)


def model() -> Scripted:
    calls = [
        AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"call-{i}", "type": "tool_call"}])
        for i, (n, a) in enumerate(PLAN)
    ]
    return Scripted(messages=iter([*calls, AIMessage(content="done")]))


def main() -> None:
    with Client() as client:  # $OUTRIDER_TARGET, $OUTRIDER_TOKEN (the agent's token)
        agent = create_agent(
            model(),
            [list_notes, delete_note, deploy_production],
            middleware=[OutriderMiddleware(client, "support-bot")],
            checkpointer=InMemorySaver(),
        )
        config: Any = {"configurable": {"thread_id": "example"}}
        out = agent.invoke({"messages": [("user", "tidy the notes, then ship 1.4")]}, config)
        while "__interrupt__" in out:  # a person must decide
            (paused,) = out["__interrupt__"]
            info = paused.value["outrider"]
            print(f"{info['tool']}: waiting for a reviewer ({info['approval_id']})", flush=True)
            out = agent.invoke(Command(resume=resume_value(client, paused.value)), config)
        print("agent:", out["messages"][-1].content)


if __name__ == "__main__":
    main()
