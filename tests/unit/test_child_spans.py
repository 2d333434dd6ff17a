"""The sidecar's tracer: a child span of a recording span (the guardrail chain's) reaches the span processors
as the SDK's own span would (name, ids, parent, kind, attributes, events, status, times, limits), and every
other span is the SDK's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace import Span as SdkSpan
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from server.telemetry.child_spans import ChildSpan
from server.telemetry.sdk import Telemetry, build_telemetry
from server.telemetry.settings import TelemetrySettings


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    t = build_telemetry(TelemetrySettings(enabled=True, metrics=False))
    yield t
    t.shutdown()


def _spans(t: Telemetry) -> list[ReadableSpan]:
    assert t.recent is not None
    return [s for spans in t.recent._traces.values() for s in spans]


def _record_one(t: Telemetry, light: bool) -> ReadableSpan:
    """One guardrail-like child span under a server span, through the sidecar's tracer or the SDK's."""
    tracer = t.tracer.sdk if not light else t.tracer  # type: ignore[attr-defined]
    with t.tracer.start_as_current_span("server", kind=SpanKind.SERVER):
        child = tracer.start_span("guardrail cap", attributes={"outrider.guardrail.name": "cap", "n": 1})
        assert isinstance(child, ChildSpan if light else SdkSpan)
        child.set_attributes({"outrider.guardrail.verdict": "block", "ok": True, "ratio": 0.5})
        child.set_attribute("list", ["a", "b"])
        child.add_event("budget.signal", {"outrider.signal": "SIGWARN"}, timestamp=5)
        child.set_status(Status(StatusCode.ERROR, "Guardrail error: boom"))
        child.set_status(StatusCode.UNSET)  # ignored, as by the SDK
        started = getattr(child, "start_time", None)
        assert isinstance(started, int)
        child.end(end_time=started + 1000)
        assert not child.is_recording()
        child.set_attribute("late", 1)  # after the end: ignored
    return next(s for s in _spans(t) if s.name == "guardrail cap")


def test_a_child_span_reaches_the_processors_as_the_sdks_would(telemetry: Telemetry) -> None:
    ours = _record_one(telemetry, light=True)
    theirs = _record_one(telemetry, light=False)
    server = next(s for s in _spans(telemetry) if s.name == "server" and s.context.trace_id == ours.context.trace_id)
    assert ours.parent == server.context and ours.context.trace_id == server.context.trace_id
    assert ours.context.span_id not in (0, server.context.span_id) and not ours.context.is_remote
    assert ours.context.trace_flags == theirs.context.trace_flags
    assert dict(ours.attributes or {}) == dict(theirs.attributes or {})
    assert (ours.attributes or {})["list"] == ("a", "b")  # cleaned to a tuple, as the SDK keeps sequences
    assert [(e.name, e.timestamp, dict(e.attributes or {})) for e in ours.events] == [
        (e.name, e.timestamp, dict(e.attributes or {})) for e in theirs.events
    ]
    assert (ours.status.status_code, ours.status.description) == (StatusCode.ERROR, "Guardrail error: boom")
    assert (ours.kind, ours.resource, ours.instrumentation_scope) == (
        theirs.kind,
        theirs.resource,
        theirs.instrumentation_scope,
    )
    assert ours.end_time - ours.start_time == 1000  # type: ignore[operator]


def test_the_sdks_limits_apply_to_a_child_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "4")
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "2")
    t = build_telemetry(TelemetrySettings(enabled=True, metrics=False))
    try:
        with t.tracer.start_as_current_span("server"):
            child = t.tracer.start_span("c", attributes={"a": "long value", "b": "x", "c": "y"})
            assert isinstance(child, ChildSpan)
            child.end()
        span = next(s for s in _spans(t) if s.name == "c")
        assert dict(span.attributes or {}) == {"b": "x", "c": "y"} and span.dropped_attributes == 1
    finally:
        t.shutdown()


def test_other_spans_are_the_sdks(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer
    assert isinstance(tracer.start_span("a root"), SdkSpan)  # no parent
    remote = SpanContext(7, 8, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    assert isinstance(tracer.start_span("remote", trace.set_span_in_context(NonRecordingSpan(remote))), SdkSpan)
    with tracer.start_as_current_span("server") as server:
        assert isinstance(server, SdkSpan)
        assert isinstance(tracer.start_span("client", kind=SpanKind.CLIENT), SdkSpan)
        assert isinstance(tracer.start_span("linked", links=[Link(remote)]), SdkSpan)
        child = tracer.start_span("guardrail hitl")
        # The approval wait: a current span under the child span, the SDK's.
        with tracer.start_as_current_span("approval wait", context=trace.set_span_in_context(child)) as wait:
            assert isinstance(wait, SdkSpan)
        child.end()
    spans = {s.name: s for s in _spans(telemetry)}
    assert spans["approval wait"].parent == spans["guardrail hitl"].context
    assert spans["guardrail hitl"].parent == spans["server"].context


def test_an_unsampled_parent_gets_no_child_span() -> None:
    t = build_telemetry(TelemetrySettings(enabled=True, sampler="parentbased_always_off", metrics=False))
    try:
        with t.tracer.start_as_current_span("server"):
            child = t.tracer.start_span("c")
            assert not child.is_recording() and not isinstance(child, ChildSpan)
            child.end()
        assert t.recent is not None and len(t.recent) == 0
    finally:
        t.shutdown()
