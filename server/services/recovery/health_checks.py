"""Health checks of agents: ping (control channel), heartbeat (silence), grpc (grpc.health.v1), http (GET).

Each check runs under its own timeout and never waits for another agent's: `run` is one coroutine per agent
and callers gather them. A check that raises counts as a failed check whose reason is the exception.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Protocol

from server.domain.agents import validate_id
from server.domain.errors import NotFound
from server.domain.recovery.control import CommandType, Delivery, failure_detail
from server.domain.recovery.health import (
    CheckKind,
    HealthCheckSpec,
    HealthStatus,
    heartbeat_verdict,
    ping_timeout_reason,
)
from server.domain.recovery.ladder import EJECTED_GROUP
from server.services.fleet.ports import CHECKS_TOPIC, HEALTH_TOPIC, ChangeFeed
from server.services.ports import AuditSink, Clock
from server.services.recovery.agents import AgentService
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.ports import RecoveryRepository

log = logging.getLogger(__name__)

# Network probes get this much beyond their own timeout before they are abandoned.
_PROBE_GRACE = 1.0


class Probes(Protocol):
    """The outbound network checks (server/adapters/probes.py; tests pass their own)."""

    async def grpc(self, target: str, service: str, timeout: float) -> tuple[bool, str]: ...

    async def http(self, url: str, timeout: float) -> tuple[bool, str]: ...


class HealthCheckService:
    def __init__(
        self,
        repo: RecoveryRepository,
        hub: ControlChannelHub,
        agents: AgentService,
        clock: Clock,
        audit: AuditSink,
        probes: Probes,
        changes: ChangeFeed | None = None,
    ) -> None:
        self.repo = repo
        self.hub = hub
        self.agents = agents
        self.clock = clock
        self.audit = audit
        self.probes = probes
        self._lock = threading.Lock()
        self._checks: dict[str, HealthCheckSpec] = {}
        self._added: dict[str, float] = {}
        # The latest result per agent: a cache of the stored one (whichever sidecar ran the check), fresh
        # within the change feed's bound (a notification; the feed's poll when the listener is down).
        self._statuses: dict[str, HealthStatus] = {}
        if changes is not None:  # a spec added or removed, or a check run, on another sidecar
            changes.subscribe(CHECKS_TOPIC, self._reload_check, self._reload)
            changes.subscribe(HEALTH_TOPIC, self._reload_status, self._reload_statuses)

    def load(self) -> None:
        with self._lock:
            self._checks = self.repo.load_checks()
            now = self.clock.monotonic()
            self._added = dict.fromkeys(self._checks, now)
            self._statuses = self.repo.load_statuses()

    def _reload(self) -> None:
        """The stored specs replace the cached ones; a check already known keeps its start time."""
        with self._lock:
            self._checks = self.repo.load_checks()
            now = self.clock.monotonic()
            self._added = {a: self._added.get(a, now) for a in self._checks}
            self._statuses = {a: st for a, st in self._statuses.items() if a in self._checks}

    def _reload_check(self, agent_id: str) -> None:
        self._reload()
        self._reload_status(agent_id)  # a replaced spec starts without a result

    def _reload_status(self, agent_id: str) -> None:
        stored = self.repo.load_statuses(agent_id).get(agent_id)
        with self._lock:
            if stored is None:
                self._statuses.pop(agent_id, None)
            else:
                self._statuses[agent_id] = stored

    def _reload_statuses(self) -> None:
        stored = self.repo.load_statuses()
        with self._lock:
            self._statuses = stored

    # ---- the checks ----------------------------------------------------------------------------

    def add(self, agent_id: str, spec: HealthCheckSpec, actor: str = "system") -> bool:
        """Set the agent's check (an agent has at most one); True when it replaced one. Persisted."""
        validate_id(agent_id, "agent_id")
        if not self.agents.known(agent_id):
            raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
        with self._lock:
            # As stored (another sidecar may have added it), in the transaction of AddHealthCheck's record.
            replaced = self.repo.save_check(agent_id, spec, self.clock.utcnow())
            self._checks[agent_id] = spec
            self._added[agent_id] = self.clock.monotonic()
            self._statuses.pop(agent_id, None)
        self.audit.record(actor, "recovery.health_check.add", agent_id, {"kind": spec.kind.value, "replaced": replaced})
        return replaced

    def remove(self, agent_id: str, actor: str = "system") -> None:
        validate_id(agent_id, "agent_id")
        if not self.forget(agent_id):
            raise NotFound(f"agent {agent_id!r} has no health check", field="agent_id")
        self.audit.record(actor, "recovery.health_check.remove", agent_id, {})

    def forget(self, agent_id: str) -> bool:
        """Drop the agent's check and status (EJECT, REPLACE, kill); False when it had no check."""
        with self._lock:
            had = self._checks.pop(agent_id, None) is not None
            self._added.pop(agent_id, None)
            self._statuses.pop(agent_id, None)
            if had:
                self.repo.delete_check(agent_id)
        return had

    def spec(self, agent_id: str) -> HealthCheckSpec | None:
        return self._checks.get(agent_id)

    def last_status(self, agent_id: str) -> HealthStatus | None:
        return self._statuses.get(agent_id)

    def is_unhealthy(self, agent_id: str) -> bool:
        status = self._statuses.get(agent_id)
        return status is not None and not status.healthy

    def targets(self, group: str = "") -> list[str]:
        """Agents with a check that are still members of their group (registered, not ejected), by id."""
        out = []
        for agent_id in sorted(self._checks):
            current = self.agents.group_of(agent_id)
            if current is None or current == EJECTED_GROUP or (group and current != group):
                continue
            out.append(agent_id)
        return out

    # ---- running ---------------------------------------------------------------------------------

    async def run(self, agent_id: str) -> HealthStatus:
        """Run the agent's check once under its own timeout; a raising check is a failed one."""
        spec = self._checks.get(agent_id)
        started = self.clock.monotonic()
        try:
            if spec is None:
                raise LookupError(f"agent {agent_id!r} has no health check")
            healthy, reason = await self._probe(agent_id, spec)
        except Exception as exc:
            healthy, reason = False, f"check raised: {exc or type(exc).__name__}"
        status = HealthStatus(
            agent_id, healthy, reason, self.clock.utcnow(), max(0.0, self.clock.monotonic() - started)
        )
        if agent_id in self._checks:
            self._statuses[agent_id] = status
            try:  # every sidecar's GetAgentRecoveryStatus and substitute choice see it
                await asyncio.to_thread(self.repo.save_status, status)
            except Exception:  # the check's verdict stands; only its sharing failed
                log.exception("could not store a health-check result", extra={"agent_id": agent_id})
        return status

    async def _probe(self, agent_id: str, spec: HealthCheckSpec) -> tuple[bool, str]:
        if spec.kind is CheckKind.PING:
            result = await self.hub.request(agent_id, CommandType.PING, "health check", spec.timeout)
            if result.succeeded:
                return True, ""
            if result.delivery is Delivery.TIMEOUT:
                return False, ping_timeout_reason(spec.timeout)
            return False, failure_detail(result, "ping", spec.timeout)
        if spec.kind is CheckKind.HEARTBEAT:
            seen = self.hub.last_seen(agent_id)
            baseline = max(self._added.get(agent_id, self.hub.started), self.hub.started)
            last = max(seen[0], baseline) if seen else baseline
            return heartbeat_verdict(spec.silence_threshold, last, self.clock.monotonic())
        try:
            if spec.kind is CheckKind.GRPC:
                return await asyncio.wait_for(
                    self.probes.grpc(spec.target, spec.service, spec.timeout), spec.timeout + _PROBE_GRACE
                )
            return await asyncio.wait_for(self.probes.http(spec.url, spec.timeout), spec.timeout + _PROBE_GRACE)
        except TimeoutError:
            return False, f"{spec.kind.value} check timed out after {spec.timeout:g}s"
