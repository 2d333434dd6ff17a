"""The SDK wiring without a server: samplers, exporter choice, bounded shutdown, the Prometheus text,
the console's trace buffer and the log filter."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased, TraceIdRatioBased
from opentelemetry.trace import SpanKind

from server.logs import TraceContextFilter
from server.telemetry.metrics import Metrics
from server.telemetry.prometheus import render
from server.telemetry.sdk import Telemetry, build_telemetry, metric_exporter, sampler, span_exporter
from server.telemetry.settings import TelemetrySettings
from server.telemetry.trace_buffer import WIDTH, RecentTraces


def test_samplers_by_their_standard_names() -> None:
    assert sampler("always_on", None) is ALWAYS_ON
    assert sampler("always_off", None) is ALWAYS_OFF
    ratio = sampler("traceidratio", 0.25)
    assert isinstance(ratio, TraceIdRatioBased) and ratio.rate == 0.25
    parent = sampler("parentbased_traceidratio", None)
    assert isinstance(parent, ParentBased) and "TraceIdRatioBased{1.0}" in parent.get_description()


def test_exporters_follow_the_protocol_and_the_signal_urls() -> None:
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as Grpc
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter as HttpMetrics
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as Http

    grpc_exporter = span_exporter(TelemetrySettings(endpoint="http://127.0.0.1:4317"))
    assert isinstance(grpc_exporter, Grpc)
    http = TelemetrySettings(endpoint="http://127.0.0.1:4318", protocol="http/protobuf")
    http_exporter = span_exporter(http)
    assert isinstance(http_exporter, Http) and http_exporter._endpoint == "http://127.0.0.1:4318/v1/traces"
    metrics_exporter = metric_exporter(http)
    assert isinstance(metrics_exporter, HttpMetrics) and metrics_exporter._endpoint.endswith("/v1/metrics")
    explicit = TelemetrySettings(protocol="http/protobuf", traces_endpoint="https://t.example/custom")
    assert span_exporter(explicit)._endpoint == "https://t.example/custom"  # type: ignore[attr-defined]
    for exporter in (grpc_exporter, http_exporter, metrics_exporter):
        exporter.shutdown()


def test_nothing_is_built_when_everything_is_off() -> None:
    t = build_telemetry(TelemetrySettings(enabled=False, metrics=False))
    assert t.tracer_provider is None and t.meter_provider is None and t.recent is None
    assert t.prometheus_text() is None and not t.metrics.enabled and not t.tracing
    t.metrics.decision("allowed", "x", 0.1)  # no-ops
    t.shutdown()


def test_shutdown_gives_up_on_a_hung_exporter() -> None:
    release = threading.Event()

    class Hung:
        def shutdown(self) -> None:
            release.wait(600)  # hung until the test releases it, after the check below

    t = Telemetry(TelemetrySettings(), tracer=None, metrics=Metrics(), tracer_provider=Hung())  # type: ignore[arg-type]
    try:
        stopper = threading.Thread(target=t.shutdown, kwargs={"timeout": 0.2}, daemon=True)
        stopper.start()
        stopper.join(30)
        # Returned while the exporter is still hung: shutdown gave up instead of waiting for it.
        assert not stopper.is_alive() and not release.is_set()
    finally:
        release.set()


def _metrics() -> tuple[Metrics, InMemoryMetricReader, MeterProvider]:
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader], shutdown_on_exit=False)
    return Metrics(provider.get_meter("test")), reader, provider


def test_prometheus_text_names_types_labels_and_histograms() -> None:
    metrics, reader, provider = _metrics()
    metrics.decision("blocked", 'cap "eu"\\ne', 0.0003)
    metrics.decision("blocked", 'cap "eu"\\ne', 0.002)
    metrics.decision("allowed", "", 0.00005)
    metrics.gauge("outrider.things", "", "things now", lambda: [(3.0, {"kind": "a"}), (1.5, {"kind": "b"})])
    text = render(reader.get_metrics_data())
    provider.shutdown()
    lines = text.splitlines()
    assert "# TYPE outrider_decisions_total counter" in lines
    assert 'outrider_decisions_total{guardrail="cap \\"eu\\"\\\\ne",outcome="blocked"} 2' in lines
    assert 'outrider_decisions_total{guardrail="none",outcome="allowed"} 1' in lines
    assert "# TYPE outrider_check_action_duration_seconds histogram" in lines
    assert 'outrider_check_action_duration_seconds_bucket{outcome="blocked",le="0.00025"} 0' in lines
    assert 'outrider_check_action_duration_seconds_bucket{outcome="blocked",le="0.0005"} 1' in lines
    assert 'outrider_check_action_duration_seconds_bucket{outcome="blocked",le="0.0025"} 2' in lines
    assert 'outrider_check_action_duration_seconds_bucket{outcome="blocked",le="+Inf"} 2' in lines
    assert 'outrider_check_action_duration_seconds_count{outcome="blocked"} 2' in lines
    assert "# TYPE outrider_things gauge" in lines and 'outrider_things{kind="b"} 1.5' in lines
    assert text.endswith("\n") and render(None) == ""


def _spans(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("rpc", kind=SpanKind.SERVER) as root:
        root.set_attributes({"outrider.agent_id": "a-1", "outrider.decision_id": "d-1", "outrider.outcome": "blocked"})
        with tracer.start_as_current_span("guardrail one") as one:
            one.set_attribute("outrider.guardrail.verdict", "allow")
        with tracer.start_as_current_span("guardrail two") as two:
            two.set_attribute("outrider.guardrail.verdict", "block")
            two.add_event("something", {"k": "v"})


def test_the_buffer_keeps_the_last_traces_laid_out_as_waterfalls() -> None:
    recent = RecentTraces(max_traces=2)
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(recent)
    for _ in range(3):
        _spans(provider)
    assert len(recent) == 2
    (newest, older) = recent.list()
    assert newest.trace_id != older.trace_id
    assert [(s.name, s.depth) for s in newest.spans] == [("rpc", 0), ("guardrail one", 1), ("guardrail two", 1)]
    root, one, two = newest.spans
    assert (root.x, root.width) == (0, WIDTH) and 0 <= one.x <= two.x < WIDTH and two.width >= 2
    assert (root.look, one.look, two.look) == ("blocked", "allow", "block")
    assert two.events[0].name == "something" and two.events[0].attributes == [("k", "v")]
    assert (newest.agents, newest.decisions, newest.outcomes, newest.continued) == (
        ["a-1"],
        ["d-1"],
        ["blocked"],
        False,
    )
    assert recent.get(newest.trace_id) is not None and recent.get("zz") is None and recent.get("0" * 32) is None
    assert recent.list(agent="a-2") == [] and recent.list(outcome="allowed") == []
    assert len(recent.list(decision="d-1")) == 2 and len(recent.list(limit=1)) == 1
    provider.shutdown()


def test_log_records_get_trace_and_span_ids_only_inside_a_span() -> None:
    provider = TracerProvider(shutdown_on_exit=False)
    tracer = provider.get_tracer("test")
    flt = TraceContextFilter()

    def record() -> Any:
        r = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
        assert flt.filter(r)
        return r

    outside = record()
    with tracer.start_as_current_span("s") as span:
        inside = record()
    ctx = span.get_span_context()
    assert (inside.trace_id, inside.span_id) == (format(ctx.trace_id, "032x"), format(ctx.span_id, "016x"))
    assert not hasattr(outside, "trace_id")
    provider.shutdown()


@pytest.mark.parametrize("name", ["always_on", "parentbased_always_off"])
def test_build_telemetry_traces_into_the_buffer_by_the_sampler(name: str) -> None:
    t = build_telemetry(TelemetrySettings(enabled=True, sampler=name, metrics=False))
    with t.tracer.start_as_current_span("x"):
        pass
    assert t.recent is not None and len(t.recent) == (1 if name == "always_on" else 0)
    t.shutdown()
