"""Every RPC a server span: the W3C `traceparent` the caller sends in gRPC metadata is continued.

Installed first among the interceptors, so a call refused by authentication or a rate limit is traced
too. Span names and attributes follow the OpenTelemetry RPC conventions (`rpc.system`, `rpc.service`,
`rpc.method`, `rpc.grpc.status_code`); a refusal's `google.rpc.ErrorInfo` reason becomes
`outrider.error.reason`, and the authenticated caller `outrider.principal`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from opentelemetry import propagate
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from server.rpc.auth import current_principal

# Server-side codes that are the server's fault (OTel semantic conventions); the rest leave status unset.
_SERVER_ERRORS = {
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.UNIMPLEMENTED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DATA_LOSS,
}
_DETAILS_KEY = "grpc-status-details-bin"


def _parent(metadata: Any) -> Context:
    """The caller's trace context (traceparent, tracestate, baggage) from the call's metadata."""
    carrier = {k: v for k, v in metadata or () if isinstance(v, str)}
    return propagate.extract(carrier)


class TracingInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        handler = await continuation(details)
        if handler is None:
            return None
        method: str = details.method
        service, _, name = method.lstrip("/").partition("/")
        parent = _parent(details.invocation_metadata)
        attrs = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": name}
        start = (method.lstrip("/"), parent, attrs)
        if handler.unary_unary:
            return handler._replace(unary_unary=self._unary(handler.unary_unary, start))
        if handler.stream_unary:
            return handler._replace(stream_unary=self._unary(handler.stream_unary, start))
        if handler.unary_stream:
            return handler._replace(unary_stream=self._stream(handler.unary_stream, start))
        return handler._replace(stream_stream=self._stream(handler.stream_stream, start))

    def _span(self, start: tuple[str, Context, dict[str, str]]) -> Any:
        name, parent, attrs = start
        return self.tracer.start_as_current_span(
            name,
            context=parent,
            kind=SpanKind.SERVER,
            attributes=attrs,
            record_exception=False,
            set_status_on_exception=False,
        )

    def _unary(self, fn: Any, start: tuple[str, Context, dict[str, str]]) -> Any:
        async def behavior(request: Any, context: Any) -> Any:
            with self._span(start) as span:
                try:
                    response = await fn(request, context)
                except BaseException as exc:
                    _failed(span, context, exc)
                    raise
                _finished(span, context)
                return response

        return behavior

    def _stream(self, fn: Any, start: tuple[str, Context, dict[str, str]]) -> Any:
        async def behavior(request: Any, context: Any) -> AsyncIterator[Any]:
            with self._span(start) as span:
                try:
                    result = fn(request, context)
                    if hasattr(result, "__aiter__"):
                        async for item in result:
                            yield item
                    else:  # a coroutine that writes with context.write()
                        await result
                except BaseException as exc:
                    _failed(span, context, exc)
                    raise
                _finished(span, context)

        return behavior


def _finished(span: Span, context: Any) -> None:
    if not span.is_recording():
        return
    code = _code(context) or grpc.StatusCode.OK
    span.set_attribute("rpc.grpc.status_code", code.value[0])
    if code is grpc.StatusCode.OK:
        principal = current_principal()  # set by the authentication interceptor, inside this span's context
        span.set_attribute("outrider.principal", principal.label)
    else:
        _refused(span, context, code)


def _failed(span: Span, context: Any, exc: BaseException) -> None:
    if not span.is_recording():
        return
    if isinstance(exc, grpc.aio.AbortError):  # the call was answered with an error status
        _refused(span, context, _code(context) or grpc.StatusCode.UNKNOWN)
    elif isinstance(exc, asyncio.CancelledError):  # the caller went away (cancel or deadline)
        span.set_attribute("rpc.grpc.status_code", grpc.StatusCode.CANCELLED.value[0])
    else:
        span.record_exception(exc)
        span.set_attribute("rpc.grpc.status_code", grpc.StatusCode.UNKNOWN.value[0])
        span.set_status(Status(StatusCode.ERROR, type(exc).__name__))


def _refused(span: Span, context: Any, code: grpc.StatusCode) -> None:
    span.set_attribute("rpc.grpc.status_code", code.value[0])
    reason = _reason(context)
    if reason:
        span.set_attribute("outrider.error.reason", reason)
    if code in _SERVER_ERRORS:
        span.set_status(Status(StatusCode.ERROR, f"{code.name}: {context.details() or ''}"))


def _code(context: Any) -> grpc.StatusCode | None:
    try:
        code = context.code()
    except Exception:
        return None
    if isinstance(code, grpc.StatusCode):
        return code
    if isinstance(code, int):
        return next((c for c in grpc.StatusCode if c.value[0] == code), None)
    return None


def _reason(context: Any) -> str:
    """The ErrorInfo reason of the status Outrider answered with (server/rpc/errors.py puts one in every error)."""
    try:
        trailing = context.trailing_metadata() or ()
    except Exception:
        return ""
    for key, value in trailing:
        if key != _DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return str(info.reason)
    return ""
