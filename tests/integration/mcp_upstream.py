"""A real upstream MCP server for the gateway tests, written with the SDK's MCPServer.

    python tests/integration/mcp_upstream.py                 # stdio
    python tests/integration/mcp_upstream.py --http URLFILE  # streamable HTTP on a free port

Each tool answers with the arguments it received (so a test sees what reached the upstream) and appends
them to $UPSTREAM_LOG when set. `crash` kills the process, as a broken server would.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("test-upstream", version="1.0")


def _record(tool: str, args: dict[str, Any]) -> str:
    text = json.dumps({"tool": tool, "args": args}, sort_keys=True)
    log = os.environ.get("UPSTREAM_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(text + "\n")
    return text


@server.tool()
def read_file(path: str) -> str:
    """Read a file."""
    return _record("read_file", {"path": path})


@server.tool()
def deploy(env: str, version: str) -> str:
    """Deploy a version to an environment."""
    return _record("deploy", {"env": env, "version": version})


@server.tool()
def run_job(name: str, spec: dict[str, Any]) -> str:
    """Run a job with a nested spec."""
    return _record("run_job", {"name": name, "spec": spec})


@server.tool()
def delete_all() -> str:
    """Delete everything."""
    return _record("delete_all", {})


@server.tool()
def crash() -> str:
    """Kill this server."""
    os._exit(3)


@server.resource("memo://notes")
def notes() -> str:
    """Team notes."""
    return "the notes"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        import anyio
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        app = server.streamable_http_app()
        uv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        Path(sys.argv[2]).write_text(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp")
        anyio.run(lambda: uv.serve(sockets=[sock]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
