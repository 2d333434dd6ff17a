"""Health checks (the SupervisorAgent library's "Health checks and recovery"): the four kinds, their validation,
their results."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from server.domain.errors import InvalidArgument
from server.domain.values import format_number

DEFAULT_CHECK_TIMEOUT = 5.0
DEFAULT_SILENCE_THRESHOLD = 30.0
MAX_TARGET = 1024


class CheckKind(enum.Enum):
    PING = "ping"  # a PING command over the control channel, acked within `timeout`
    HEARTBEAT = "heartbeat"  # unhealthy after `silence_threshold` without a Heartbeat or Attach message
    GRPC = "grpc"  # grpc.health.v1 Check of `target` (`service`), SERVING is healthy
    HTTP = "http"  # GET `url`, a 2xx answer is healthy


@dataclass(frozen=True, slots=True)
class HealthCheckSpec:
    kind: CheckKind
    timeout: float = DEFAULT_CHECK_TIMEOUT
    silence_threshold: float = DEFAULT_SILENCE_THRESHOLD
    target: str = ""
    service: str = ""
    url: str = ""

    @property
    def heartbeat_interval(self) -> float | None:
        """How often an agent with a heartbeat check should beat: half the silence threshold."""
        return self.silence_threshold / 2 if self.kind is CheckKind.HEARTBEAT else None


@dataclass(frozen=True, slots=True)
class HealthStatus:
    agent_id: str
    healthy: bool
    reason: str
    check_time: datetime
    latency: float  # seconds


def new_check(
    kind: CheckKind,
    *,
    timeout: float | None = None,
    silence_threshold: float | None = None,
    target: str = "",
    service: str = "",
    url: str = "",
    where: str = "check",
) -> HealthCheckSpec:
    """A validated check; unset durations take the defaults (5 s timeouts, 30 s silence)."""
    for name, value in (
        (f"{where}.{kind.value}.timeout", timeout),
        (f"{where}.heartbeat.silence_threshold", silence_threshold),
    ):
        if value is not None and value <= 0:
            raise InvalidArgument(f"{name} must be positive", field=name)
    if kind is CheckKind.GRPC:
        if not target:
            raise InvalidArgument(f"{where}.grpc.target is required (host:port)", field=f"{where}.grpc.target")
        if len(target) > MAX_TARGET or ":" not in target:
            raise InvalidArgument(
                f"{where}.grpc.target must be host:port, got {target!r}", field=f"{where}.grpc.target"
            )
    if kind is CheckKind.HTTP and (not url.startswith(("http://", "https://")) or len(url) > MAX_TARGET):
        raise InvalidArgument(
            f"{where}.http.url must be an http:// or https:// URL, got {url!r}", field=f"{where}.http.url"
        )
    return HealthCheckSpec(
        kind=kind,
        timeout=DEFAULT_CHECK_TIMEOUT if timeout is None else timeout,
        silence_threshold=DEFAULT_SILENCE_THRESHOLD if silence_threshold is None else silence_threshold,
        target=target if kind is CheckKind.GRPC else "",
        service=service if kind is CheckKind.GRPC else "",
        url=url if kind is CheckKind.HTTP else "",
    )


def heartbeat_verdict(silence_threshold: float, last_seen: float, now: float) -> tuple[bool, str]:
    """Healthy while the agent spoke less than `silence_threshold` seconds ago (monotonic times)."""
    silent = now - last_seen
    if silent >= silence_threshold:
        return False, f"silent for {format_number(round(silent, 1))}s"
    return True, ""


def ping_timeout_reason(timeout: float) -> str:
    return f"ping timed out after {format_number(timeout)}s"


@dataclass(frozen=True, slots=True)
class MonitoringState:
    """The periodic health-check job (the SupervisorAgent library's `start(interval)` / `stop()`)."""

    running: bool = False
    interval: float | None = None
    start_time: datetime | None = None
    last_run_time: datetime | None = None
    next_run_time: datetime | None = None
