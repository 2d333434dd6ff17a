"""A real upstream MCP server (the SDK's low-level Server, over stdio) whose tools come from a JSON file.

    UPSTREAM_TOOLS=tools.json UPSTREAM_LOG=calls.log python tests/integration/mcp_raw_upstream.py

The file, `[{"name", "description", "inputSchema"}]`, is read again on every tools/list, so a test can
change a tool under a running gateway (a "rug pull"). Each call appends the arguments exactly as they came
over the wire (no validation, no parsing: what the gateway forwarded) to $UPSTREAM_LOG and answers with them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def _tools() -> list[types.Tool]:
    raw = json.loads(Path(os.environ["UPSTREAM_TOOLS"]).read_text())
    return [types.Tool(name=t["name"], description=t.get("description"), input_schema=t["inputSchema"]) for t in raw]


async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tools())


async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
    text = json.dumps({"tool": params.name, "args": params.arguments}, sort_keys=True)
    log = os.environ.get("UPSTREAM_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(text + "\n")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def main() -> None:
    server: Server[Any] = Server("raw-upstream", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
