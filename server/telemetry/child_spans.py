"""The sidecar's tracer: the SDK's, with a cheaper span for the children of a recording span that are not
made current (the guardrail chain's: five per CheckAction).

The SDK's span takes locks, bounded containers and a processor call at its start, then copies itself into a
`ReadableSpan` at its end. A `ChildSpan` keeps its attributes in a dict while it runs and builds the one
`ReadableSpan` at its end, with the SDK's limits applied then, and hands it to the same span processors (the
console's buffer, the batch exporter): the same span, name, parent, attributes, events and status reach
them. Everything else (`start_as_current_span`, root and remote-parented spans, links, other kinds) is the
SDK's.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping, Sequence
from time import time_ns
from typing import Any

from opentelemetry import trace
from opentelemetry.attributes import BoundedAttributes
from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanLimits
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.util import BoundedList
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Status, StatusCode
from opentelemetry.util import types

_PLAIN = frozenset((str, bool, int, float))


class SidecarTracer(trace.Tracer):
    """`sdk` with `ChildSpan`s for `start_span` of an INTERNAL, link-less child of a recording local span."""

    def __init__(self, sdk: SdkTracer, limits: SpanLimits) -> None:
        self.sdk = sdk
        self.limits = limits
        self.processor = sdk.span_processor
        self.resource = sdk.resource
        self.scope = getattr(sdk, "_instrumentation_scope", None)
        self.info = sdk.instrumentation_info
        self.new_span_id = sdk.id_generator.generate_span_id

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
        ctx = SpanContext(pc.trace_id, self.new_span_id(), False, pc.trace_flags, pc.trace_state)
        return ChildSpan(self, name, ctx, pc, attributes, start_time or time_ns())

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
        """The SDK's, unchanged: a span made current is one the SDK keeps."""
        return self.sdk.start_as_current_span(
            name, context, kind, attributes, links, start_time, record_exception, set_status_on_exception, end_on_exit
        )

    def _attributes(self, attributes: dict[str, Any]) -> Any:
        """The attributes as the SDK would keep them: a plain dict when every value is a plain scalar within
        the limits (nothing to clean, count or cut), else the SDK's bounded, cleaned mapping."""
        limits = self.limits
        if limits.max_span_attribute_length is None and (
            limits.max_span_attributes is None or len(attributes) <= limits.max_span_attributes
        ):
            for key, value in attributes.items():
                if value.__class__ not in _PLAIN or key.__class__ is not str or not key:
                    break
            else:
                return attributes
        return BoundedAttributes(limits.max_span_attributes, attributes, True, limits.max_span_attribute_length)

    def finish(self, span: ChildSpan) -> None:
        limits = self.limits
        events = None
        if span.events:
            events = BoundedList.from_seq(
                limits.max_events,
                [
                    Event(
                        e.name,
                        BoundedAttributes(limits.max_event_attributes, e.attributes, True, limits.max_attribute_length),
                        e.timestamp,
                    )
                    for e in span.events
                ],
            )
        readable = ReadableSpan(
            name=span.name,
            context=span.context,
            parent=span.parent,
            resource=self.resource,
            attributes=self._attributes(span.attributes),
            events=events if events is not None else (),
            links=(),
            kind=SpanKind.INTERNAL,
            instrumentation_info=self.info,
            status=span.status,
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=self.scope,
        )
        self.processor.on_end(readable)


class ChildSpan(Span):
    def __init__(
        self,
        tracer: SidecarTracer,
        name: str,
        context: SpanContext,
        parent: SpanContext,
        attributes: types.Attributes,
        start_time: int,
    ) -> None:
        self.tracer = tracer
        self.name = name
        self.context = context
        self.parent = parent
        self.attributes: dict[str, Any] = dict(attributes) if attributes else {}
        self.events: list[Event] = []
        self.status = Status(StatusCode.UNSET)
        self.start_time = start_time
        self.end_time: int | None = None

    def get_span_context(self) -> SpanContext:
        return self.context

    def is_recording(self) -> bool:
        return self.end_time is None

    def set_attributes(self, attributes: Mapping[str, types.AnyValue]) -> None:
        if self.end_time is None:
            self.attributes.update(attributes)

    def set_attribute(self, key: str, value: types.AnyValue) -> None:
        if self.end_time is None:
            self.attributes[key] = value

    def add_event(self, name: str, attributes: types.Attributes = None, timestamp: int | None = None) -> None:
        if self.end_time is None:
            self.events.append(Event(name, dict(attributes) if attributes else {}, timestamp or time_ns()))

    def update_name(self, name: str) -> None:
        if self.end_time is None:
            self.name = name

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        if self.end_time is not None or self.status.status_code is StatusCode.OK:
            return  # as the SDK: OK is final
        if isinstance(status, Status):
            if status.status_code is not StatusCode.UNSET:
                self.status = status
        elif status is not StatusCode.UNSET:
            self.status = Status(status, description)

    def record_exception(
        self,
        exception: BaseException,
        attributes: types.Attributes = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        kind = type(exception)
        module = kind.__module__
        attrs: dict[str, Any] = {
            "exception.type": f"{module}.{kind.__qualname__}" if module and module != "builtins" else kind.__qualname__,
            "exception.message": str(exception),
            "exception.stacktrace": "".join(traceback.format_exception(exception)),
            "exception.escaped": str(escaped),
        }
        if attributes:
            attrs.update(attributes)
        self.add_event("exception", attrs, timestamp)

    def end(self, end_time: int | None = None) -> None:
        if self.end_time is not None:
            return
        self.end_time = end_time if end_time is not None else time_ns()
        self.tracer.finish(self)
