"""The one place where domain errors become gRPC status codes (with google.rpc.ErrorInfo details).

A client never sees a Python traceback: anything unexpected is logged here with an error id and
answered INTERNAL with that id. A database that cannot be reached is UNAVAILABLE with one fixed message
("storage unavailable, retry"; server/storage/db.py logs the driver's text); the calls that can wait for
it (WAIT_FOR_STORAGE) first retry within their deadline.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from server.domain import errors as e
from server.services.idempotency import AlreadyRemembered, attempt_failed

log = logging.getLogger(__name__)

DOMAIN = "outrider.dev"

_CODES: list[tuple[type[e.OutriderError], grpc.StatusCode]] = [
    (e.InvalidArgument, grpc.StatusCode.INVALID_ARGUMENT),
    (e.NotFound, grpc.StatusCode.NOT_FOUND),
    (e.AlreadyExists, grpc.StatusCode.ALREADY_EXISTS),
    (e.FailedPrecondition, grpc.StatusCode.FAILED_PRECONDITION),
    (e.Unimplemented, grpc.StatusCode.UNIMPLEMENTED),
    (e.Unavailable, grpc.StatusCode.UNAVAILABLE),
    (e.Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (e.PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (e.ResourceExhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (e.Aborted, grpc.StatusCode.ABORTED),
    (e.OutOfRange, grpc.StatusCode.OUT_OF_RANGE),
]


def status_code(exc: e.OutriderError) -> grpc.StatusCode:
    for cls, code in _CODES:
        if isinstance(exc, cls):
            return code
    return grpc.StatusCode.UNKNOWN


def rich_status(code: grpc.StatusCode, message: str, reason: str, metadata: dict[str, str]) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=getattr(code_pb2, code.name), message=message, details=[detail])
    converted: grpc.Status = rpc_status.to_status(status)
    return converted


async def abort(context: grpc.aio.ServicerContext[Any, Any], exc: e.OutriderError) -> None:
    meta = {"field": exc.field} if exc.field else {}
    status = rich_status(status_code(exc), exc.message, exc.reason, meta)
    await context.abort(status.code, status.details, status.trailing_metadata)


def log_internal(method: str, exc: BaseException) -> tuple[str, str]:
    """Log an unexpected error under a fresh error id; (id, the message a caller gets: no internals)."""
    error_id = uuid.uuid4().hex[:12]
    log.error("unexpected error in %s (error id %s)", method, error_id, exc_info=exc)
    return error_id, f"internal error in {method}; the sidecar log has the details under error id {error_id}"


async def abort_internal(context: grpc.aio.ServicerContext[Any, Any], method: str, exc: BaseException) -> None:
    error_id, message = log_internal(method, exc)
    status = rich_status(grpc.StatusCode.INTERNAL, message, "INTERNAL", {"error_id": error_id})
    await context.abort(status.code, status.details, status.trailing_metadata)


# AlreadyRemembered goes up to the idempotency interceptor, which answers the stored reply.
_PASS_THROUGH = (grpc.aio.AbortError, asyncio.CancelledError, AlreadyRemembered)

C = TypeVar("C", bound=type)
T = TypeVar("T")

# Calls an agent or a reviewer would rather wait for than retry by hand: while storage is unavailable they
# retry (back-off from 50 ms to 1 s) until a quarter second before their deadline, or for
# STORAGE_WAIT_WITHOUT_DEADLINE seconds when the caller set none; then UNAVAILABLE.
WAIT_FOR_STORAGE = frozenset(
    {
        "SupervisorServicer.RegisterAgent",
        "SupervisorServicer.DecideApproval",
        "SupervisorServicer.CancelApproval",
        "SupervisorServicer.GetApproval",
        "SafeguardServicer.Consume",
    }
)
STORAGE_WAIT_WITHOUT_DEADLINE = 5.0
_DEADLINE_MARGIN = 0.25


async def wait_for_storage(call: Callable[[], Awaitable[T]], context: Any) -> T:
    """`call()`, retried while it raises StorageUnavailable and the caller's deadline leaves time."""
    backoff, started = 0.05, time.monotonic()
    while True:
        try:
            return await call()
        except e.StorageUnavailable:
            attempt_failed()  # the next attempt writes the call's idempotency record afresh
            remaining = context.time_remaining() if context is not None else None
            if remaining is not None:
                left = remaining - _DEADLINE_MARGIN
            else:
                left = STORAGE_WAIT_WITHOUT_DEADLINE - (time.monotonic() - started)
            if left <= backoff:
                raise
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 1.0)


def translate_errors(cls: C) -> C:
    """Wrap every public RPC method of a servicer class (coroutines and async generators)."""
    for name, fn in list(vars(cls).items()):
        if name.startswith("_"):
            continue
        if inspect.isasyncgenfunction(fn):
            setattr(cls, name, _wrap_stream(fn, f"{cls.__name__}.{name}"))
        elif inspect.iscoroutinefunction(fn):
            setattr(cls, name, _wrap_unary(fn, f"{cls.__name__}.{name}"))
    return cls


def _wrap_unary(fn: Callable[..., Any], method: str) -> Callable[..., Any]:
    waits = method in WAIT_FOR_STORAGE

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: Any) -> Any:
        try:
            if waits:
                return await wait_for_storage(lambda: fn(self, request, context), context)
            return await fn(self, request, context)
        except _PASS_THROUGH:
            raise
        except e.OutriderError as exc:
            await abort(context, exc)
        except Exception as exc:
            await abort_internal(context, method, exc)

    return wrapper


def _wrap_stream(fn: Callable[..., Any], method: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: Any) -> Any:
        try:
            async for item in fn(self, request, context):
                yield item
        except _PASS_THROUGH:
            raise
        except e.OutriderError as exc:
            await abort(context, exc)
        except Exception as exc:
            await abort_internal(context, method, exc)

    return wrapper
