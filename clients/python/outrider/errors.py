"""One exception tree for every Outrider call: did the sidecar answer, and if so, what did it say.

OutriderError                     every error a call raises: .message .code .reason .field .metadata
│
├── TransportError                no answer from the sidecar: it may not even have seen the request, and
│   │                             decided nothing (re-send with the same request_id to be safe)
│   ├── SidecarUnreachableError   could not connect, or the connection broke     (also an UnavailableError)
│   └── SidecarTimeoutError       no answer before the call's deadline           (also a DeadlineExceededError)
│
│   The sidecar's answers, by gRPC status code (with its google.rpc.ErrorInfo reason and field):
├── InvalidArgumentError          INVALID_ARGUMENT (``field`` names the bad field)
├── NotFoundError                 NOT_FOUND
├── AlreadyExistsError            ALREADY_EXISTS
├── FailedPreconditionError       FAILED_PRECONDITION
├── UnauthenticatedError          UNAUTHENTICATED
├── PermissionDeniedError         PERMISSION_DENIED
├── ResourceExhaustedError        RESOURCE_EXHAUSTED (rate limits, sizes)
│   └── BudgetExhaustedError      raised by the client itself (a token reservation that does not fit)
├── DeadlineExceededError         DEADLINE_EXCEEDED; also raised by check_action when `approval_timeout` passes
├── UnavailableError              UNAVAILABLE: the sidecar answered it cannot serve now (shutting down, its
│                                 database down)
├── UnimplementedError            UNIMPLEMENTED
├── InternalError                 INTERNAL, UNKNOWN, DATA_LOSS and anything else
└── CircuitOpenError              raised by the client itself (FAIL_FAST breakers)

Every sidecar answer carries an ErrorInfo of domain ``outrider.dev``; an UNAVAILABLE or DEADLINE_EXCEEDED
without one was made by the gRPC library (or a proxy) on this side, so the sidecar never answered:
``except TransportError`` catches exactly those. ``except UnavailableError`` keeps catching both kinds of
UNAVAILABLE, as it always did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

if TYPE_CHECKING:
    from .v1.supervisor_service_pb2 import CheckActionsError


class OutriderError(Exception):
    """The root: `code` is the gRPC status (None when the client raised it), `reason` and `field` come from
    the sidecar's ErrorInfo."""

    def __init__(
        self,
        message: str,
        *,
        code: grpc.StatusCode | None = None,
        reason: str = "",
        field: str = "",
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason
        self.field = field
        self.metadata = metadata or {}


class InvalidArgumentError(OutriderError): ...


class NotFoundError(OutriderError): ...


class AlreadyExistsError(OutriderError): ...


class FailedPreconditionError(OutriderError): ...


class UnauthenticatedError(OutriderError): ...


class PermissionDeniedError(OutriderError): ...


class ResourceExhaustedError(OutriderError): ...


class DeadlineExceededError(OutriderError): ...


class UnavailableError(OutriderError): ...


class UnimplementedError(OutriderError): ...


class InternalError(OutriderError): ...


class TransportError(OutriderError):
    """The sidecar gave no answer; nothing it decides was decided."""


class SidecarUnreachableError(TransportError, UnavailableError):
    """Could not connect to the sidecar (refused, no route, DNS, TLS), or the connection broke."""


class SidecarTimeoutError(TransportError, DeadlineExceededError):
    """The call's deadline passed without an answer from the sidecar."""


class BudgetExhaustedError(ResourceExhaustedError):
    """`Budget.reserve` could not set the tokens aside: they do not fit the agent's or the global budget."""

    def __init__(self, agent_id: str, estimate: int, why: str) -> None:
        super().__init__(f"{estimate} tokens for {agent_id!r} do not fit: {why}", reason="BUDGET_EXHAUSTED")
        self.agent_id = agent_id
        self.estimate = estimate
        self.why = why


class CircuitOpenError(OutriderError):
    """The breaker of `key` is open and its strategy is FAIL_FAST."""

    def __init__(self, key: str, retry_after: float | None) -> None:
        after = f"; retry in {retry_after:.1f}s" if retry_after else ""
        super().__init__(f"circuit for {key!r} is open{after}", reason="CIRCUIT_OPEN")
        self.key = key
        self.retry_after = retry_after


_BY_CODE: dict[grpc.StatusCode, type[OutriderError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.UNIMPLEMENTED: UnimplementedError,
}


SIDECAR_DOMAIN = "outrider.dev"  # the ErrorInfo domain of every status the sidecar sends
_TRANSPORT: dict[grpc.StatusCode, type[OutriderError]] = {
    grpc.StatusCode.UNAVAILABLE: SidecarUnreachableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: SidecarTimeoutError,
}


def from_rpc_error(err: grpc.RpcError) -> OutriderError:
    """The typed error for a failed call, with the server's ErrorInfo reason and field when present."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    message = (err.details() if hasattr(err, "details") else "") or str(code)
    reason, metadata, answered = "", {}, False
    try:
        status = rpc_status.from_call(err)
    except (AttributeError, ValueError):
        status = None
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, metadata = info.reason, dict(info.metadata)
                answered = answered or info.domain == SIDECAR_DOMAIN
    cls = _BY_CODE.get(code, InternalError) if answered else _TRANSPORT.get(code) or _BY_CODE.get(code, InternalError)
    return cls(message, code=code, reason=reason, field=metadata.get("field", ""), metadata=metadata)


_BY_NUMBER: dict[int, grpc.StatusCode] = {c.value[0]: c for c in grpc.StatusCode}
STREAM_FIELD_PREFIX = "check."  # CheckActions names a field of the stream's request: check.action


def from_stream_error(err: CheckActionsError) -> OutriderError:
    """The typed error for one check's `error` answer on a CheckActions stream: the error the unary
    CheckAction would have raised (the same class, code, reason, and field, without the "check." the
    stream's request puts in front of it). Always a sidecar answer, never a TransportError."""
    code = _BY_NUMBER.get(err.code, grpc.StatusCode.UNKNOWN)
    field = err.field.removeprefix(STREAM_FIELD_PREFIX)
    metadata = {"field": field} if field else {}
    cls = _BY_CODE.get(code, InternalError)
    return cls(err.message or str(code), code=code, reason=err.reason, field=field, metadata=metadata)
