"""An MCP client talking to the notes server through the gateway (what an agent framework does for you).

OUTRIDER_TOKEN=otr_... python examples/mcp-gateway/client.py
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

CONFIG = os.path.join(os.path.dirname(__file__), "gateway.yaml")


async def main() -> None:
    gateway = StdioServerParameters(
        command=sys.executable,
        args=["-m", "server", "mcp-gateway", "--config", CONFIG],
        env={k: os.environ[k] for k in ("OUTRIDER_TOKEN", "OUTRIDER_TARGET") if k in os.environ},
    )
    async with stdio_client(gateway) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print("tools:", sorted(t.name for t in (await session.list_tools()).tools))
        for name, args in (("add_note", {"title": "q3", "body": "ship it"}), ("delete_note", {"title": "q3"})):
            result = await session.call_tool(name, args)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            print(f"{name}: {'REFUSED ' if result.is_error else ''}{text}")


if __name__ == "__main__":
    anyio.run(main)
