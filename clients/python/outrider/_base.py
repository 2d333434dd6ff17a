"""`BaseClient`: what `Client` and `AsyncClient` share (httpx's BaseClient pattern): settings, the four
stubs on one channel, call options, and the blocking CheckAction's re-attach rules. The flavours add only
the I/O: a blocking or an awaited call, a sleep or an `asyncio.sleep`."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from ._common import DEFAULT_ATTACH_INTERVAL, TLS, Settings, check_request
from .errors import DeadlineExceededError, OutriderError
from .v1 import (
    access_service_pb2_grpc,
    recovery_service_pb2_grpc,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2_grpc,
)
from .v1 import supervisor_service_pb2 as spb

REATTACH_PAUSE = 0.2  # seconds between a failed attempt and the next (a restarting sidecar comes back on its own)


class BaseClient:
    """Settings from the arguments or the environment, one channel, and the raw generated stubs on it:
    ``client.supervisor``, ``.recovery``, ``.safeguard``, ``.access``."""

    def __init__(
        self,
        target: str | None = None,
        token: str | None = None,
        *,
        tls: TLS | None = None,
        timeout: float | None = None,
        channel: Any = None,
    ) -> None:
        """`channel`: a grpc channel of your own (a `grpc.Channel` for `Client`, a `grpc.aio.Channel` for
        `AsyncClient`), e.g. with interceptors or options, or one to `outrider.testing.FakeSidecar`; the
        client uses it as it is (target and tls are then unused) and leaves it open on close()."""
        self.settings = Settings.from_env(target, token, tls, timeout)
        self._owns_channel = channel is None
        self.channel = self._open_channel(self.settings) if channel is None else channel
        self.supervisor = supervisor_service_pb2_grpc.SupervisorServiceStub(self.channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(self.channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(self.channel)
        self.access = access_service_pb2_grpc.AccessServiceStub(self.channel)

    def _open_channel(self, settings: Settings) -> Any:
        raise NotImplementedError

    def _unary_options(self, timeout: float | None) -> dict[str, Any]:
        """A unary call's deadline (the client's default unless given) and credential."""
        return {"timeout": timeout or self.settings.timeout, "metadata": self.settings.metadata()}

    def _stream_options(self, timeout: float | None) -> dict[str, Any]:
        """A stream's options: no deadline unless given (a watch lasts as long as the caller reads)."""
        return {"timeout": timeout, "metadata": self.settings.metadata()}

    def _check_plan(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any] | None,
        *,
        request_id: str | None,
        wait: bool,
        approval_timeout: float | None,
        attach_interval: float,
        binary_context: Mapping[str, bytes] | None,
    ) -> Reattach:
        request = check_request(agent_id, action, context, request_id or uuid.uuid4().hex, wait, binary_context)
        return Reattach(request, wait, approval_timeout, attach_interval)


class Reattach:
    """The re-attach loop of a blocking CheckAction, without I/O. Each attempt is the same request (same
    request id, so the sidecar attaches it to the same approval) under a deadline of `attach_interval`,
    so no single call outlives load balancers' idle timeouts and a sidecar restart costs one attempt.

        plan = Reattach(request, wait, approval_timeout, attach_interval)
        while True:
            timeout = plan.next_timeout()                  # DeadlineExceededError when time is up
            try:
                return send(plan.request, timeout)
            except (DeadlineExceededError, UnavailableError) as err:
                sleep(plan.pause_after(err))               # re-raises err when it should not retry
    """

    def __init__(
        self,
        request: spb.CheckActionRequest,
        wait: bool,
        approval_timeout: float | None,
        attach_interval: float = DEFAULT_ATTACH_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.request, self.wait, self.approval_timeout = request, wait, approval_timeout
        self.attach_interval, self.clock = attach_interval, clock
        self.give_up = clock() + approval_timeout if approval_timeout is not None else None

    def next_timeout(self) -> float:
        """The next attempt's deadline; DeadlineExceededError once `approval_timeout` has passed (the
        request stays pending at the sidecar: ask again with the same request id)."""
        left = self.give_up - self.clock() if self.give_up is not None else None
        timeout = min(self.attach_interval, left) if left is not None else self.attach_interval
        if timeout <= 0:
            raise self._no_decision()
        return timeout

    def pause_after(self, err: OutriderError) -> float:
        """The pause before the next attempt after `err` (a deadline, the sidecar unreachable or
        restarting). Raises instead: `err` itself with wait=False; once `approval_timeout` has passed,
        the "no decision" DeadlineExceededError when the last attempt ran out of time, else `err`."""
        if not self.wait:
            raise err
        if self.give_up is not None and self.clock() >= self.give_up:
            if isinstance(err, DeadlineExceededError):
                raise self._no_decision() from err
            raise err
        return REATTACH_PAUSE

    def _no_decision(self) -> DeadlineExceededError:
        return DeadlineExceededError(
            f"no decision within {self.approval_timeout:g}s; request {self.request.request_id} stays pending"
        )
