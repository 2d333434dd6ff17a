"""The `telemetry:` section and the standard OTEL_* variables: precedence, defaults, errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ConfigError, load_config


def write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "outrider.yaml"
    p.write_text(text)
    return str(p)


def test_defaults_trace_nothing_and_count_metrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    t = load_config(None, env={}).telemetry
    assert not t.tracing and not t.export_traces and not t.export_metrics
    assert t.metrics and t.metrics_listen is None and t.sampler == "parentbased_always_on"
    assert (t.service_name, t.protocol, t.recent_traces) == ("outrider", "grpc", 200)


def test_an_endpoint_turns_tracing_on_unless_disabled(tmp_path: Path) -> None:
    path = write(tmp_path, "telemetry: {endpoint: 'http://127.0.0.1:4317'}\n")
    t = load_config(path, env={}).telemetry
    assert t.tracing and t.export_traces and t.export_metrics
    t = load_config(path, env={"OUTRIDER_TELEMETRY_ENABLED": "false"}).telemetry
    assert not t.tracing and not t.export_traces
    t = load_config(path, env={"OTEL_SDK_DISABLED": "true"}).telemetry
    assert not t.tracing and not t.metrics


def test_the_file_then_the_standard_variables(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "telemetry:\n"
        "  enabled: true\n"
        "  service_name: sidecar-eu\n"
        "  endpoint: http://collector:4317\n"
        "  protocol: grpc\n"
        "  sampler: parentbased_traceidratio\n"
        "  sampler_arg: 0.01\n"
        "  jaeger_ui_url: http://jaeger:16686/\n"
        "  metrics_listen: 127.0.0.1:9464\n"
        "  metrics_exporters: [prometheus]\n"
        "  metrics_interval: 15s\n"
        "  recent_traces: 50\n",
    )
    cfg = load_config(path, env={})
    t = cfg.telemetry
    assert (t.service_name, t.endpoint, t.sampler, t.sampler_arg) == (
        "sidecar-eu",
        "http://collector:4317",
        "parentbased_traceidratio",
        0.01,
    )
    assert (t.metrics_listen, t.metrics_exporters, t.metrics_interval, t.recent_traces) == (
        "127.0.0.1:9464",
        ("prometheus",),
        15.0,
        50,
    )
    assert not t.export_metrics  # prometheus only
    assert cfg.console_jaeger_ui_url == "http://jaeger:16686"  # the console links traces there
    env = {
        "OTEL_SERVICE_NAME": "from-env",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example:4318",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example/v1/traces",
        "OTEL_TRACES_SAMPLER": "always_on",
        "OTEL_TRACES_SAMPLER_ARG": "0.5",
        "OTEL_METRICS_EXPORTER": "otlp,prometheus",
        "OTEL_METRIC_EXPORT_INTERVAL": "5000",
        "OUTRIDER_METRICS_LISTEN": "0.0.0.0:9999",
    }
    t = load_config(path, env=env).telemetry
    assert (t.service_name, t.endpoint, t.protocol, t.traces_endpoint) == (
        "from-env",
        "https://otel.example:4318",
        "http/protobuf",
        "https://traces.example/v1/traces",
    )
    assert (t.sampler, t.sampler_arg, t.metrics_exporters, t.metrics_interval, t.metrics_listen) == (
        "always_on",
        0.5,
        ("otlp", "prometheus"),
        5.0,
        "0.0.0.0:9999",
    )


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("telemetry: {protocol: http/json}", "telemetry.protocol", "not supported"),
        ("telemetry: {protocol: thrift}", "telemetry.protocol", "must be one of grpc, http/protobuf"),
        ("telemetry: {sampler: sometimes}", "telemetry.sampler", "must be one of always_on"),
        ("telemetry: {sampler_arg: 2}", "telemetry.sampler_arg", "from 0 to 1"),
        ("telemetry: {endpoint: 'collector:4317'}", "telemetry.endpoint", "http:// or https://"),
        ("telemetry: {metrics_listen: nine}", "telemetry.metrics_listen", "not HOST:PORT"),
        ("telemetry: {recent_traces: -1}", "telemetry.recent_traces", "0 or more"),
        ("telemetry: {metrics_exporters: [statsd]}", "telemetry.metrics_exporters", "otlp, prometheus"),
        ("telemetry: {exporter: otlp}", "telemetry.exporter", "unknown key"),
    ],
)
def test_file_errors_name_the_key(tmp_path: Path, text: str, key: str, problem: str) -> None:
    path = write(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    assert (err.value.source, err.value.key) == (path, key) and problem in err.value.problem


@pytest.mark.parametrize(
    ("var", "value", "problem"),
    [
        ("OTEL_TRACES_SAMPLER", "parentbased_sometimes", "must be one of"),
        ("OTEL_TRACES_SAMPLER_ARG", "lots", "from 0 to 1"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "not supported"),
        ("OTEL_TRACES_EXPORTER", "zipkin", "otlp or none"),
        ("OTEL_SDK_DISABLED", "perhaps", "true or false"),
    ],
)
def test_variable_errors_name_the_variable(
    var: str, value: str, problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        load_config(None, env={var: value})
    assert (err.value.source, err.value.key) == ("environment", var) and problem in err.value.problem
