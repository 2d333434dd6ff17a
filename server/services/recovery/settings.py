"""The config file's `recovery:` section (its own module: the config loader, and so every CLI command,
reads it without importing the recovery services)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.recovery.cascade import CascadePolicy, parse_cascade_policy
from server.domain.recovery.ladder import RecoveryPolicy, parse_policies
from server.domain.values import parse_duration

DEFAULT_MONITOR_INTERVAL = 30.0


@dataclass(frozen=True)
class RecoverySettings:
    """The config file's `recovery:` section."""

    policies: tuple[RecoveryPolicy, ...] = ()  # per group, source "policy"
    cascade: CascadePolicy | None = None  # None: the stored (runtime) or builtin policy
    monitor_interval: float = DEFAULT_MONITOR_INTERVAL  # StartMonitoring without an interval
    callback_timeout: float = 5.0  # the KILL ack (the Agent Governance Toolkit)
    handoff_timeout: float = 5.0  # each substitute's HANDOFF ack
    command_timeout: float = 30.0  # how long RESTART / RESTART_CLEAN acks are awaited (and re-sent)
    event_max_rows: int = 100_000  # events kept; older ones are pruned every few minutes


_KEYS = {
    "policies",
    "cascade",
    "monitor_interval",
    "callback_timeout",
    "handoff_timeout",
    "command_timeout",
    "event_max_rows",
}


def parse_recovery_settings(raw: Any) -> RecoverySettings:
    """Raises InvalidArgument whose `field` is the dotted key (`recovery.cascade.window`)."""
    if raw is None:
        return RecoverySettings()
    if not isinstance(raw, Mapping):
        raise InvalidArgument("must be a mapping", field="recovery")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise InvalidArgument(f"unknown key; known keys: {', '.join(sorted(_KEYS))}", field=f"recovery.{unknown[0]}")
    defaults = RecoverySettings()

    def duration(key: str, default: float) -> float:
        return default if raw.get(key) is None else parse_duration(raw[key], f"recovery.{key}")

    rows = raw.get("event_max_rows", defaults.event_max_rows)
    if not isinstance(rows, int) or isinstance(rows, bool) or rows <= 0:
        raise InvalidArgument(f"must be a whole number above 0, got {rows!r}", field="recovery.event_max_rows")
    return RecoverySettings(
        policies=tuple(parse_policies(raw.get("policies"))),
        cascade=parse_cascade_policy(raw.get("cascade")),
        monitor_interval=duration("monitor_interval", defaults.monitor_interval),
        callback_timeout=duration("callback_timeout", defaults.callback_timeout),
        handoff_timeout=duration("handoff_timeout", defaults.handoff_timeout),
        command_timeout=duration("command_timeout", defaults.command_timeout),
        event_max_rows=rows,
    )
