"""The upstream MCP servers: one client session each (stdio or streamable HTTP), reconnected after a crash.

A session lives in its own task (the SDK's transports are anyio task groups that must be entered and left
in one task); calls go through `session()`, which (re)connects when the last session died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import httpx2
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from server.gateway.config import UpstreamConfig

log = logging.getLogger("outrider.gateway")
CONNECT_TIMEOUT = 30.0


class UpstreamError(Exception):
    """An upstream could not be reached or failed mid-call; the client gets an MCP error, the gateway lives."""


class Upstream:
    def __init__(self, config: UpstreamConfig) -> None:
        self.config = config
        self.name = config.name
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[ClientSession] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self.capabilities: types.ServerCapabilities | None = None

    async def session(self) -> ClientSession:
        async with self._lock:
            if self._session is not None and self._task is not None and not self._task.done():
                return self._session
            loop = asyncio.get_running_loop()
            self._ready = loop.create_future()
            self._task = loop.create_task(self._run(self._ready), name=f"upstream-{self.name}")
            try:
                self._session = await asyncio.wait_for(asyncio.shield(self._ready), CONNECT_TIMEOUT)
            except Exception as exc:
                self._session = None
                raise UpstreamError(f"upstream {self.name!r} is unavailable: {_text(exc)}") from None
            return self._session

    async def _run(self, ready: asyncio.Future[ClientSession]) -> None:
        mine: ClientSession | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                if self.config.command:
                    params = StdioServerParameters(
                        command=self.config.command,
                        args=list(self.config.args),
                        env=dict(self.config.env) or None,
                        cwd=self.config.cwd,
                    )
                    read, write = await stack.enter_async_context(stdio_client(params))
                else:
                    http = await stack.enter_async_context(httpx2.AsyncClient(headers=dict(self.config.headers)))
                    read, write = await stack.enter_async_context(
                        streamable_http_client(self.config.url, http_client=http)
                    )
                mine = await stack.enter_async_context(ClientSession(read, write))
                init = await mine.initialize()
                self.capabilities = init.capabilities
                ready.set_result(mine)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(UpstreamError(_text(exc)))
            if not isinstance(exc, asyncio.CancelledError | Exception):
                raise
            log.warning("upstream session ended", extra={"upstream": self.name, "error": _text(exc)})
        finally:
            if mine is not None and self._session is mine:
                self._session = None

    async def call(self, method: str, *args: Any, **kw: Any) -> Any:
        """One request on the session; a dead session is reconnected once before giving up."""
        for attempt in (1, 2):
            session = await self.session()
            try:
                return await getattr(session, method)(*args, **kw)
            except MCPError as exc:
                if exc.code != types.CONNECTION_CLOSED:
                    raise  # the upstream answered with an error: pass it on as is
                await self._drop()
                if attempt == 2 or method == "call_tool":
                    raise UpstreamError(f"upstream {self.name!r} failed: the connection closed") from None
            except Exception as exc:
                await self._drop()
                if attempt == 2 or method == "call_tool":  # never run a tool twice
                    raise UpstreamError(f"upstream {self.name!r} failed: {_text(exc)}") from None
        raise AssertionError("unreachable")

    async def _drop(self) -> None:
        task, self._task, self._session = self._task, None, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def close(self) -> None:
        self._stop.set()
        task = self._task
        if task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5)


def _text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_text(e) for e in exc.exceptions)
    return str(exc) or type(exc).__name__
