"""The asyncio client: the same calls as `Client`, awaitable, on one grpc.aio channel."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import grpc

from ._common import DEFAULT_ATTACH_INTERVAL, TLS, CheckResult, Settings, check_request, check_result
from .errors import DeadlineExceededError, UnavailableError, from_rpc_error
from .v1 import (
    access_service_pb2_grpc,
    recovery_service_pb2_grpc,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2_grpc,
)


class AsyncClient:
    def __init__(
        self,
        target: str | None = None,
        token: str | None = None,
        *,
        tls: TLS | None = None,
        timeout: float | None = None,
    ) -> None:
        self.settings = Settings.from_env(target, token, tls, timeout)
        s = self.settings
        self.channel = (
            grpc.aio.secure_channel(s.target, s.tls.credentials()) if s.tls else grpc.aio.insecure_channel(s.target)
        )
        self.supervisor = supervisor_service_pb2_grpc.SupervisorServiceStub(self.channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(self.channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(self.channel)
        self.access = access_service_pb2_grpc.AccessServiceStub(self.channel)

    async def call(self, method: Callable[..., Any], request: Any, timeout: float | None = None) -> Any:
        try:
            return await method(request, timeout=timeout or self.settings.timeout, metadata=self.settings.metadata())
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
        request = check_request(agent_id, action, context, request_id or uuid.uuid4().hex, wait, binary_context)
        give_up = time.monotonic() + approval_timeout if approval_timeout is not None else None
        while True:
            left = give_up - time.monotonic() if give_up is not None else None
            timeout = min(attach_interval, left) if left is not None else attach_interval
            if timeout <= 0:
                raise DeadlineExceededError(
                    f"no decision within {approval_timeout:g}s; request {request.request_id} stays pending"
                )
            try:
                return check_result(await self.call(self.supervisor.CheckAction, request, timeout=timeout))
            except (DeadlineExceededError, UnavailableError):
                if not wait or (give_up is not None and time.monotonic() >= give_up):
                    raise
                await asyncio.sleep(0.2)

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
