"""The synchronous client: one channel, deadlines on every call, typed errors, `watch` for streams."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import grpc

from ._base import BaseClient
from ._common import DEFAULT_ATTACH_INTERVAL, TLS, CheckResult, Settings, check_result
from .check_stream import CheckStream
from .errors import DeadlineExceededError, OutriderError, UnavailableError, from_rpc_error

T = TypeVar("T")


class Client(BaseClient):
    """A connection to one sidecar. Cheap to share between threads; close() it (or use `with`).

    ``Client()`` talks to 127.0.0.1:50051 (or $OUTRIDER_TARGET) with the token in $OUTRIDER_TOKEN.
    The raw generated stubs are there too: ``client.supervisor``, ``.recovery``, ``.safeguard``, ``.access``.
    """

    def _open_channel(self, settings: Settings) -> grpc.Channel:
        if settings.tls:
            return grpc.secure_channel(settings.target, settings.tls.credentials())
        return grpc.insecure_channel(settings.target)

    def call(self, method: Callable[..., T], request: Any, timeout: float | None = None) -> T:
        """One unary call with the token and a deadline; gRPC errors become OutriderError subclasses
        (SidecarUnreachableError / SidecarTimeoutError when the sidecar gave no answer)."""
        try:
            return method(request, **self._unary_options(timeout))
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
        """May `agent_id` do `action`? Waits while a person decides (the SupervisorAgent library's rule: no
        timeout unless `approval_timeout` is given, then DeadlineExceededError while the request stays
        pending).

        The wait survives deadlines and sidecar restarts: the call is re-sent with the same request id,
        which re-attaches to the same approval request. With ``wait=False`` a pending request returns at
        once (``result.pending``); ask again later with the same ``request_id``.
        """
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
                return check_result(self.call(self.supervisor.CheckAction, plan.request, timeout=timeout))
            except (DeadlineExceededError, UnavailableError) as err:
                time.sleep(plan.pause_after(err))

    def check_stream(self) -> CheckStream:
        """Many checks, from any number of threads, over one CheckActions stream (opened at the first
        check): ``with client.check_stream() as s: s.check("worker-1", "deploy")``. See
        `outrider.check_stream`."""
        return CheckStream(self)

    def watch(self, method: Callable[..., Iterator[T]], request: Any, timeout: float | None = None) -> Iterator[T]:
        """The messages of a server stream (``client.watch(client.supervisor.WatchApproval, request)``)
        until it ends, with the token and typed errors; no deadline unless `timeout`. Leaving the loop
        early (break, close()) cancels the stream."""
        call: Any = method(request, **self._stream_options(timeout))  # a grpc call: iterable and cancellable
        try:
            yield from call
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        finally:
            call.cancel()

    def close(self) -> None:
        if self._owns_channel:
            self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["TLS", "CheckResult", "CheckStream", "Client", "OutriderError"]
