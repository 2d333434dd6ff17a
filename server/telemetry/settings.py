"""The `telemetry:` config section and the standard OTEL_* variables that override it (no OTel import here).

Precedence, like the rest of the config: the file < OTEL_* / OUTRIDER_* variables < flags.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.values import parse_duration

PROTOCOLS = ("grpc", "http/protobuf")
SAMPLERS = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)
KEYS = {
    "enabled",
    "service_name",
    "endpoint",
    "protocol",
    "sampler",
    "sampler_arg",
    "jaeger_ui_url",
    "metrics",
    "metrics_exporters",
    "metrics_listen",
    "metrics_interval",
    "recent_traces",
}


@dataclass(frozen=True)
class TelemetrySettings:
    # Traces: None means "on when an OTLP endpoint is configured".
    enabled: bool | None = None
    service_name: str = "outrider"
    endpoint: str | None = None  # OTLP base URL, e.g. http://127.0.0.1:4317 (gRPC) or :4318 (HTTP)
    traces_endpoint: str | None = None  # full URL of the traces signal (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    metrics_endpoint: str | None = None  # full URL of the metrics signal (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)
    protocol: str = "grpc"
    traces_protocol: str | None = None
    metrics_protocol: str | None = None
    sampler: str = "parentbased_always_on"
    sampler_arg: float | None = None
    traces_exporter: str = "otlp"  # "otlp" or "none" (spans then only feed the console's recent traces)
    metrics: bool = True
    metrics_exporters: tuple[str, ...] = ("otlp", "prometheus")
    metrics_listen: str | None = None  # a separate HOST:PORT serving only /metrics
    metrics_interval: float = 60.0  # seconds between OTLP metric exports
    recent_traces: int = 200  # traces kept in memory for the console's Traces page
    jaeger_ui_url: str | None = None

    @property
    def tracing(self) -> bool:
        if self.enabled is not None:
            return self.enabled
        return bool(self.endpoint or self.traces_endpoint)

    @property
    def export_traces(self) -> bool:
        return self.tracing and self.traces_exporter == "otlp" and bool(self.endpoint or self.traces_endpoint)

    @property
    def export_metrics(self) -> bool:
        return self.metrics and "otlp" in self.metrics_exporters and bool(self.endpoint or self.metrics_endpoint)


# ---- converters: (value, name) -> value, raising InvalidArgument (config.py names file and key) ----


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        return value.lower() in ("true", "1", "yes", "on")
    raise InvalidArgument(f"must be true or false, got {value!r}")


def _str(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"must be a non-empty string, got {value!r}")
    return value.strip()


def _url(value: Any, name: str) -> str:
    url = _str(value, name).rstrip("/")
    if not url.startswith(("http://", "https://")) or len(url) <= len("https://"):
        raise InvalidArgument(f"must be an http:// or https:// URL (the scheme picks TLS), got {value!r}")
    return url


def _protocol(value: Any, name: str) -> str:
    if value == "http/json":
        raise InvalidArgument("http/json is not supported by the Python exporters; use grpc or http/protobuf")
    if value not in PROTOCOLS:
        raise InvalidArgument(f"must be one of {', '.join(PROTOCOLS)}, got {value!r}")
    return str(value)


def _sampler(value: Any, name: str) -> str:
    if value not in SAMPLERS:
        raise InvalidArgument(f"must be one of {', '.join(SAMPLERS)}, got {value!r}")
    return str(value)


def _ratio(value: Any, name: str) -> float:
    try:
        ratio = float(value)
    except (TypeError, ValueError):
        ratio = math.nan
    if isinstance(value, bool) or not 0.0 <= ratio <= 1.0:
        raise InvalidArgument(f"must be a number from 0 to 1, got {value!r}")
    return ratio


def _listen(value: Any, name: str) -> str:
    text = _str(value, name)
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InvalidArgument(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:9464)")
    return text


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(f"must be a whole number, 0 or more, got {value!r}")
    return value


def _duration(value: Any, name: str) -> float:
    return parse_duration(value, name)


def _millis(value: Any, name: str) -> float:
    try:
        ms = float(value)
    except (TypeError, ValueError):
        ms = 0.0
    if ms <= 0:
        raise InvalidArgument(f"must be a number of milliseconds above 0, got {value!r}")
    return ms / 1000.0


def _traces_exporter(value: Any, name: str) -> str:
    names = [v.strip() for v in str(value).split(",") if v.strip()]
    if names == ["none"]:
        return "none"
    if names == ["otlp"]:
        return "otlp"
    raise InvalidArgument(f"must be otlp or none, got {value!r}")


def _metrics_exporters(value: Any, name: str) -> tuple[str, ...]:
    items = value if isinstance(value, list) else str(value).split(",")
    names = tuple(str(v).strip() for v in items if str(v).strip())
    if names == ("none",):
        return ()
    if not names or any(n not in ("otlp", "prometheus") for n in names):
        raise InvalidArgument(f"must be otlp, prometheus, both (comma-separated) or none, got {value!r}")
    return names


Getter = Callable[[str, Callable[[Any, str], Any], Any], Any]


def from_section(get: Getter) -> TelemetrySettings:
    """The file's `telemetry:` section, read through config's `_Reader.get` (errors name file and key)."""
    d = TelemetrySettings()
    return TelemetrySettings(
        enabled=get("enabled", _bool, d.enabled),
        service_name=get("service_name", _str, d.service_name),
        endpoint=get("endpoint", _url, d.endpoint),
        protocol=get("protocol", _protocol, d.protocol),
        sampler=get("sampler", _sampler, d.sampler),
        sampler_arg=get("sampler_arg", _ratio, d.sampler_arg),
        jaeger_ui_url=get("jaeger_ui_url", _url, d.jaeger_ui_url),
        metrics=get("metrics", _bool, d.metrics),
        metrics_exporters=get("metrics_exporters", _metrics_exporters, d.metrics_exporters),
        metrics_listen=get("metrics_listen", _listen, d.metrics_listen),
        metrics_interval=get("metrics_interval", _duration, d.metrics_interval),
        recent_traces=get("recent_traces", _count, d.recent_traces),
    )


# (variable, field, converter): the OpenTelemetry SDK's standard names, then Outrider's own.
ENV: list[tuple[str, str, Callable[[Any, str], Any]]] = [
    ("OTEL_SERVICE_NAME", "service_name", _str),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "endpoint", _url),
    ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "traces_endpoint", _url),
    ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "metrics_endpoint", _url),
    ("OTEL_EXPORTER_OTLP_PROTOCOL", "protocol", _protocol),
    ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "traces_protocol", _protocol),
    ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "metrics_protocol", _protocol),
    ("OTEL_TRACES_SAMPLER", "sampler", _sampler),
    ("OTEL_TRACES_SAMPLER_ARG", "sampler_arg", _ratio),
    ("OTEL_TRACES_EXPORTER", "traces_exporter", _traces_exporter),
    ("OTEL_METRICS_EXPORTER", "metrics_exporters", _metrics_exporters),
    ("OTEL_METRIC_EXPORT_INTERVAL", "metrics_interval", _millis),
    ("OUTRIDER_TELEMETRY_ENABLED", "enabled", _bool),
    ("OUTRIDER_METRICS_LISTEN", "metrics_listen", _listen),
]


def apply_env(settings: TelemetrySettings, env: Mapping[str, str]) -> TelemetrySettings:
    """Override `settings` with the variables set in `env`; raises InvalidArgument whose field is the variable."""
    for var, name, conv in [*ENV, ("OTEL_SDK_DISABLED", "", _bool)]:
        if not env.get(var):
            continue
        try:
            value = conv(env[var], var)
        except InvalidArgument as exc:
            raise InvalidArgument(exc.message, field=var) from exc
        if var == "OTEL_SDK_DISABLED":
            if value:  # the whole SDK off: no traces, no metrics
                settings = replace(settings, enabled=False, metrics=False)
        else:
            settings = replace(settings, **{name: value})
    return settings
