"""The sidecar's tracer: a child span of a recording span (the guardrail chain's) and a current span (the
RPC's server span) reach the span processors as the SDK's own spans would (name, ids, trace flags and state,
parent, kind, attributes in order, events, links, status, times, limits: the same exported bytes), the
sampler decides as for the SDK's, exceptions are recorded as the SDK records them, and every other span is
the SDK's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as sdk_encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace import Span as SdkSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON, Sampler, TraceIdRatioBased
from opentelemetry.trace import Link, NonRecordingSpan, Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.trace.span import TraceState

from server.telemetry.child_spans import LightSpan, SidecarTracer
from server.telemetry.otlp_spans import encode_spans
from server.telemetry.sdk import INSTRUMENTATION, VERSION, Telemetry, build_telemetry
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
        assert isinstance(child, LightSpan if light else SdkSpan)
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
            assert isinstance(child, LightSpan)
            child.end()
        span = next(s for s in _spans(t) if s.name == "c")
        assert dict(span.attributes or {}) == {"b": "x", "c": "y"} and span.dropped_attributes == 1
    finally:
        t.shutdown()


def test_other_spans_are_the_sdks(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer
    remote = SpanContext(7, 8, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    assert type(tracer.start_span("a root")) is not LightSpan  # not current, no parent
    assert type(tracer.start_span("remote", trace.set_span_in_context(NonRecordingSpan(remote)))) is not LightSpan
    with tracer.start_as_current_span("server") as server:
        assert isinstance(server, LightSpan) and isinstance(server, SdkSpan)  # the SDK's type, lighter
        assert type(tracer.start_span("client", kind=SpanKind.CLIENT)) is not LightSpan
        assert type(tracer.start_span("linked", links=[Link(remote)])) is not LightSpan
        with tracer.start_as_current_span("current, linked", links=[Link(remote)]) as linked:
            assert type(linked) is not LightSpan and isinstance(linked, SdkSpan)
        child = tracer.start_span("guardrail hitl")
        # The approval wait: a current span under the child span.
        with tracer.start_as_current_span("approval wait", context=trace.set_span_in_context(child)) as wait:
            assert isinstance(wait, LightSpan) and trace.get_current_span() is wait
        assert trace.get_current_span() is server
        child.end()
    assert not trace.get_current_span().is_recording()
    spans = {s.name: s for s in _spans(telemetry)}
    assert spans["approval wait"].parent == spans["guardrail hitl"].context
    assert spans["guardrail hitl"].parent == spans["server"].context
    assert spans["current, linked"].parent == spans["server"].context


def test_an_unsampled_parent_gets_no_child_span() -> None:
    t = build_telemetry(TelemetrySettings(enabled=True, sampler="parentbased_always_off", metrics=False))
    try:
        with t.tracer.start_as_current_span("server"):
            child = t.tracer.start_span("c")
            assert not child.is_recording() and not isinstance(child, LightSpan)
            child.end()
        assert t.recent is not None and len(t.recent) == 0
    finally:
        t.shutdown()


# ---- the current span (the RPC's server span) against the SDK's ---------------------------------------


class _Ids(IdGenerator):
    """Ids from a counter: two tracers given one each make the same ids in the same order."""

    def __init__(self) -> None:
        self.n = 0

    def generate_span_id(self) -> int:
        self.n += 1
        return 0x1000 + self.n

    def generate_trace_id(self) -> int:
        self.n += 1
        # Spread over the id space, so a ratio sampler keeps some and drops others.
        return (self.n * 0x9E3779B97F4A7C15F39CC0605CEDC834) % (1 << 128) or 1

    def is_trace_id_random(self) -> bool:
        return True


_RESOURCE = Resource.create({"service.name": "outrider-test", "service.instance.id": "i-1"})


def _pair(
    sampler: Sampler | None = None,
) -> tuple[SidecarTracer, trace.Tracer, InMemorySpanExporter, InMemorySpanExporter]:
    """The sidecar's tracer and the SDK's, same resource, scope, limits, sampler and id sequence."""
    tracers: list[Any] = []
    memories: list[InMemorySpanExporter] = []
    for _ in range(2):
        memory = InMemorySpanExporter()
        provider = TracerProvider(
            sampler=sampler or ALWAYS_ON, resource=_RESOURCE, id_generator=_Ids(), shutdown_on_exit=False
        )
        provider.add_span_processor(SimpleSpanProcessor(memory))
        tracers.append(provider.get_tracer(INSTRUMENTATION, VERSION))
        memories.append(memory)
    return SidecarTracer(tracers[0], SpanLimits()), tracers[1], memories[0], memories[1]


def _call(tracer: trace.Tracer) -> None:
    """What a CheckAction does with spans, start and end times fixed: the server span continues a remote
    parent (with trace state); guardrail children; attributes set, set again, cleaned; an event; a link."""
    remote = SpanContext(
        0x0AF7651916CD43DD8448EB211C80319C,
        0xB7AD6B7169203331,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("vendor", "v1")]),
    )
    parent = trace.set_span_in_context(NonRecordingSpan(remote))
    attrs = {"rpc.system": "grpc", "rpc.service": "outrider.v1.SupervisorService", "rpc.method": "CheckAction"}
    with tracer.start_as_current_span(
        "outrider.v1.SupervisorService/CheckAction",
        context=parent,
        kind=SpanKind.SERVER,
        attributes=attrs,
        start_time=1_000,
        record_exception=False,
        set_status_on_exception=False,
        end_on_exit=False,
    ) as server:
        for i, verdict in enumerate(["allow", "warn", "block"]):
            child = tracer.start_span(
                f"guardrail g{i}", attributes={"outrider.guardrail.name": f"g{i}"}, start_time=2_000 + i
            )
            child.set_attributes({"outrider.guardrail.verdict": verdict, "outrider.guardrail.duration_ms": 0.25 * i})
            child.end(end_time=3_000 + i)
        server.set_attributes({"outrider.agent_id": "agent-1", "outrider.allowed": False, "outrider.warnings": 1})
        server.set_attributes({"outrider.tags": ["a", "b"], "outrider.ratio": 0.5})  # a list: cleaned to a tuple
        server.set_attributes({"outrider.none": None, "": "no key", 7: "a number as key"})  # type: ignore[dict-item]
        server.set_attribute("", 1)  # dropped and counted, as the SDK counts it
        server.set_attribute("outrider.object", Path("/tmp"))  # type: ignore[arg-type]  # made a string
        server.set_attribute("rpc.grpc.status_code", 0)
        server.set_attribute("rpc.system", "grpc")  # set again: moves to the end, as in the SDK's mapping
        server.add_event("budget.signal", {"outrider.signal": "SIGWARN", "outrider.used": 950}, timestamp=4_000)
        server.add_link(remote, {"link.why": "test"})
        server.update_name("outrider.v1.SupervisorService/CheckAction")
        server.set_status(Status(StatusCode.ERROR, "INTERNAL: boom"))
        assert trace.get_current_span() is server
    assert trace.get_current_span() is not server and server.is_recording()
    server.end(end_time=9_000)
    server.set_attribute("late", 1)  # after the end: ignored
    with tracer.start_as_current_span("a root", start_time=10_000, end_on_exit=False) as root:
        root.set_attribute("outrider.job", "prune")
    root.end(end_time=11_000)


def test_the_current_span_is_exported_byte_for_byte_as_the_sdks() -> None:
    ours, sdk, our_memory, sdk_memory = _pair()
    _call(ours)
    _call(sdk)
    mine, theirs = list(our_memory.get_finished_spans()), list(sdk_memory.get_finished_spans())
    assert [s.name for s in mine] == [s.name for s in theirs] and len(mine) == 5
    server = next(s for s in mine if s.kind is SpanKind.SERVER)
    assert isinstance(server, LightSpan) and server.parent is not None and server.parent.is_remote
    assert list((server.attributes or {}).keys())[-1] == "rpc.system"
    # The same request from both encoders, ours and the SDK's, whichever tracer made the spans.
    assert encode_spans(mine) == encode_spans(theirs) == sdk_encode_spans(theirs).SerializeToString()
    assert sdk_encode_spans(mine) == sdk_encode_spans(theirs)
    # And as the console's buffer reads them (the ReadableSpan properties).
    for a, b in zip(mine, theirs, strict=True):
        assert (a.context, a.parent, a.kind, a.status.status_code, a.status.description) == (
            b.context,
            b.parent,
            b.kind,
            b.status.status_code,
            b.status.description,
        )
        assert dict(a.attributes or {}) == dict(b.attributes or {}) and a.dropped_attributes == b.dropped_attributes
        assert [(e.name, e.timestamp, dict(e.attributes or {})) for e in a.events] == [
            (e.name, e.timestamp, dict(e.attributes or {})) for e in b.events
        ]
        assert [(link.context, dict(link.attributes or {})) for link in a.links] == [
            (link.context, dict(link.attributes or {})) for link in b.links
        ]
        assert (a.start_time, a.end_time, a.resource, a.instrumentation_scope) == (
            b.start_time,
            b.end_time,
            b.resource,
            b.instrumentation_scope,
        )
        assert json.loads(a.to_json()) == json.loads(b.to_json())


def test_the_sdks_limits_apply_to_the_current_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "4")
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "3")
    monkeypatch.setenv("OTEL_SPAN_EVENT_COUNT_LIMIT", "1")
    ours, sdk, our_memory, sdk_memory = _pair()
    _call(ours)
    _call(sdk)
    mine, theirs = list(our_memory.get_finished_spans()), list(sdk_memory.get_finished_spans())
    server = next(s for s in mine if s.kind is SpanKind.SERVER)
    assert server.dropped_attributes > 0 and all(
        len(v) <= 4 for v in (server.attributes or {}).values() if isinstance(v, str)
    )
    assert encode_spans(mine) == sdk_encode_spans(theirs).SerializeToString()


@pytest.mark.parametrize(("record", "set_status"), [(True, True), (False, False)])
def test_an_exception_in_the_block_is_recorded_as_the_sdk_records_it(record: bool, set_status: bool) -> None:
    ours, sdk, our_memory, sdk_memory = _pair()
    for tracer in (ours, sdk):
        block = tracer.start_as_current_span("fails", record_exception=record, set_status_on_exception=set_status)
        with pytest.raises(ValueError, match="boom"), block:
            raise ValueError("boom")
        # Not an Exception: neither recorded nor an error.
        with pytest.raises(asyncio.CancelledError), tracer.start_as_current_span("cancelled"):
            raise asyncio.CancelledError
        assert not trace.get_current_span().is_recording()
    for a, b in zip(our_memory.get_finished_spans(), sdk_memory.get_finished_spans(), strict=True):
        assert a.name == b.name and a.end_time is not None
        assert (a.status.status_code, a.status.description) == (b.status.status_code, b.status.description)
        assert [
            (e.name, {k: v for k, v in (e.attributes or {}).items() if k != "exception.stacktrace"}) for e in a.events
        ] == [
            (e.name, {k: v for k, v in (e.attributes or {}).items() if k != "exception.stacktrace"}) for e in b.events
        ]
    fails = next(s for s in our_memory.get_finished_spans() if s.name == "fails")
    assert (fails.status.status_code is StatusCode.ERROR) == set_status and bool(fails.events) == record


def test_the_sampler_decides_as_for_the_sdks_span() -> None:
    ours, sdk, our_memory, sdk_memory = _pair(TraceIdRatioBased(0.5))
    made: list[list[tuple[int, int, bool]]] = [[], []]
    for tracer, out in ((ours, made[0]), (sdk, made[1])):
        for i in range(40):
            with tracer.start_as_current_span(f"call {i}", kind=SpanKind.SERVER) as span:
                ctx = span.get_span_context()
                out.append((ctx.trace_id, ctx.trace_flags, span.is_recording()))
                assert trace.get_current_span() is span
    assert made[0] == made[1]
    assert 0 < sum(recording for _, _, recording in made[0]) < 40  # some kept, some dropped
    assert [s.name for s in our_memory.get_finished_spans()] == [s.name for s in sdk_memory.get_finished_spans()]


def test_the_current_span_decorates_functions_and_coroutines(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer

    @tracer.start_as_current_span("sync job")
    def job() -> Span:
        return trace.get_current_span()

    @tracer.start_as_current_span("async job")
    async def ajob() -> Span:
        await asyncio.sleep(0)
        return trace.get_current_span()

    first, second = job(), job()
    third = asyncio.run(ajob())
    assert first is not second and all(isinstance(s, LightSpan) for s in (first, second, third))
    names = [s.name for s in _spans(telemetry)]
    assert names.count("sync job") == 2 and names.count("async job") == 1
