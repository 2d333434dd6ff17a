"""The metrics as Prometheus text (exposition format 0.0.4), and a tiny HTTP server that serves only `/metrics`.

Written here rather than through prometheus_client so that each sidecar renders its own meter provider
(prometheus_client keeps one process-wide registry).
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.sdk.metrics.export import Gauge, Histogram, Metric, MetricsData, Sum

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_UNITS = {"s": "seconds", "ms": "milliseconds", "By": "bytes", "1": "ratio"}
_BAD = re.compile(r"[^a-zA-Z0-9_:]")


def metric_name(metric: Metric) -> str:
    """`outrider.check_action.duration` in `s` -> `outrider_check_action_duration_seconds`; counters end in `_total`."""
    name = _BAD.sub("_", metric.name)
    unit = _UNITS.get(metric.unit or "", "")
    if unit and not name.endswith("_" + unit):
        name += "_" + unit
    if isinstance(metric.data, Sum) and metric.data.is_monotonic and not name.endswith("_total"):
        name += "_total"
    return name


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(attributes: Mapping[str, Any] | None, extra: tuple[str, str] | None = None) -> str:
    pairs = [(_BAD.sub("_", str(k)), str(v)) for k, v in sorted((attributes or {}).items())]
    if extra:
        pairs.append(extra)
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in pairs) + "}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _metric_lines(metric: Metric) -> Iterable[str]:
    name = metric_name(metric)
    data = metric.data
    kind = "counter" if isinstance(data, Sum) and data.is_monotonic else "gauge"
    if isinstance(data, Histogram):
        kind = "histogram"
    elif not isinstance(data, Sum | Gauge):
        return  # exponential histograms: not used by Outrider
    yield f"# HELP {name} {_escape(metric.description or metric.name)}"
    yield f"# TYPE {name} {kind}"
    if isinstance(data, Histogram):
        for point in data.data_points:
            cumulative = 0
            for bound, count in zip([*point.explicit_bounds, math.inf], point.bucket_counts, strict=False):
                cumulative += count
                yield f"{name}_bucket{_labels(point.attributes, ('le', _number(bound)))} {cumulative}"
            yield f"{name}_sum{_labels(point.attributes)} {_number(point.sum)}"
            yield f"{name}_count{_labels(point.attributes)} {point.count}"
        return
    for number in data.data_points:
        yield f"{name}{_labels(number.attributes)} {_number(number.value)}"


def render(data: MetricsData | None) -> str:
    """Every metric of `data`, one family after another, sorted by name."""
    if data is None:
        return ""
    metrics = [m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics]
    lines: list[str] = []
    for metric in sorted(metrics, key=lambda m: m.name):
        lines.extend(_metric_lines(metric))
    return "\n".join(lines) + "\n" if lines else ""


class MetricsServer:
    """`GET /metrics` on its own HOST:PORT (`telemetry.metrics_listen`), for a sidecar without a console."""

    def __init__(self, listen: str, text: Callable[[], str | None]) -> None:
        host, _, port = listen.rpartition(":")

        class Handler(BaseHTTPRequestHandler):
            server_version = "outrider"

            def do_GET(self) -> None:
                if self.path.split("?", 1)[0] != "/metrics":
                    self.send_error(404, "only /metrics is served here")
                    return
                body = (text() or "").encode()
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # one line per scrape would drown the sidecar's log

        self.httpd = ThreadingHTTPServer((host.strip("[]"), int(port)), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}/metrics"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="metrics-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)
