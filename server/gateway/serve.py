"""Running the gateway: over stdio (one client, the agent the config names) or streamable HTTP (any number
of clients, each authenticated by its own Outrider agent token)."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import sys
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from server.gateway.app import Gateway, build_mcp_server
from server.gateway.config import GatewayConfig
from server.gateway.names import ToolCollision
from server.gateway.pins import open_pins
from server.gateway.principals import UNAUTHORIZED, PrincipalResolver

log = logging.getLogger("outrider.gateway")


def authenticated(app: Any, principals: PrincipalResolver) -> Any:
    """Refuse an HTTP request without a valid agent token before it reaches MCP (401, WWW-Authenticate)."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
            try:
                await principals.from_header(headers.get("authorization", ""))
            except MCPError as exc:
                body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": exc.code, "message": exc.message}})
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401 if exc.code == UNAUTHORIZED else 503,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="outrider"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await app(scope, receive, send)

    return wrapped


def _instrument_grpc() -> None:
    """CheckActions carry the current trace (the MCP client's, when its request had a traceparent in _meta)."""
    with contextlib.suppress(Exception):  # instrumentation is optional; checks work without it
        from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient

        GrpcAioInstrumentorClient().instrument()  # type: ignore[no-untyped-call]


async def serve_stdio(config: GatewayConfig) -> None:
    _instrument_grpc()
    principals = PrincipalResolver(config.sidecar, config.agent_id)
    gateway = Gateway(config, principals, open_pins(config.pins))
    server = build_mcp_server(gateway)
    try:
        await gateway.start()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await gateway.close()
        await principals.close()


async def serve_http(config: GatewayConfig, listen: str, url_file: str | None = None) -> None:
    _instrument_grpc()
    host, _, port = listen.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    principals = PrincipalResolver(config.sidecar, http=True)
    gateway = Gateway(config, principals, open_pins(config.pins))
    try:
        await gateway.start()
    except BaseException:
        await gateway.close()
        await principals.close()
        raise
    server = build_mcp_server(gateway)
    app = server.streamable_http_app(host=host)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port or 0)))
    # Listening before the URL is published: a client that reads it connects into the backlog instead of
    # being refused while uvicorn starts.
    sock.listen(2048)
    bound = sock.getsockname()[1]
    url = f"http://{host if ':' not in host else f'[{host}]'}:{bound}/mcp"
    log.info("mcp gateway serving", extra={"url": url, "upstreams": [u.name for u in config.upstreams]})
    if url_file:
        Path(url_file).write_text(url)
    else:
        print(f"outrider mcp-gateway: serving on {url}", file=sys.stderr)
    uv = uvicorn.Server(uvicorn.Config(authenticated(app, principals), log_level="warning", lifespan="on"))
    try:
        await uv.serve(sockets=[sock])
    finally:
        await gateway.close()
        await principals.close()


def run(config: GatewayConfig, transport: str, listen: str, url_file: str | None) -> int:
    try:
        if transport == "stdio":
            anyio.run(serve_stdio, config)
        else:
            anyio.run(serve_http, config, listen, url_file)
    except ToolCollision as exc:
        print(f"outrider: {exc} (tool_collisions: refuse)", file=sys.stderr)
        return 2
    return 0
