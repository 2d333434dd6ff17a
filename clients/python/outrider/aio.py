"""The asyncio client: the same calls as `Client`, awaitable, on one grpc.aio channel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, TypeVar

import grpc

from ._base import BaseClient
from ._common import DEFAULT_ATTACH_INTERVAL, TLS, CheckResult, Settings, check_result
from .check_stream import AsyncCheckStream
from .errors import DeadlineExceededError, UnavailableError, from_rpc_error

T = TypeVar("T")


class AsyncClient(BaseClient):
    """`Client` for asyncio: ``async with AsyncClient() as client: await client.check_action(...)``."""

    def _open_channel(self, settings: Settings) -> grpc.aio.Channel:
        if settings.tls:
            return grpc.aio.secure_channel(settings.target, settings.tls.credentials())
        return grpc.aio.insecure_channel(settings.target)

    async def call(self, method: Callable[..., Any], request: Any, timeout: float | None = None) -> Any:
        """See `Client.call`."""
        try:
            return await method(request, **self._unary_options(timeout))
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    async def check_action(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any] | None = None,
        *,
        request_id: str | None = None,
        wait: bool = True,
        approval_timeout: float | None = None,
        attach_interval: float = DEFAULT_ATTACH_INTERVAL,
        binary_context: Mapping[str, bytes] | None = None,
    ) -> CheckResult:
        """See `Client.check_action`."""
        plan = self._check_plan(
            agent_id,
            action,
            context,
            request_id=request_id,
            wait=wait,
            approval_timeout=approval_timeout,
            attach_interval=attach_interval,
            binary_context=binary_context,
        )
        while True:
            timeout = plan.next_timeout()
            try:
                return check_result(await self.call(self.supervisor.CheckAction, plan.request, timeout=timeout))
            except (DeadlineExceededError, UnavailableError) as err:
                await asyncio.sleep(plan.pause_after(err))

    def check_stream(self) -> AsyncCheckStream:
        """See `Client.check_stream`: ``async with client.check_stream() as s: await s.check(...)``."""
        return AsyncCheckStream(self)

    async def watch(
        self, method: Callable[..., AsyncIterator[T]], request: Any, timeout: float | None = None
    ) -> AsyncIterator[T]:
        """See `Client.watch`: ``async for event in client.watch(client.recovery.WatchRecoveryEvents, r)``."""
        call: Any = method(request, **self._stream_options(timeout))  # a grpc call: iterable and cancellable
        try:
            async for message in call:
                yield message
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        finally:
            call.cancel()

    async def close(self) -> None:
        if self._owns_channel:
            await self.channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


__all__ = ["TLS", "AsyncCheckStream", "AsyncClient", "CheckResult"]
