"""A minimal OTLP/gRPC receiver for `bench/tracing.py`: accepts traces and metrics, counts spans, keeps nothing.

Run as `python -m bench.otlp_sink`; prints `{"event": "ready", "port": N}`, then answers `stats` and `quit`
on stdin (the bench/_proc.py protocol). A real collector would cost the same sidecar the same export work;
this one stays out of the way of the CPU the benchmark measures.
"""

from __future__ import annotations

import sys
import threading
from concurrent import futures
from typing import Any

import grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2 as mpb
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc as mgrpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as tpb
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as tgrpc

from bench._proc import emit, self_usage

_lock = threading.Lock()
_counts = {"spans": 0, "trace_requests": 0, "metric_requests": 0}


class _Traces(tgrpc.TraceServiceServicer):  # type: ignore[misc]
    def Export(self, request: tpb.ExportTraceServiceRequest, context: Any) -> tpb.ExportTraceServiceResponse:
        spans = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        with _lock:
            _counts["spans"] += spans
            _counts["trace_requests"] += 1
        return tpb.ExportTraceServiceResponse()


class _Metrics(mgrpc.MetricsServiceServicer):  # type: ignore[misc]
    def Export(self, request: mpb.ExportMetricsServiceRequest, context: Any) -> mpb.ExportMetricsServiceResponse:
        with _lock:
            _counts["metric_requests"] += 1
        return mpb.ExportMetricsServiceResponse()


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    tgrpc.add_TraceServiceServicer_to_server(_Traces(), server)
    mgrpc.add_MetricsServiceServicer_to_server(_Metrics(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    emit({"event": "ready", "port": port})
    for line in sys.stdin:
        command = line.strip()
        with _lock:
            counts = dict(_counts)
        if command == "quit":
            break
        emit({**counts, **self_usage()} if command == "stats" else {"error": f"unknown command {command!r}"})
    server.stop(1).wait()
    with _lock:
        emit({"event": "stopped", **_counts})


if __name__ == "__main__":
    main()
