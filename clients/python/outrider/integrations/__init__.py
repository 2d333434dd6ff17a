"""Drop-in guards for agent frameworks: each checks a tool call with CheckAction through the framework's own hook.

outrider.integrations.openai_agents   (extra: outrider-client[openai-agents])
outrider.integrations.langchain       (extra: outrider-client[langchain])
outrider.integrations.pydantic_ai     (extra: outrider-client[pydantic-ai])
The MCP gateway (`outrider mcp-gateway`, extra: outrider[mcp]) uses the same guard.
"""

from ._guard import AsyncToolGuard, ToolDecision, ToolGuard

__all__ = ["AsyncToolGuard", "ToolDecision", "ToolGuard"]
