"""The sidecar's OTLP span encoder against the SDK's: the same request, byte for byte and decoded, for spans
with every attribute type, events, links, status, trace state, dropped counts, several resources and scopes;
and the exporter built on it delivers every span of a batch to a real OTLP/gRPC receiver."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as sdk_encode_spans
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    set_span_in_context,
)
from opentelemetry.trace.span import TraceState

from server.telemetry import otlp_spans
from server.telemetry.otlp_spans import encode_spans
from server.telemetry.sdk import span_exporter
from server.telemetry.settings import TelemetrySettings

Request = trace_service_pb2.ExportTraceServiceRequest

EVERY_TYPE: dict[str, Any] = {
    "str": "guardrail cost-cap",
    "str.empty": "",
    "str.unicode": "Kosten über 140 € — 検査",
    "str.long": "x" * 5000,
    "bool.true": True,
    "bool.false": False,
    "int.zero": 0,
    "int.small": 7,
    "int.big": 2**62 + 12345,
    "int.negative": -1,
    "int.min": -(2**63),
    "float": 0.125,
    "float.zero": 0.0,
    "float.negative": -3.5e-9,
    "strs": ("a", "", "ü"),
    "bools": (True, False),
    "ints": (1, -2, 2**40),
    "floats": (1.5, -0.0),
    "empty.tuple": (),
}


def _spans(limits: SpanLimits | None = None) -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    resource = Resource.create({"service.name": "outrider-test", "service.instance.id": "abc", "n": 3}, "https://s/1")
    provider = TracerProvider(resource=resource, span_limits=limits, shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    other = TracerProvider(resource=Resource.create({"service.name": "plugin"}), shutdown_on_exit=False)
    other.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("outrider", "0.1.0", schema_url="https://s/scope", attributes={"scope.attr": 1})
    bare = provider.get_tracer("")
    remote = SpanContext(
        0x0AF7651916CD43DD8448EB211C80319C,
        0xB7AD6B7169203331,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("vendor", "v1"), ("other", "x-y")]),
    )
    local_link = SpanContext(0x1, 0x2, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    with tracer.start_as_current_span(
        "outrider.v1.SupervisorService/CheckAction",
        context=set_span_in_context(NonRecordingSpan(remote)),
        kind=SpanKind.SERVER,
        attributes=EVERY_TYPE,
        links=[Link(remote, {"link.attr": "a", "link.n": 2}), Link(local_link)],
    ) as server:
        server.add_event("no.attributes")
        server.add_event("budget.signal", {"outrider.used": 12.5, "outrider.signal": "SIGWARN"}, timestamp=123)
        for i, verdict in enumerate(["allow", "warn", "block"]):
            child = tracer.start_span(f"guardrail g{i}", attributes={"outrider.guardrail.name": f"g{i}"})
            child.set_attributes({"outrider.guardrail.verdict": verdict, "outrider.guardrail.duration_ms": 0.01 * i})
            if verdict == "block":
                child.set_status(Status(StatusCode.ERROR, "Guardrail error: boom"))
            child.end()
        server.set_status(Status(StatusCode.OK))
    with bare.start_as_current_span("root, bare scope", kind=SpanKind.CLIENT):
        pass
    for kind in (SpanKind.PRODUCER, SpanKind.CONSUMER, SpanKind.INTERNAL):
        with other.get_tracer("plugin").start_as_current_span(f"plugin {kind.name}", kind=kind) as s:
            s.set_attribute("outrider.plugin", kind.name)
    spans = list(memory.get_finished_spans())
    provider.shutdown()
    other.shutdown()
    return spans


def _same_as_sdk(spans: list[ReadableSpan]) -> bytes:
    ours = encode_spans(spans)
    theirs = sdk_encode_spans(spans)
    assert Request.FromString(ours) == theirs
    assert ours == theirs.SerializeToString()
    return ours


def test_every_attribute_type_event_link_status_and_grouping_encode_as_the_sdk_does() -> None:
    spans = _spans()
    request = Request.FromString(_same_as_sdk(spans))
    # What the comparison covers: two resources, two scopes in the first, every span.
    assert [len(rs.scope_spans) for rs in request.resource_spans] == [2, 1]
    assert sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans) == len(spans) == 8
    server = request.resource_spans[0].scope_spans[0].spans[-1]
    assert server.name == "outrider.v1.SupervisorService/CheckAction" and server.trace_state
    assert len(server.attributes) == len(EVERY_TYPE) and len(server.events) == 2 and len(server.links) == 2


def test_dropped_attributes_events_and_links_are_counted_as_the_sdk_does() -> None:
    spans = _spans(SpanLimits(max_span_attributes=4, max_events=1, max_links=1, max_event_attributes=1))
    request = Request.FromString(_same_as_sdk(spans))
    server = request.resource_spans[0].scope_spans[0].spans[-1]
    assert server.dropped_attributes_count > 0 and server.dropped_events_count == 1
    assert server.dropped_links_count == 1 and server.events[0].dropped_attributes_count == 1


def test_repeated_values_are_served_from_the_cache_and_the_cache_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spans = _spans()
    first = encode_spans(spans)
    assert encode_spans(spans) == first  # the second time from the cache
    monkeypatch.setattr(otlp_spans, "_CACHE_MAX", 3)
    otlp_spans._kv_cache.clear()
    assert _same_as_sdk(spans) == first
    assert len(otlp_spans._kv_cache) <= 3


def test_an_attribute_that_cannot_be_encoded_is_left_out_as_the_sdk_leaves_it() -> None:
    spans = _spans()
    server = next(s for s in spans if s.kind is SpanKind.SERVER)
    # The SDK's attribute cleaning does not check the int64 range; its encoder leaves such a value out.
    server._attributes._dict["int.too.big"] = 2**64  # type: ignore[union-attr]
    _same_as_sdk(spans)
    decoded = Request.FromString(encode_spans(spans)).resource_spans[0].scope_spans[0].spans[-1]
    assert "int.too.big" not in {kv.key for kv in decoded.attributes}


class _Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    """A real OTLP/gRPC trace receiver that keeps every request."""

    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.lock = threading.Lock()

    def Export(self, request: Any, context: Any) -> Any:
        with self.lock:
            self.requests.append(request)
        return trace_service_pb2.ExportTraceServiceResponse()

    def spans(self) -> list[Any]:
        with self.lock:
            return [s for r in self.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]


@pytest.fixture
def receiver() -> Iterator[tuple[_Receiver, int]]:
    keeper = _Receiver()
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(keeper, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield keeper, port
    server.stop(None)


def test_the_exporter_delivers_every_span_of_every_batch_to_a_real_receiver(receiver: tuple[_Receiver, int]) -> None:
    keeper, port = receiver
    exporter = span_exporter(TelemetrySettings(enabled=True, endpoint=f"http://127.0.0.1:{port}", protocol="grpc"))
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=64))
    tracer = provider.get_tracer("outrider")
    try:
        for i in range(300):  # several batches
            with tracer.start_as_current_span("outrider.v1.SupervisorService/CheckAction") as server:
                server.set_attribute("outrider.decision_id", f"d-{i}")
                tracer.start_span("guardrail root", attributes={"outrider.guardrail.verdict": "allow"}).end()
        assert provider.force_flush(30_000)
    finally:
        provider.shutdown()
    got = keeper.spans()
    assert len(got) == 600
    ids = {kv.value.string_value for s in got for kv in s.attributes if kv.key == "outrider.decision_id"}
    assert ids == {f"d-{i}" for i in range(300)}
    assert sum(1 for s in got if s.name == "guardrail root") == 300


def test_the_exporter_sends_what_the_sdk_would(receiver: tuple[_Receiver, int]) -> None:
    keeper, port = receiver
    spans = _spans()
    exporter = span_exporter(TelemetrySettings(enabled=True, endpoint=f"http://127.0.0.1:{port}", protocol="grpc"))
    try:
        assert exporter.export(spans) is SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()
    assert keeper.requests == [sdk_encode_spans(spans)]


# ---- the sidecar's pipeline: spans encoded as they end, batched, exported -----------------------------


def _one_call(tracer: Any, i: int) -> None:
    """A CheckAction's spans: the server span and five guardrail spans under it."""
    with tracer.start_as_current_span(
        "outrider.v1.SupervisorService/CheckAction", kind=SpanKind.SERVER, attributes={"rpc.system": "grpc"}
    ) as server:
        for name in ("root", "cost-cap", "tools", "pace", "analysts"):
            child = tracer.start_span(f"guardrail {name}", attributes={"outrider.guardrail.name": name})
            child.set_attributes({"outrider.guardrail.verdict": "allow", "outrider.guardrail.duration_ms": 0.01})
            child.end()
        server.set_attributes({"outrider.decision_id": f"d-{i}", "outrider.allowed": True})


def _sidecar_telemetry(port: int, **settings: Any) -> Any:
    from server.telemetry.sdk import build_telemetry

    return build_telemetry(
        TelemetrySettings(enabled=True, endpoint=f"http://127.0.0.1:{port}", protocol="grpc", metrics=False, **settings)
    )


def test_the_sidecars_spans_reach_a_real_receiver_as_the_sdk_would_encode_them(
    receiver: tuple[_Receiver, int],
) -> None:
    """Encoded as they end, queued as bytes, batched: every span arrives, each the SDK's encoding of it."""
    from server.telemetry.sdk import EncodingSpanProcessor

    keeper, port = receiver
    t = _sidecar_telemetry(port)
    memory = InMemorySpanExporter()  # the same spans, kept as objects to compare with
    t.tracer_provider.add_span_processor(SimpleSpanProcessor(memory))
    processors = t.tracer_provider._active_span_processor._span_processors
    assert any(isinstance(p, EncodingSpanProcessor) for p in processors)
    try:
        for i in range(300):  # 1,800 spans: several batches of 512, then the rest on flush
            _one_call(t.tracer, i)
        assert t.flush()
    finally:
        t.shutdown()
    spans = memory.get_finished_spans()
    assert len(spans) == 1800
    expected = sdk_encode_spans(spans)
    got = keeper.spans()
    assert sorted(s.SerializeToString() for s in got) == sorted(
        s.SerializeToString() for rs in expected.resource_spans for ss in rs.scope_spans for s in ss.spans
    )
    for request in keeper.requests:  # each batch under the SDK's resource and scope
        assert [(rs.resource, [ss.scope for ss in rs.scope_spans]) for rs in request.resource_spans] == [
            (expected.resource_spans[0].resource, [expected.resource_spans[0].scope_spans[0].scope])
        ]


def test_stopping_the_sidecar_exports_the_spans_still_queued(receiver: tuple[_Receiver, int]) -> None:
    keeper, port = receiver
    t = _sidecar_telemetry(port)
    for i in range(10):  # 60 spans: below a batch, and the schedule (5 s) has not come
        _one_call(t.tracer, i)
    t.shutdown()
    assert len(keeper.spans()) == 60


def test_unsampled_spans_are_not_queued_and_a_span_that_cannot_be_encoded_is_dropped_alone(
    receiver: tuple[_Receiver, int], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from server.telemetry import sdk

    keeper, port = receiver
    t = _sidecar_telemetry(port, sampler="parentbased_traceidratio", sampler_arg=0.0)
    try:
        sampled = SpanContext(0x5, 0x6, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
        with t.tracer.start_as_current_span("kept", context=set_span_in_context(NonRecordingSpan(sampled))):
            pass
        _one_call(t.tracer, 0)  # a new root at ratio 0: not sampled, nothing queued

        def broken(span: ReadableSpan) -> Any:
            if span.name == "broken":
                raise RuntimeError("cannot encode")
            return otlp_spans.encode_span(span)

        monkeypatch.setattr(sdk, "encode_span", broken)
        with t.tracer.start_as_current_span("broken", context=set_span_in_context(NonRecordingSpan(sampled))):
            pass  # ending it must not raise into the caller
        with t.tracer.start_as_current_span("after", context=set_span_in_context(NonRecordingSpan(sampled))):
            pass
        assert t.flush()
    finally:
        t.shutdown()
    assert [s.name for s in keeper.spans()] == ["kept", "after"]
    assert "a span could not be encoded" in caplog.text


class _Stuck(SpanExporter):
    """An exporter whose collector does not answer until `release` is set (it keeps what it got)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()  # the export thread holds its first batch and no longer reads the queue
        self.exported: list[Any] = []

    def export(self, spans: Any) -> SpanExportResult:
        self.entered.set()
        self.release.wait(30)
        self.exported.append(encode_spans(spans))
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


def test_a_full_queue_drops_spans_with_one_warning_and_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    from server.telemetry.sdk import EncodingSpanProcessor

    exporter = _Stuck()
    processor = EncodingSpanProcessor(exporter, max_queue_size=8, max_export_batch_size=4)
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("outrider")
    try:
        for i in range(4):  # a batch: the export thread takes it and is stuck on it
            tracer.start_span(f"span {i}").end()
        # Only then the rest, so the queue is this thread's alone and the count of drops exact (a drop counted
        # while the export thread takes spans from the queue may be one that never happened).
        assert exporter.entered.wait(30)
        for i in range(4, 100):  # the queue fills, then drops the oldest
            tracer.start_span(f"span {i}").end()
        assert processor.dropped >= 100 - 8 - 4
        assert caplog.text.count("the span export queue is full") == 1
        exporter.release.set()
        assert provider.force_flush()
    finally:
        provider.shutdown()
    names = [
        s.name
        for r in exporter.exported
        for rs in Request.FromString(r).resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
    ]
    assert len(names) == 100 - processor.dropped and "span 99" in names  # the newest kept, the oldest dropped
