"""A real Jaeger v2 for the telemetry tests: OTLP gRPC and HTTP receivers and the query API on free loopback ports.

`scripts/jaeger.sh` builds the binary into .outrider-tools/bin (`make test` runs it and requires these tests);
a bare `pytest` without the binary skips them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

BINARY = Path(__file__).resolve().parents[2] / ".outrider-tools" / "bin" / "jaeger"
REQUIRED = os.environ.get("OUTRIDER_REQUIRE_JAEGER") == "1"

CONFIG = """
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics: {{level: none}}
    logs: {{level: warn}}
extensions:
  jaeger_query:
    enable_tracing: false
    storage: {{traces: memstore}}
    http: {{endpoint: "127.0.0.1:{query}"}}
    grpc: {{endpoint: "127.0.0.1:{query_grpc}"}}
  jaeger_storage:
    backends:
      memstore:
        memory: {{max_traces: 10000}}
receivers:
  otlp:
    protocols:
      grpc: {{endpoint: "127.0.0.1:{grpc}"}}
      http: {{endpoint: "127.0.0.1:{http}"}}
processors:
  batch: {{timeout: 20ms}}
exporters:
  jaeger_storage_exporter: {{trace_storage: memstore}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Jaeger:
    grpc_endpoint: str  # OTLP/gRPC base endpoint, e.g. http://127.0.0.1:4317
    http_endpoint: str  # OTLP/HTTP base endpoint, e.g. http://127.0.0.1:4318
    query_url: str

    def trace(self, trace_id: str, min_spans: int = 1, timeout: float = 15.0) -> list[dict[str, Any]]:
        """The trace's spans from the query API (JSON), once at least `min_spans` are stored."""
        deadline = time.monotonic() + timeout
        spans: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.query_url}/api/traces/{trace_id}", timeout=5) as r:
                    data = json.load(r)["data"] or []
                spans = data[0]["spans"] if data else []
                processes = data[0]["processes"] if data else {}
                for span in spans:
                    span["service"] = processes.get(span["processID"], {}).get("serviceName", "")
                if len(spans) >= min_spans:
                    return spans
            except urllib.error.HTTPError as exc:
                if exc.code != 404:
                    raise
            time.sleep(0.05)
        raise AssertionError(f"Jaeger has {len(spans)} spans of trace {trace_id} after {timeout:g}s, not {min_spans}")

    def services(self) -> list[str]:
        with urllib.request.urlopen(f"{self.query_url}/api/services", timeout=5) as r:
            return list(json.load(r)["data"] or [])


def start(tmp: Path) -> tuple[Jaeger, subprocess.Popen[bytes]]:
    ports = {k: free_port() for k in ("grpc", "http", "query", "query_grpc")}
    config = tmp / "jaeger.yaml"
    config.write_text(CONFIG.format(**ports))
    with (tmp / "jaeger.log").open("wb") as log:  # the child keeps its own descriptor
        proc = subprocess.Popen([str(BINARY), "--config", f"file:{config}"], stdout=log, stderr=subprocess.STDOUT)
    jaeger = Jaeger(
        f"http://127.0.0.1:{ports['grpc']}", f"http://127.0.0.1:{ports['http']}", f"http://127.0.0.1:{ports['query']}"
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            jaeger.services()
            with (
                socket.create_connection(("127.0.0.1", ports["grpc"]), 1),
                socket.create_connection(("127.0.0.1", ports["http"]), 1),
            ):
                return jaeger, proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"Jaeger did not start; see {tmp / 'jaeger.log'}") from None
            time.sleep(0.1)


@pytest.fixture(scope="session", name="jaeger")
def jaeger_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jaeger]:
    if not BINARY.exists():
        if REQUIRED:
            pytest.fail(f"{BINARY} is missing: run scripts/jaeger.sh (make test does)")
        pytest.skip("no Jaeger binary: run scripts/jaeger.sh (make test does)")
    j, proc = start(tmp_path_factory.mktemp("jaeger"))
    try:
        yield j
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
