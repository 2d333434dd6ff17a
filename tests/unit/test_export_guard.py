"""The exporter gate: a collector that refuses connections is never reached through the OTLP exporter (whose
gRPC variant closes and reopens a grpc channel on each failed batch, with the GIL held while destroying it)."""

from __future__ import annotations

import socket
from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from server.telemetry.export_guard import (
    FIRST_BACKOFF,
    MAX_BACKOFF,
    CollectorGate,
    GuardedSpanExporter,
    collector_address,
    tcp_probe,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Probe:
    def __init__(self, up: bool) -> None:
        self.up = up
        self.calls = 0

    def __call__(self, address: tuple[str, int]) -> bool:
        self.calls += 1
        return self.up


class Recording(SpanExporter):
    def __init__(self, result: SpanExportResult = SpanExportResult.SUCCESS) -> None:
        self.batches = 0
        self.result = result

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.batches += 1
        return self.result


def test_a_collector_down_from_the_start_is_never_exported_to() -> None:
    clock, probe, inner = Clock(), Probe(up=False), Recording()
    exporter = GuardedSpanExporter(inner, CollectorGate(("127.0.0.1", 4317), probe, clock))
    for _ in range(50):
        assert exporter.export([]) is SpanExportResult.FAILURE
    assert inner.batches == 0 and probe.calls == 1  # one probe, then the back-off: no probe per batch


def test_the_probe_backs_off_doubling_and_a_live_collector_gets_the_batches() -> None:
    clock, probe, inner = Clock(), Probe(up=False), Recording()
    gate = CollectorGate(("127.0.0.1", 4317), probe, clock)
    exporter = GuardedSpanExporter(inner, gate)
    exporter.export([])
    waits = []
    backoff = FIRST_BACKOFF
    for _ in range(8):
        clock.now += backoff - 0.01
        exporter.export([])
        assert probe.calls == len(waits) + 1  # still inside the back-off: not probed
        clock.now += 0.01
        exporter.export([])
        waits.append(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF)
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and waits[-1] == MAX_BACKOFF
    probe.up = True
    clock.now += MAX_BACKOFF
    assert exporter.export([]) is SpanExportResult.SUCCESS
    calls = probe.calls
    for _ in range(10):
        exporter.export([])
    assert inner.batches == 11 and probe.calls == calls  # up: no probe per batch


def test_a_failed_export_closes_the_gate_until_a_probe_passes() -> None:
    clock, probe, inner = Clock(), Probe(up=True), Recording(SpanExportResult.FAILURE)
    exporter = GuardedSpanExporter(inner, CollectorGate(("127.0.0.1", 4317), probe, clock))
    exporter.export([])
    exporter.export([])  # dropped: the first failure closed the gate
    assert inner.batches == 1
    inner.result = SpanExportResult.SUCCESS
    clock.now += FIRST_BACKOFF
    assert exporter.export([]) is SpanExportResult.SUCCESS and inner.batches == 2


def test_the_real_probe_and_the_endpoint_forms() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    address = listener.getsockname()
    assert tcp_probe(address)
    listener.close()
    assert not tcp_probe(address)  # nothing listens there any more
    assert collector_address("http://127.0.0.1:4317", "grpc") == ("127.0.0.1", 4317)
    assert collector_address("https://otel.example/v1/traces", "http/protobuf") == ("otel.example", 443)
    assert collector_address("http://collector/v1/metrics", "http/protobuf") == ("collector", 4318)
    assert collector_address("collector:4317", "grpc") == ("collector", 4317)
