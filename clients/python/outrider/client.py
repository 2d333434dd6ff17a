"""The synchronous client: one channel, deadlines on every call, typed errors, the seeds' helpers."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import grpc

from ._common import DEFAULT_ATTACH_INTERVAL, TLS, CheckResult, Settings, check_request, check_result
from .errors import DeadlineExceededError, OutriderError, UnavailableError, from_rpc_error
from .v1 import (
    access_service_pb2_grpc,
    recovery_service_pb2_grpc,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2_grpc,
)

T = TypeVar("T")


class Client:
    """A connection to one sidecar. Cheap to share between threads; close() it (or use `with`).

    ``Client()`` talks to 127.0.0.1:50051 (or $OUTRIDER_TARGET) with the token in $OUTRIDER_TOKEN.
    The raw generated stubs are there too: ``client.supervisor``, ``.recovery``, ``.safeguard``, ``.access``.
    """

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
        self.channel = grpc.secure_channel(s.target, s.tls.credentials()) if s.tls else grpc.insecure_channel(s.target)
        self.supervisor = supervisor_service_pb2_grpc.SupervisorServiceStub(self.channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(self.channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(self.channel)
        self.access = access_service_pb2_grpc.AccessServiceStub(self.channel)

    def call(self, method: Callable[..., T], request: Any, timeout: float | None = None) -> T:
        """One unary call with the token and a deadline; gRPC errors become OutriderError subclasses."""
        try:
            return method(request, timeout=timeout or self.settings.timeout, metadata=self.settings.metadata())
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    def check_action(
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
        """May `agent_id` do `action`? Waits while a person decides (seed semantics: no timeout unless
        `approval_timeout` is given, then DeadlineExceededError while the request stays pending).

        The wait survives deadlines and sidecar restarts: the call is re-sent with the same request id,
        which re-attaches to the same approval request. With ``wait=False`` a pending request returns at
        once (``result.pending``); ask again later with the same ``request_id``.
        """
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
                return check_result(self.call(self.supervisor.CheckAction, request, timeout=timeout))
            except (DeadlineExceededError, UnavailableError):
                if not wait:
                    raise
                if give_up is not None and time.monotonic() >= give_up:
                    raise
                time.sleep(0.2)  # re-attach (a restarting sidecar comes back on its own)

    def watch(self, method: Callable[..., Iterator[T]], request: Any, timeout: float | None = None) -> Iterator[T]:
        try:
            yield from method(request, timeout=timeout, metadata=self.settings.metadata())
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["TLS", "CheckResult", "Client", "OutriderError"]
