"""The recovery feature assembled: one object the composition root builds and the adapters use.

services.recovery.hub          the agent control channel (ControlChannelHub)
services.recovery.events       the durable event log (RecoveryEventLog): add_listener for live events
services.recovery.health       health checks (HealthCheckService)
services.recovery.recovery     policies, the ladder, monitoring, history, status (RecoveryService)
services.recovery.substitutes  substitute lists (SubstituteRegistry)
services.recovery.kills        the kill switch (KillService); on_kill for observers
services.recovery.cascade      cascade detection (CascadeService): report_failure

The composition root (server/bootstrap.py) builds the parts and hands them in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.recovery.cascade import CascadePolicy, parse_cascade_policy
from server.domain.recovery.kill import KillFilter, KillReason, KillResult
from server.domain.recovery.ladder import (
    AgentRecoveryStatus,
    HistoryFilter,
    RecoveryAction,
    RecoveryPolicy,
    RecoveryResult,
    parse_policies,
)
from server.domain.values import parse_duration
from server.services.ports import Page
from server.services.recovery.cascade import CascadeService
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.events import RecoveryEventLog
from server.services.recovery.health_checks import HealthCheckService
from server.services.recovery.kills import KillService
from server.services.recovery.ladder import DEFAULT_MONITOR_INTERVAL, RecoveryService
from server.services.recovery.ports import MonitorScheduler
from server.services.recovery.substitutes import SubstituteRegistry

log = logging.getLogger(__name__)


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


@dataclass
class RecoveryFeature:
    """The recovery feature's services, built by the composition root."""

    settings: RecoverySettings
    hub: ControlChannelHub
    events: RecoveryEventLog
    health: HealthCheckService
    substitutes: SubstituteRegistry
    recovery: RecoveryService
    kills: KillService
    cascade: CascadeService
    _resume: asyncio.Task[int] | None = None

    def load(self) -> None:
        """At start-up (blocking): everything stored, the policy file's policies applied."""
        self.events.load()
        self.health.load()
        self.substitutes.load()
        self.recovery.load()
        self.cascade.load()

    def reload_policy_file(self, settings: RecoverySettings) -> None:
        """Apply a reloaded policy file's `recovery:` policies and cascade settings."""
        self.recovery.reload_file_policies(settings.policies)
        self.cascade.reload_file_policy(settings.cascade)

    def follow_policy_file(self, settings: RecoverySettings) -> None:
        """Another sidecar applied the fleet's policy and stored its `recovery:` policies and cascade
        settings: run them from storage here, writing nothing."""
        self.recovery.follow_file_policies(settings.policies)
        self.cascade.follow_file_policy(settings.cascade)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the server's loop: bind the hub and complete kills a restart interrupted."""
        self.hub.bind_loop(loop)
        self._resume = self.hub.spawn(self.kills.resume_incomplete())

    def attach_monitor(self, monitor: MonitorScheduler) -> None:
        self.recovery.attach_monitor(monitor)

    def close(self) -> None:
        """Blocking, from a worker thread at shutdown: end streams, cancel background work."""
        loop = self.hub.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return
        try:
            self.hub.run_sync(self.hub.close(), timeout=5)
        except Exception:
            log.exception("closing the control channel failed")

    # ---- reads for the console -------------------------------------------------------------------

    def agent_statuses(self, group: str = "", page_size: int = 0, page_token: str = "") -> Page[AgentRecoveryStatus]:
        """Agents page: group, health, last check, retry count, connected, latest attempt, escalated."""
        return self.recovery.list_statuses(group, page_size, page_token)

    def recent_history(self, agent_id: str = "", page_size: int = 50, page_token: str = "") -> Page[RecoveryResult]:
        return self.recovery.history(HistoryFilter(agent_id=agent_id), page_size, page_token)

    def escalations(self, page_size: int = 50, page_token: str = "") -> Page[RecoveryResult]:
        return self.recovery.history(HistoryFilter(action=RecoveryAction.ESCALATE), page_size, page_token)

    def kill_history(self, agent_id: str = "", page_size: int = 50, page_token: str = "") -> Page[KillResult]:
        return self.kills.list(KillFilter(agent_id=agent_id), page_size, page_token)

    def kill_blocking(
        self,
        agent_id: str,
        reason: KillReason,
        *,
        session_id: str = "",
        details: str = "",
        actor: str = "system",
        timeout: float = 120.0,
    ) -> KillResult:
        """The console's Kill button (a worker thread): kill on the server's loop and wait for the result."""
        return self.hub.run_sync(
            self.kills.kill(agent_id, session_id, reason, (), details, actor=actor), timeout=timeout
        )
