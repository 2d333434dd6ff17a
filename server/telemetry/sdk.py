"""The one module that sets up the OpenTelemetry SDK: traces and metrics, exported over OTLP (gRPC or HTTP).

Each sidecar builds its own providers (no process-wide globals, so tests can run several sidecars);
`outrider serve` also installs them as the globals so plugin guardrails' own spans join the trace.
Spans go through a batch processor: exporting happens on the SDK's worker thread, a collector that is
down costs dropped spans and a log line, never an RPC's time or its answer. Over OTLP/gRPC the processor
queues each span already encoded (`EncodingSpanProcessor`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from opentelemetry import metrics as metrics_api
from opentelemetry import trace
from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, MetricReader, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import (
    ALWAYS_OFF,
    ALWAYS_ON,
    ParentBased,
    Sampler,
    TraceIdRatioBased,
)

from server.services.observability import NO_TRACER, RecoveryEventObserver, Tracer
from server.telemetry.child_spans import SidecarTracer
from server.telemetry.export_guard import CollectorGate, GuardedMetricExporter, GuardedSpanExporter, collector_address
from server.telemetry.metrics import Metrics, observe_services
from server.telemetry.otlp_spans import encode_span, encode_spans
from server.telemetry.prometheus import MetricsServer, render
from server.telemetry.settings import TelemetrySettings
from server.telemetry.trace_buffer import RecentTraces

log = logging.getLogger(__name__)

VERSION = "0.1.0"
INSTRUMENTATION = "outrider"
SHUTDOWN_TIMEOUT = 5.0  # seconds: a collector that is down must not hold up a stopping sidecar


@dataclass
class Telemetry:
    """What the sidecar's adapters and services get: a tracer, the metrics catalog, the console's buffer."""

    settings: TelemetrySettings
    tracer: Tracer
    metrics: Metrics
    recent: RecentTraces | None = None
    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None
    prometheus_reader: InMemoryMetricReader | None = None

    @property
    def tracing(self) -> bool:
        return self.tracer_provider is not None

    def prometheus_text(self) -> str | None:
        """The metrics in the Prometheus text format (None when metrics or the endpoint are off)."""
        if self.prometheus_reader is None:
            return None
        return render(self.prometheus_reader.get_metrics_data())

    def flush(self, timeout: float = 10.0) -> bool:
        """Export what is buffered now (tests, benchmarks); False if the exporter did not finish."""
        ok = True
        if self.tracer_provider is not None:
            ok = self.tracer_provider.force_flush(int(timeout * 1000))
        if self.meter_provider is not None:
            ok = self.meter_provider.force_flush(int(timeout * 1000)) and ok
        return ok

    def serve_metrics(self, listen: str, health: dict[str, Any]) -> Callable[[], None]:
        """Serve `/metrics` on its own HOST:PORT; returns the stopper."""
        if self.prometheus_reader is None:
            log.warning("telemetry.metrics_listen is set but metrics (or the prometheus exporter) are off")
        server = MetricsServer(listen, lambda: self.prometheus_text() or "")
        health["metrics_url"] = server.url
        log.info("metrics serving", extra={"url": server.url})
        return server.stop

    def install_global(self) -> None:
        """Make these providers the process's (for code that uses the OTel API's globals: plugins)."""
        if self.tracer_provider is not None:
            trace.set_tracer_provider(self.tracer_provider)
        if self.meter_provider is not None:
            metrics_api.set_meter_provider(self.meter_provider)

    def shutdown(self, timeout: float = SHUTDOWN_TIMEOUT) -> None:
        """Flush and stop the exporters, giving up after `timeout` (spans still queued are then lost)."""
        providers: list[Any] = [p for p in (self.tracer_provider, self.meter_provider) if p is not None]
        if not providers:
            return

        def stop() -> None:
            for provider in providers:
                try:
                    provider.shutdown()
                except Exception:
                    log.exception("telemetry: shutting down an exporter failed")

        worker = threading.Thread(target=stop, name="telemetry-shutdown", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            log.warning("telemetry: the collector did not take the last spans within %gs; dropped", timeout)


def build_telemetry(settings: TelemetrySettings) -> Telemetry:
    """Providers, exporters and the catalog of instruments, as `settings` (file + OTEL_* env) ask."""
    resource = Resource.create(
        {
            "service.name": settings.service_name,
            "service.version": VERSION,
            "service.instance.id": uuid.uuid4().hex,
        }
    )
    tracer_provider: TracerProvider | None = None
    tracer: Tracer = NO_TRACER
    recent: RecentTraces | None = None
    if settings.tracing:
        limits = SpanLimits()  # from OTEL_*_LIMIT, as the provider's default would be
        tracer_provider = TracerProvider(
            sampler=sampler(settings.sampler, settings.sampler_arg),
            resource=resource,
            shutdown_on_exit=False,
            span_limits=limits,
        )
        if settings.recent_traces:
            recent = RecentTraces(settings.recent_traces)
            tracer_provider.add_span_processor(recent)
        if settings.export_traces:
            # Behind a gate that drops batches while the collector is unreachable (`export_guard`).
            gate = CollectorGate(collector_address(_traces_url(settings), _protocol(settings, "traces")))
            spans_out = GuardedSpanExporter(span_exporter(settings), gate)
            if _protocol(settings, "traces") == "http/protobuf":
                tracer_provider.add_span_processor(BatchSpanProcessor(spans_out))
            else:  # our gRPC exporter takes spans encoded as they end (`EncodingSpanProcessor`)
                tracer_provider.add_span_processor(EncodingSpanProcessor(spans_out))
        # The SDK's tracer, with cheaper spans for the ones every call makes (`child_spans`).
        tracer = SidecarTracer(cast(SdkTracer, tracer_provider.get_tracer(INSTRUMENTATION, VERSION)), limits)
        log.info(
            "tracing on",
            extra={
                "sampler": settings.sampler,
                "sampler_arg": settings.sampler_arg,
                "export": _traces_url(settings) if settings.export_traces else "none",
            },
        )

    meter_provider: MeterProvider | None = None
    prometheus: InMemoryMetricReader | None = None
    if settings.metrics:
        readers: list[MetricReader] = []
        if "prometheus" in settings.metrics_exporters:
            prometheus = InMemoryMetricReader()
            readers.append(prometheus)
        if settings.export_metrics:
            gate = CollectorGate(collector_address(_metrics_url(settings), _protocol(settings, "metrics")))
            exporter = GuardedMetricExporter(metric_exporter(settings), gate)
            readers.append(PeriodicExportingMetricReader(exporter, int(settings.metrics_interval * 1000)))
        # Exemplars (trace ids on measurements) cost every recording inside a span; on only when asked.
        exemplars = None if os.environ.get("OTEL_METRICS_EXEMPLAR_FILTER") else AlwaysOffExemplarFilter()
        meter_provider = MeterProvider(
            metric_readers=readers, resource=resource, shutdown_on_exit=False, exemplar_filter=exemplars
        )
    meter = meter_provider.get_meter(INSTRUMENTATION, VERSION) if meter_provider is not None else None
    return Telemetry(settings, tracer, Metrics(meter), recent, tracer_provider, meter_provider, prometheus)


def observe(telemetry: Telemetry, services: Any) -> None:
    """Connect the gauges to the services' state, and the recovery event log to spans and metrics."""
    observe_services(telemetry.metrics, services)
    events = getattr(getattr(services, "recovery", None), "events", None)
    if events is not None:
        events.add_listener(RecoveryEventObserver(telemetry.metrics))


def sampler(name: str, arg: float | None) -> Sampler:
    """The standard samplers by their OTEL_TRACES_SAMPLER names; the ratio defaults to 1."""
    base = name.removeprefix("parentbased_")
    root: Sampler
    if base == "always_on":
        root = ALWAYS_ON
    elif base == "always_off":
        root = ALWAYS_OFF
    elif base == "traceidratio":
        root = TraceIdRatioBased(1.0 if arg is None else arg)
    else:
        raise ValueError(f"unknown sampler {name!r}")
    return ParentBased(root) if name.startswith("parentbased_") else root


def _protocol(settings: TelemetrySettings, signal: str) -> str:
    specific = settings.traces_protocol if signal == "traces" else settings.metrics_protocol
    return specific or settings.protocol


def _traces_url(settings: TelemetrySettings) -> str:
    if settings.traces_endpoint:
        return settings.traces_endpoint
    base = settings.endpoint or ""
    return f"{base}/v1/traces" if _protocol(settings, "traces") == "http/protobuf" else base


def _metrics_url(settings: TelemetrySettings) -> str:
    if settings.metrics_endpoint:
        return settings.metrics_endpoint
    base = settings.endpoint or ""
    return f"{base}/v1/metrics" if _protocol(settings, "metrics") == "http/protobuf" else base


def span_exporter(settings: TelemetrySettings) -> SpanExporter:
    """OTLP over gRPC or HTTP; headers, timeout, certificates and compression come from OTEL_EXPORTER_OTLP_*."""
    url = _traces_url(settings)
    if _protocol(settings, "traces") == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter

        return HttpSpanExporter(endpoint=url)
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter

    exporter: SpanExporter = _one_channel(_bytes_encoded(GrpcSpanExporter))(
        endpoint=url, insecure=url.startswith("http://"), channel_options=_CHANNEL_OPTIONS
    )
    return exporter


def metric_exporter(settings: TelemetrySettings) -> Any:
    url = _metrics_url(settings)
    if _protocol(settings, "metrics") == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter as HttpMetricExporter

        return HttpMetricExporter(endpoint=url)
    from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter as GrpcMetricExporter

    return _one_channel(GrpcMetricExporter)(
        endpoint=url, insecure=url.startswith("http://"), channel_options=_CHANNEL_OPTIONS
    )


class _EncodedTraceServiceStub:
    """TraceService's Export taking its request already serialized (`otlp_spans.encode_spans`)."""

    def __init__(self, channel: Any) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

        self.Export = channel.unary_unary(
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            request_serializer=None,  # the request is bytes
            response_deserializer=ExportTraceServiceResponse.FromString,
            _registered_method=True,
        )


class EncodingSpanProcessor(BatchSpanProcessor):
    """The batch span processor (its bounded queue, export thread, schedule, flush and shutdown), queueing
    each sampled span's OTLP bytes (`otlp_spans.encode_span`, on the thread that ends the span) instead of
    the span. For the gRPC exporter below, which sends what `encode_spans` makes of them.

    Why at the span's end: encoding is pure Python under the one GIL wherever it runs; on the export thread
    it came in bursts (a whole batch at once) while the event loop and grpc's poller thread wanted the GIL
    back after every release (each waits up to the interpreter's switch interval for a busy thread).
    Encoded as they end, the spans cost the loop the same work without that wait, the export thread holds
    the GIL only to join a batch's bytes (its CPU per CheckAction fell to about a third), and the queue holds
    bytes instead of span objects.

    A full queue drops the span, as the SDK's does, with one warning per `DROP_WARNING_EVERY` seconds instead
    of a log record per span: a collector that cannot keep up must not make every call pay for logging."""

    DROP_WARNING_EVERY = 10.0

    def __init__(self, exporter: SpanExporter, **kwargs: Any) -> None:
        super().__init__(exporter, **kwargs)
        self.dropped = 0  # spans dropped from a full queue
        self._warn_at = 0.0

    def on_end(self, span: ReadableSpan) -> None:
        context = span.context
        if not (context and context.trace_flags.sampled):
            return
        try:
            encoded = encode_span(span)
        except Exception:  # never the RPC's problem: the span is dropped, as a full queue drops it
            log.exception("telemetry: a span could not be encoded; dropped")
            return
        # The SDK's `BatchProcessor.emit`, but for its per-span pid check (its fork hook re-initializes the
        # processor in a child) and its log record per dropped span.
        batch = self._batch_processor
        if batch._shutdown:
            return
        queue = batch._queue
        if len(queue) == batch._max_queue_size:  # the deque drops the oldest as this one goes in
            batch._metrics.drop_items(1)
            self.dropped += 1
            now = time.monotonic()
            if now >= self._warn_at:
                self._warn_at = now + self.DROP_WARNING_EVERY
                log.warning(
                    "telemetry: the span export queue is full; dropping spans (%d so far)",
                    self.dropped,
                    extra={"queue": batch._max_queue_size},
                )
        queue.appendleft(encoded)
        if len(queue) >= batch._max_export_batch_size and not batch._worker_awaken.is_set():
            batch._worker_awaken.set()


def _bytes_encoded(base: type[Any]) -> type[Any]:
    """`base` (the OTLP gRPC span exporter class) encoding its batches with `otlp_spans.encode_spans`: the
    same request on the wire, without a protobuf object per span and attribute on the export thread; the
    spans may come encoded already (`EncodingSpanProcessor`)."""

    class BytesEncoded(base):  # type: ignore[misc]
        def _initialize_channel_and_stub(self) -> None:
            self._stub = _EncodedTraceServiceStub
            super()._initialize_channel_and_stub()

        def _translate_data(self, data: Any) -> bytes:
            return encode_spans(data)

    BytesEncoded.__name__ = BytesEncoded.__qualname__ = base.__name__
    return BytesEncoded


# A channel in TRANSIENT_FAILURE reconnects by itself; cap its backoff (gRPC's default grows to 120 s) so
# spans flow again within seconds of the collector's return.
_CHANNEL_OPTIONS = (("grpc.max_reconnect_backoff_ms", 5000), ("grpc.initial_reconnect_backoff_ms", 500))


class _KeptChannel:
    """The exporter's channel, whose `close()` does nothing until the exporter shuts down.

    On UNAVAILABLE the OTLP gRPC exporter closes its channel and opens a new one. gRPC Python destroys a
    channel while holding the GIL (grpc/grpc#42247: `grpc_channel_destroy` can wait for event-engine threads),
    which can stall every thread of the sidecar, its event loop included, for seconds: a dead collector
    must never cost a call's time. So the exporter keeps one channel and gRPC reconnects it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def close(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _one_channel(base: type[Any]) -> type[Any]:
    """`base` (an OTLP gRPC exporter class) with one channel for its whole life (see `_KeptChannel`)."""

    class OneChannel(base):  # type: ignore[misc]
        def _initialize_channel_and_stub(self) -> None:
            if isinstance(getattr(self, "_channel", None), _KeptChannel):
                return  # the exporter asks for a new channel after an error: keep this one
            super()._initialize_channel_and_stub()
            self._channel: Any = _KeptChannel(self._channel)

        def shutdown(self, *args: Any, **kwargs: Any) -> Any:
            channel = getattr(self, "_channel", None)
            if isinstance(channel, _KeptChannel):
                self._channel = channel.inner  # closed for real, once, at shutdown
            return super().shutdown(*args, **kwargs)

    OneChannel.__name__ = OneChannel.__qualname__ = base.__name__
    return OneChannel
