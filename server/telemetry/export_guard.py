"""Exporters that leave a dead collector alone: once the collector has refused a connection (or an export
failed), batches are dropped at once, without touching grpc, until a plain TCP connect to it succeeds again
(probed with a doubling back-off). The first batch is probed too, so a collector down from the start is
never reached through grpc at all.

Why: the OTLP gRPC exporter answers UNAVAILABLE by closing its grpc channel and opening a new one, on every
failed batch, and grpc's Python layer destroys a channel while holding the GIL (grpc/grpc pull request
42247 describes the process-wide freeze this can cause). In a sidecar that serves on grpc.aio in the same
process, such a moment stops everything: a CheckAction took 3.7 s in CI with the collector down, and the
scheduler's 250 ms jobs skipped meanwhile. `sdk._one_channel` keeps the exporter's channel; this gate also
spares the exporter's retries, log lines and encoding work for batches that cannot be delivered. The
probe's `connect` releases the GIL and fails in microseconds on a refused port; a collector that is up
sees one probe connection per outage, not one per batch.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, MetricsData
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 0.5  # seconds for the TCP connect of one probe
FIRST_BACKOFF = 1.0  # seconds without a probe after the first failed one; doubles up to MAX_BACKOFF
MAX_BACKOFF = 30.0


def collector_address(url: str, protocol: str) -> tuple[str, int]:
    """HOST and PORT of an OTLP endpoint URL (`http://host:4317`, `https://host/v1/traces`, `host:4317`)."""
    parts = urlsplit(url if "://" in url else f"//{url}")
    default = 443 if parts.scheme == "https" else (4318 if protocol == "http/protobuf" else 4317)
    return parts.hostname or "localhost", parts.port or default


def tcp_probe(address: tuple[str, int]) -> bool:
    try:
        with socket.create_connection(address, timeout=PROBE_TIMEOUT):
            return True
    except OSError:
        return False


class CollectorGate:
    """Whether to hand the next batch to the exporter. Unknown at first: probe. Up: yes, no probe. Down (a
    probe or an export failed): no, without probing, for a back-off that doubles on each failed probe."""

    def __init__(
        self,
        address: tuple[str, int],
        probe: Callable[[tuple[str, int]], bool] = tcp_probe,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.address = address
        self._probe = probe
        self._clock = clock
        self._lock = threading.Lock()
        self._up: bool | None = None
        self._closed_until = 0.0
        self._backoff = FIRST_BACKOFF
        self.dropped = 0  # batches dropped without trying (for tests and logs)

    def open(self) -> bool:
        with self._lock:
            if self._up:
                return True
            if self._clock() < self._closed_until:
                self.dropped += 1
                return False
        up = self._probe(self.address)  # outside the lock: the connect may take PROBE_TIMEOUT
        with self._lock:
            if up:
                self._up, self._backoff = True, FIRST_BACKOFF
                return True
            self._down()
            return False

    def report(self, ok: bool) -> None:
        """After an export: a failed one closes the gate (the next batches are dropped until a probe passes)."""
        if not ok:
            with self._lock:
                if self._up:
                    self._down()

    def _down(self) -> None:
        if self._up is not False:
            log.warning("telemetry: the collector at %s:%d is unreachable; dropping until it answers", *self.address)
        self._up = False
        self._closed_until = self._clock() + self._backoff
        self._backoff = min(self._backoff * 2, MAX_BACKOFF)
        self.dropped += 1


class GuardedSpanExporter(SpanExporter):
    def __init__(self, inner: SpanExporter, gate: CollectorGate) -> None:
        self.inner = inner
        self.gate = gate

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not self.gate.open():
            return SpanExportResult.FAILURE
        result = self.inner.export(spans)
        self.gate.report(result is SpanExportResult.SUCCESS)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class GuardedMetricExporter(MetricExporter):
    def __init__(self, inner: Any, gate: CollectorGate) -> None:
        super().__init__(
            preferred_temporality=getattr(inner, "_preferred_temporality", None),
            preferred_aggregation=getattr(inner, "_preferred_aggregation", None),
        )
        self.inner = inner
        self.gate = gate

    def export(self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any) -> MetricExportResult:
        if not self.gate.open():
            return MetricExportResult.FAILURE
        result: MetricExportResult = self.inner.export(metrics_data, timeout_millis=timeout_millis, **kwargs)
        self.gate.report(result is MetricExportResult.SUCCESS)
        return result

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        self.inner.shutdown(timeout_millis=timeout_millis, **kwargs)
