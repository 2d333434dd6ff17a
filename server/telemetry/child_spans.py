"""The sidecar's tracer: the SDK's, with a cheaper span object for the spans every call makes (the RPC's
server span, made current, and the guardrail chain's five children of it, not made current).

The SDK's span takes a lock per attribute write, cleans every value into a bounded mapping as it is set,
builds bounded lists for events and links up front, and at its end copies itself into a `ReadableSpan`
for the span processors. A `LightSpan` keeps its attributes in a plain dict and its events in a list while
it runs; at its end it applies the SDK's limits (the same bounded mapping and list when anything is to be
cleaned, counted or cut) and hands *itself* to the same span processors (the console's buffer, the batch
exporter): it is the SDK's `Span` type, readable like the SDK's, with the same name, ids, trace flags and
state, parent, kind, attributes in the same order, events, links, status and times. A span made current
goes through the same sampler call as the SDK's (`_start` mirrors the SDK's `Tracer.start_span`); its
context manager does what the SDK's `use_span` does (attach, detach, the exception recorded and the status
set as asked, the end). Spans with links, and spans not made current (`start_span`) other than an INTERNAL
child of a recording local span, are the SDK's.

Not called for a `LightSpan`: the processors' `on_start` and `_on_ending` (the sidecar's processors, the
console's buffer and the batch exporter, do nothing there; one that needs them sees the SDK's spans only).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from time import time_ns
from typing import Any

from opentelemetry import context as context_api
from opentelemetry import trace
from opentelemetry.attributes import BoundedAttributes, _clean_attribute_value
from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event, SpanLimits
from opentelemetry.sdk.trace import Span as SdkSpan
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace._tracer_metrics import NoOpTracerMetrics
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.sdk.util import BoundedList
from opentelemetry.trace import Link, NonRecordingSpan, Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.util import types

from server.telemetry.otlp_spans import UNSET_STATUS

_PLAIN = frozenset((str, bool, int, float))
_UNSET = UNSET_STATUS
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)
_NOT_SAMPLED = TraceFlags(TraceFlags.DEFAULT)
_RECORD_AND_SAMPLE = Decision.RECORD_AND_SAMPLE
_ABSENT = object()


def _nothing() -> None:
    return None


class SidecarTracer(trace.Tracer):
    """`sdk` with `LightSpan`s for current spans without links and for `start_span` of an INTERNAL,
    link-less child of a recording local span."""

    def __init__(self, sdk: SdkTracer, limits: SpanLimits) -> None:
        self.sdk = sdk
        self.limits = limits
        self.processor = sdk.span_processor
        self.resource = sdk.resource
        self.scope = getattr(sdk, "_instrumentation_scope", None)
        self.info = sdk.instrumentation_info
        self.sampler = sdk.sampler
        self.ids = sdk.id_generator
        self.new_span_id = sdk.id_generator.generate_span_id
        self.tracer_metrics = sdk._tracer_metrics
        self.count_spans = not isinstance(self.tracer_metrics, NoOpTracerMetrics)  # the SDK's own metrics
        self.max_attributes = limits.max_span_attributes
        self.plain_values = limits.max_span_attribute_length is None  # nothing to cut at the end

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[Link] | None = (),
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> Span:
        parent = trace.get_current_span(context)
        pc = parent.get_span_context()
        light = kind is SpanKind.INTERNAL and not links and not pc.is_remote and pc.trace_flags.sampled
        if not light or not parent.is_recording():
            return self.sdk.start_span(
                name, context, kind, attributes, links, start_time, record_exception, set_status_on_exception
            )
        # A sampled local parent: the parent-based samplers keep the child, a ratio gives the parent's answer.
        ctx = SpanContext(pc.trace_id, self.new_span_id(), False, pc.trace_flags, pc.trace_state)
        ended = self.tracer_metrics.start_span(pc, _RECORD_AND_SAMPLE) if self.count_spans else _nothing
        return LightSpan(
            self,
            name,
            ctx,
            pc,
            attributes,
            time_ns() if start_time is None else start_time,
            kind,
            record_exception,
            set_status_on_exception,
            ended,
        )

    def start_as_current_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[Link] | None = (),
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        end_on_exit: bool = True,
    ) -> Any:
        if links or not self.sdk._is_enabled():
            return self.sdk.start_as_current_span(
                name,
                context,
                kind,
                attributes,
                links,
                start_time,
                record_exception,
                set_status_on_exception,
                end_on_exit,
            )
        return _Current(
            self, (name, context, kind, attributes, start_time, record_exception, set_status_on_exception), end_on_exit
        )

    def _start(
        self,
        name: str,
        context: Context | None,
        kind: SpanKind,
        attributes: types.Attributes,
        start_time: int | None,
        record_exception: bool,
        set_status_on_exception: bool,
    ) -> Span:
        """The SDK's `Tracer.start_span` without links: the same sampler call, ids, flags and trace state."""
        parent: SpanContext | None = trace.get_current_span(context).get_span_context()
        if parent is None or not parent.is_valid:
            parent = None
            trace_id = self.ids.generate_trace_id()
            random_trace_id = self.ids.is_trace_id_random()
        else:
            trace_id = parent.trace_id
            random_trace_id = parent.trace_flags.random_trace_id
        result = self.sampler.should_sample(context, trace_id, name, kind, attributes, ())
        flags = _SAMPLED if result.decision.is_sampled() else _NOT_SAMPLED  # type: ignore[no-untyped-call]
        if random_trace_id:
            flags = TraceFlags(flags | TraceFlags.RANDOM_TRACE_ID)
        ctx = SpanContext(trace_id, self.new_span_id(), False, flags, result.trace_state)
        ended = self.tracer_metrics.start_span(parent, result.decision) if self.count_spans else _nothing
        if not result.decision.is_recording():  # type: ignore[no-untyped-call]
            return NonRecordingSpan(ctx)
        return LightSpan(
            self,
            name,
            ctx,
            parent,
            result.attributes,
            time_ns() if start_time is None else start_time,
            kind,
            record_exception,
            set_status_on_exception,
            ended,
        )

    def _attributes(self, span: LightSpan) -> Any:
        """A span's attributes as the SDK would keep them: its plain dict when every value is a plain scalar
        and nothing was dropped or is to be cut, else the SDK's bounded mapping (strings cut to the length
        limit, the drops counted)."""
        attributes = span._attributes
        if self.plain_values and not span._dropped and not span._cleaned:
            return attributes
        limits = self.limits
        bounded = BoundedAttributes(limits.max_span_attributes, attributes, True, limits.max_span_attribute_length)
        bounded.dropped += span._dropped
        return bounded

    def _events(self, events: list[Event]) -> BoundedList[Any]:
        limits = self.limits
        return BoundedList.from_seq(
            limits.max_events,
            [
                Event(
                    e.name,
                    BoundedAttributes(limits.max_event_attributes, e.attributes, True, limits.max_attribute_length),
                    e.timestamp,
                )
                for e in events
            ],
        )

    def _links(self, links: list[Link]) -> BoundedList[Any]:
        limits = self.limits
        return BoundedList.from_seq(
            limits.max_links,
            [
                Link(
                    link.context,
                    BoundedAttributes(limits.max_link_attributes, link.attributes, True, limits.max_attribute_length),
                )
                for link in links
            ],
        )


# `SidecarTracer._start`'s arguments: name, context, kind, attributes, start time, record_exception,
# set_status_on_exception.
_StartArgs = tuple[str, Context | None, SpanKind, types.Attributes, int | None, bool, bool]


class _Current:
    """`start_as_current_span`'s context manager (and decorator): the span starts on entry and is the
    current one inside; on exit, as the SDK's `use_span`: the context detached, an `Exception` recorded and
    the status set as asked, the span ended (if `end_on_exit`)."""

    __slots__ = ("args", "end_on_exit", "record_exception", "set_status", "span", "token", "tracer")

    def __init__(self, tracer: SidecarTracer, args: _StartArgs, end_on_exit: bool) -> None:
        self.tracer = tracer
        self.args = args  # `SidecarTracer._start`'s, in its order
        self.record_exception = args[5]
        self.set_status = args[6]
        self.end_on_exit = end_on_exit

    def __enter__(self) -> Span:
        span = self.span = self.tracer._start(*self.args)
        self.token = context_api.attach(trace.set_span_in_context(span))
        return span

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        span = self.span
        try:
            context_api.detach(self.token)
            if isinstance(exc, Exception) and span.is_recording():
                if self.record_exception:
                    span.record_exception(exc)
                if self.set_status:
                    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
        finally:
            if self.end_on_exit:
                span.end()

    def _again(self) -> _Current:
        return _Current(self.tracer, self.args, self.end_on_exit)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """As a decorator: a span per call (for a coroutine function, around the whole coroutine)."""
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with self._again():
                    return await fn(*args, **kwargs)

            return run_async

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self._again():
                return fn(*args, **kwargs)

        return run


class LightSpan(SdkSpan):
    """The SDK's span type with plain containers while it runs (see the module's docstring); ended, it is
    its own `ReadableSpan`."""

    def __init__(  # not the SDK's: no lock, bounded mapping or lists until the end
        self,
        tracer: SidecarTracer,
        name: str,
        context: SpanContext,
        parent: SpanContext | None,
        attributes: types.Attributes,
        start_time: int,
        kind: SpanKind = SpanKind.INTERNAL,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        ended: Callable[[], None] = _nothing,
    ) -> None:
        self._tracer = tracer
        self._name = name
        self._context = context
        self._parent = parent
        self._kind = kind
        self._resource = tracer.resource
        self._instrumentation_info = tracer.info
        self._instrumentation_scope = tracer.scope
        self._attributes: Any = {}
        self._dropped = 0  # attributes dropped on the way (the count limit, invalid keys), as the SDK counts
        self._cleaned = False  # a value that is not a plain scalar was set (cleaned as the SDK cleans it)
        self._events: Any = ()  # a list from the first event on
        self._links: Any = ()
        self._status = _UNSET
        self._start_time: int | None = start_time
        self._end_time: int | None = None
        self._record_exception = record_exception
        self._set_status_on_exception = set_status_on_exception
        self._record_end_metrics = ended
        if attributes:
            self.set_attributes(attributes)

    def get_span_context(self) -> SpanContext:
        return self._context  # type: ignore[return-value]  # always set here

    def is_recording(self) -> bool:
        return self._end_time is None

    def set_attributes(self, attributes: Mapping[str, types.AnyValue]) -> None:
        if self._end_time is not None:
            return
        mine = self._attributes
        limit = self._tracer.max_attributes
        for key, value in attributes.items():
            if value.__class__ not in _PLAIN or key.__class__ is not str or not key:
                break
            # As the SDK's bounded mapping: a key set again moves to the end; over the count limit, the
            # oldest goes (and is counted). (`pop`, one step, for a span written from two threads at once.)
            if mine.pop(key, _ABSENT) is _ABSENT and limit is not None and len(mine) >= limit:
                self._evict()
                if limit == 0:
                    continue
            mine[key] = value
        else:
            return
        # Something to clean: as the SDK does, the whole mapping first (invalid keys dropped, values made
        # valid), then each in turn (those set above again, which leaves them where they are).
        cleaned = _clean_attribute_value(attributes, None)
        self._dropped += len(attributes) - len(cleaned)
        self._cleaned = True
        for key, value in cleaned.items():
            self._put(key, value)

    def set_attribute(self, key: str, value: types.AnyValue) -> None:
        if self._end_time is not None:
            return
        if not key or not isinstance(key, str):
            self._dropped += 1
            return
        if value.__class__ not in _PLAIN:
            value = _clean_attribute_value(value, None)
            self._cleaned = True
        self._put(key, value)

    def _put(self, key: str, value: Any) -> None:
        mine = self._attributes
        if mine.pop(key, _ABSENT) is _ABSENT:
            limit = self._tracer.max_attributes
            if limit is not None and len(mine) >= limit:
                self._evict()
                if limit == 0:
                    return
        mine[key] = value

    def _evict(self) -> None:
        """Make room under the count limit: the oldest attribute goes (a limit of 0 keeps nothing)."""
        self._dropped += 1
        mine = self._attributes
        if mine:
            mine.pop(next(iter(mine)), None)

    def add_event(self, name: str, attributes: types.Attributes = None, timestamp: int | None = None) -> None:
        if self._end_time is None:
            if not self._events:
                self._events = []
            self._events.append(Event(name, dict(attributes) if attributes else {}, timestamp))

    def add_link(self, context: SpanContext, attributes: types.Attributes = None) -> None:
        if self._end_time is None and context and (context.is_valid or attributes or context.trace_state):
            if not isinstance(self._links, list):
                self._links = []
            self._links.append(Link(context, dict(attributes) if attributes else {}))

    def update_name(self, name: str) -> None:
        if self._end_time is None:
            self._name = name

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        if self._end_time is not None or self._status.status_code is StatusCode.OK:
            return  # as the SDK: OK is final
        if isinstance(status, Status):
            if status.status_code is not StatusCode.UNSET:
                self._status = status
        elif status is not StatusCode.UNSET:
            self._status = Status(status, description)

    def start(self, start_time: int | None = None, parent_context: Context | None = None) -> None:
        return None  # started when made

    def end(self, end_time: int | None = None) -> None:
        if self._end_time is not None:
            return
        self._end_time = end_time if end_time is not None else time_ns()
        tracer = self._tracer
        self._attributes = tracer._attributes(self)
        if self._events:
            self._events = tracer._events(self._events)
        if self._links:
            self._links = tracer._links(self._links)
        self._record_end_metrics()  # type: ignore[misc]  # always set here
        tracer.processor.on_end(self)

    def _readable_span(self) -> LightSpan:
        return self
