"""Request hygiene for every RPC: a message that does not parse, or holds a value protobuf itself cannot
mean, is answered INVALID_ARGUMENT naming the field, before authentication or any servicer runs.

grpcio answers a request whose deserializer raises with UNKNOWN, the exception's text and a logged
traceback. Here the deserializer never raises: it returns a `Malformed` marker that the wrapped behavior
turns into INVALID_ARGUMENT, with one rate-limited log line and no traceback. The same deserializer
checks what parses but is out of range, walking the message descriptor (so a new field is covered the
day it is added): Timestamps outside 0001-01-01..9999-12-31, Durations outside +-100 years (protobuf
allows 10,000; the sidecar adds durations to the current time) or with mixed signs, and enum values the
enum does not define. Struct and Value contents are the converter's business (server/rpc/convert.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.descriptor import FieldDescriptor

from server.domain.errors import InvalidArgument
from server.rpc.errors import abort
from server.rpc.wrapped import Wrapped

log = logging.getLogger(__name__)

TIMESTAMP_MIN = -62_135_596_800  # 0001-01-01T00:00:00Z
TIMESTAMP_MAX = 253_402_300_799  # 9999-12-31T23:59:59Z
DURATION_MAX = 100 * 366 * 86_400  # 100 years, in seconds
_NANOS = 999_999_999
_SKIP = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any"}


@dataclass(frozen=True, slots=True)
class Malformed:
    """What the deserializer returns instead of raising."""

    message: str
    field: str = ""


# ---- the descriptor walk ----------------------------------------------------------------------------

# Per message type: {field number: (field, kind)}; kinds: ts, dur, enum, map, msg.
# Descriptors are typed Any: their stubs make every message_type/enum_type Optional.
_Plan = dict[int, tuple[Any, str]]
_plans: dict[str, _Plan] = {}
_planning: set[str] = set()


def _plan(d: Any) -> _Plan:
    cached = _plans.get(d.full_name)
    if cached is not None:
        return cached
    plan: _Plan = {}
    _planning.add(d.full_name)  # recursive message types end here
    for f in d.fields:
        if f.type == FieldDescriptor.TYPE_ENUM:
            plan[f.number] = (f, "enum")
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            name = f.message_type.full_name
            if name == "google.protobuf.Timestamp":
                plan[f.number] = (f, "ts")
            elif name == "google.protobuf.Duration":
                plan[f.number] = (f, "dur")
            elif name in _SKIP:
                continue
            elif f.message_type.GetOptions().map_entry:
                value = f.message_type.fields_by_name["value"]
                if value.type == FieldDescriptor.TYPE_ENUM or (
                    value.type == FieldDescriptor.TYPE_MESSAGE and _needs_walk(value.message_type)
                ):
                    plan[f.number] = (f, "map")
            elif _needs_walk(f.message_type):
                plan[f.number] = (f, "msg")
    _planning.discard(d.full_name)
    _plans[d.full_name] = plan
    return plan


def _needs_walk(d: Any) -> bool:
    name = d.full_name
    if name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
        return True
    if name in _SKIP:
        return False
    if name in _planning:
        return True  # being planned (recursive): walk it, its plan decides
    return bool(_plan(d))


def problem(message: Any, prefix: str = "") -> tuple[str, str] | None:
    """(field path, what is wrong) for the first out-of-range value in `message`, or None."""
    plan = _plan(message.DESCRIPTOR)
    if not plan:
        return None
    for f, value in message.ListFields():
        entry = plan.get(f.number)
        if entry is None:
            continue
        kind = entry[1]
        path = f"{prefix}{f.name}"
        if kind == "map":
            vf = f.message_type.fields_by_name["value"]
            for key, item in value.items():
                found = _one(vf, _kind_of(vf), item, f"{path}[{key!r}]")
                if found:
                    return found
        elif f.is_repeated:
            for i, item in enumerate(value):
                found = _one(f, kind, item, f"{path}[{i}]")
                if found:
                    return found
        else:
            found = _one(f, kind, value, path)
            if found:
                return found
    return None


def _kind_of(f: Any) -> str:
    if f.type == FieldDescriptor.TYPE_ENUM:
        return "enum"
    name = f.message_type.full_name
    return "ts" if name == "google.protobuf.Timestamp" else "dur" if name == "google.protobuf.Duration" else "msg"


def _one(f: Any, kind: str, value: Any, path: str) -> tuple[str, str] | None:
    if kind == "enum":
        if value not in f.enum_type.values_by_number:
            return path, f"{value} is not a value of {f.enum_type.name}"
        return None
    if kind == "ts":
        if not TIMESTAMP_MIN <= value.seconds <= TIMESTAMP_MAX or not 0 <= value.nanos <= _NANOS:
            return path, "a timestamp must lie between 0001-01-01 and 9999-12-31 (nanos 0..999999999)"
        return None
    if kind == "dur":
        s, n = value.seconds, value.nanos
        if not -DURATION_MAX <= s <= DURATION_MAX or not -_NANOS <= n <= _NANOS or (s > 0 > n) or (s < 0 < n):
            return path, "a duration must be within 100 years, its seconds and nanos of one sign"
        return None
    return problem(value, f"{path}.")


# ---- the interceptor ----------------------------------------------------------------------------------


class _LogThrottle:
    """One log line per interval, saying how many malformed requests came in since the last one."""

    def __init__(self, interval: float = 10.0) -> None:
        self.interval = interval
        self._last = 0.0
        self._count = 0

    def note(self, method: str, peer: str, what: str) -> None:
        self._count += 1
        now = time.monotonic()
        if now - self._last >= self.interval:
            log.warning(
                "malformed request refused",
                extra={"method": method, "peer": peer, "problem": what, "refused_since_last_line": self._count},
            )
            self._last, self._count = now, 0


class HygieneInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self) -> None:
        self._throttle = _LogThrottle()
        self.refused = 0
        self._wrapped = Wrapped()

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        handler = await continuation(details)
        if handler is None or handler.request_deserializer is None:
            return handler
        method: str = details.method
        return self._wrapped.get((method, handler), lambda: self._wrap(handler, method))

    def _wrap(self, handler: Any, method: str) -> Any:
        parse = _deserializer(handler.request_deserializer)
        if handler.unary_unary:
            return handler._replace(request_deserializer=parse, unary_unary=self._unary(handler.unary_unary, method))
        if handler.unary_stream:
            return handler._replace(
                request_deserializer=parse, unary_stream=self._unary_stream(handler.unary_stream, method)
            )
        if handler.stream_unary:
            return handler._replace(
                request_deserializer=parse, stream_unary=self._stream_in(handler.stream_unary, method, False)
            )
        return handler._replace(
            request_deserializer=parse, stream_stream=self._stream_in(handler.stream_stream, method, True)
        )

    def _refuse(self, bad: Malformed, method: str, context: Any) -> InvalidArgument:
        self.refused += 1
        self._throttle.note(method, context.peer(), bad.message)
        return InvalidArgument(bad.message, reason="MALFORMED_REQUEST" if not bad.field else None, field=bad.field)

    def _unary(self, fn: Any, method: str) -> Any:
        async def behavior(request: Any, context: Any) -> Any:
            if type(request) is Malformed:
                await abort(context, self._refuse(request, method, context))
            return await fn(request, context)

        return behavior

    def _unary_stream(self, fn: Any, method: str) -> Any:
        async def behavior(request: Any, context: Any) -> AsyncIterator[Any]:
            if type(request) is Malformed:
                await abort(context, self._refuse(request, method, context))
            result = fn(request, context)
            if hasattr(result, "__aiter__"):
                async for item in result:
                    yield item
            else:
                await result

        return behavior

    def _stream_in(self, fn: Any, method: str, streaming_out: bool) -> Any:
        interceptor = self

        async def checked(requests: Any, context: Any) -> AsyncIterator[Any]:
            async for message in requests:
                if type(message) is Malformed:
                    # Raised inside the servicer's loop: its error translation answers INVALID_ARGUMENT.
                    raise interceptor._refuse(message, method, context)
                yield message

        if not streaming_out:

            async def unary_out(requests: Any, context: Any) -> Any:
                return await fn(checked(requests, context), context)

            return unary_out

        async def stream_out(requests: Any, context: Any) -> AsyncIterator[Any]:
            result = fn(checked(requests, context), context)
            if hasattr(result, "__aiter__"):
                async for item in result:
                    yield item
            else:
                await result

        return stream_out


def _deserializer(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        try:
            message = parse(data)
        except Exception:
            return Malformed("the request is not a valid protobuf message of the method's request type")
        try:
            found = problem(message)
        except Exception:  # a bug in this check must not refuse good requests
            log.exception("request hygiene: checking a %s failed", type(message).__name__)
            return message
        if found is not None:
            path, what = found
            return Malformed(f"{path}: {what}", path)
        return message

    return deserialize
