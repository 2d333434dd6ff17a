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
from dataclasses import dataclass

from server.domain.recovery.kill import KillFilter, KillReason, KillResult
from server.domain.recovery.ladder import (
    AgentRecoveryStatus,
    HistoryFilter,
    RecoveryAction,
    RecoveryResult,
)
from server.services.ports import Page
from server.services.recovery.cascade import CascadeService
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.events import RecoveryEventLog
from server.services.recovery.health_checks import HealthCheckService
from server.services.recovery.kills import KillService
from server.services.recovery.ladder import RecoveryService
from server.services.recovery.ports import MonitorScheduler
from server.services.recovery.settings import RecoverySettings, parse_recovery_settings  # noqa: F401  (re-exported)
from server.services.recovery.substitutes import SubstituteRegistry

log = logging.getLogger(__name__)


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
