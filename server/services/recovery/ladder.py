"""RecoveryService use cases (the SupervisorAgent library's AgentRecoveryManager): policies, the recovery ladder,
health-check
runs, the monitoring job, retry counts, history and the agents' recovery status."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from server.domain.agents import DEFAULT_GROUP, Agent, validate_id
from server.domain.errors import InvalidArgument, NotFound
from server.domain.recovery.codec import to_json
from server.domain.recovery.control import CommandType
from server.domain.recovery.events import RecoveryEventType
from server.domain.recovery.health import CheckKind, HealthStatus, MonitoringState
from server.domain.recovery.kill import SubstituteScope
from server.domain.recovery.ladder import (
    EJECTED_GROUP,
    AgentRecoveryStatus,
    Escalation,
    HistoryFilter,
    RecoveryAction,
    RecoveryPolicy,
    RecoveryResult,
    RecoveryState,
    RecoveryTrigger,
    builtin_policy,
    cooldown_detail,
    new_policy,
    plan_attempt,
    state_after,
)
from server.domain.values import digest
from server.services import observability as obs
from server.services import pages
from server.services.fleet.jobs import FleetJobs
from server.services.fleet.ports import POLICIES_TOPIC, SETTINGS_TOPIC, STATES_TOPIC, ChangeFeed
from server.services.ports import Clock, Page
from server.services.recovery.agents import AgentService
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.events import EventAuditor
from server.services.recovery.health_checks import HealthCheckService
from server.services.recovery.ports import MonitorScheduler, RecoveryRepository
from server.services.recovery.settings import DEFAULT_MONITOR_INTERVAL
from server.services.recovery.substitutes import SubstituteRegistry

log = logging.getLogger(__name__)

_MONITORING_KEY = "monitoring"
MONITOR_ROLE = "monitor-network-checks"  # the elected sidecar that runs every grpc and http check
_POLICY_FILE_KEY = "policy_file"


@dataclass(frozen=True, slots=True)
class _Outcome:
    success: bool
    detail: str
    replacement: str = ""
    command_id: str = ""


class RecoveryService:
    def __init__(
        self,
        repo: RecoveryRepository,
        hub: ControlChannelHub,
        agents: AgentService,
        health: HealthCheckService,
        substitutes: SubstituteRegistry,
        events: EventAuditor,
        clock: Clock,
        *,
        file_policies: Sequence[RecoveryPolicy] = (),
        command_timeout: float = 30.0,
        monitor_interval: float = DEFAULT_MONITOR_INTERVAL,
        is_being_killed: Callable[[str], bool] = lambda agent_id: False,
        changes: ChangeFeed | None = None,
        jobs: FleetJobs | None = None,
        fleet: bool = False,
    ) -> None:
        self.repo = repo
        self.hub = hub
        self.agents = agents
        self.health = health
        self.substitutes = substitutes
        self.events = events
        self.clock = clock
        self.file_policies = tuple(file_policies)
        self.command_timeout = command_timeout
        self.monitor_interval = monitor_interval
        self._lock = threading.Lock()
        self._policies: dict[str, RecoveryPolicy] = {}
        self._states: dict[str, RecoveryState] = {}
        self._agent_locks: dict[str, asyncio.Lock] = {}
        self._monitor: MonitorScheduler | None = None
        self._monitoring = MonitoringState()
        # The kill switch's: agents being killed are never promoted.
        self.is_being_killed = is_being_killed
        # Several sidecars share the storage (PostgreSQL): each runs only the checks it owns (see
        # `owns_check`); the `grpc`/`http` ones need the elected role held through `jobs`.
        self.fleet = fleet
        self.jobs = jobs
        if changes is not None:  # other sidecars' policy changes and attempts, monitoring on/off
            changes.subscribe(POLICIES_TOPIC, lambda _group: self._reload_policies(), self._reload_policies)
            changes.subscribe(STATES_TOPIC, self._state_changed_elsewhere, self._reload_states)
            changes.subscribe(SETTINGS_TOPIC, self._setting_changed_elsewhere, self._follow_monitoring)

    def load(self) -> None:
        """Stored policies (the file's replace them when its `recovery.policies` changed), states, monitoring."""
        self._apply_file(force=False)
        with self._lock:
            self._policies = {p.group: p for p in self.repo.load_policies()}
            self._states = self.repo.load_states()
            raw = self.repo.get_setting(_MONITORING_KEY) or {}
            if raw.get("running"):
                self._monitoring = MonitoringState(True, float(raw["interval"]), self.clock.utcnow())

    def _setting_changed_elsewhere(self, key: str) -> None:
        if key == _MONITORING_KEY:
            self._follow_monitoring()

    def _follow_monitoring(self) -> None:
        """StartMonitoring / StopMonitoring on another sidecar (or a changed interval): do the same here."""
        raw = self.repo.get_setting(_MONITORING_KEY) or {}
        running, interval = bool(raw.get("running")), float(raw.get("interval") or 0)
        with self._lock:
            now = self._monitoring
            if running and interval > 0 and (not now.running or now.interval != interval):
                self._monitoring = MonitoringState(True, interval, self.clock.utcnow(), now.last_run_time)
                if self._monitor is not None:
                    self._monitor.schedule(interval, self.run_scheduled)
                log.info("monitoring started elsewhere in the fleet", extra={"interval": interval})
            elif not running and now.running:
                self._monitoring = replace(now, running=False)
                if self._monitor is not None:
                    self._monitor.unschedule()
                log.info("monitoring stopped elsewhere in the fleet")

    def _reload_policies(self) -> None:
        with self._lock:
            self._policies = {p.group: p for p in self.repo.load_policies()}

    def _reload_states(self) -> None:
        with self._lock:
            self._states = self.repo.load_states()

    def _state_changed_elsewhere(self, agent_id: str) -> None:
        with self._lock:
            state = self.repo.get_state(agent_id)
            if state is None:
                self._states.pop(agent_id, None)
            else:
                self._states[agent_id] = state

    def _apply_file(self, force: bool) -> None:
        file_digest = digest(to_json(list(self.file_policies)))
        stored = (self.repo.get_setting(_POLICY_FILE_KEY) or {}).get("digest")
        if force or stored != file_digest:
            now = self.clock.utcnow()
            self.repo.apply_file_policies([replace(p, update_time=now) for p in self.file_policies])
            self.repo.put_setting(_POLICY_FILE_KEY, {"digest": file_digest}, now)
            log.info("recovery policies applied from the policy file", extra={"policies": len(self.file_policies)})

    def reload_file_policies(self, policies: Sequence[RecoveryPolicy]) -> None:
        """The policy file was reloaded (SIGHUP, ReloadPolicy): its policies replace the file's old ones."""
        self.file_policies = tuple(policies)
        self._apply_file(force=True)
        with self._lock:
            self._policies = {p.group: p for p in self.repo.load_policies()}

    def follow_file_policies(self, policies: Sequence[RecoveryPolicy]) -> None:
        """Another sidecar applied the fleet's policy file and stored its policies: read them back."""
        self.file_policies = tuple(policies)
        self._reload_policies()

    # ---- policies -----------------------------------------------------------------------------

    def policy_for(self, group: str) -> RecoveryPolicy:
        group = group or DEFAULT_GROUP
        return self._policies.get(group) or builtin_policy(group)

    def set_policy(
        self,
        group: str,
        max_retries: int | None,
        escalate_after: int | None,
        cooldown: float | None,
        default_action: RecoveryAction | None,
        actor: str = "system",
    ) -> RecoveryPolicy:
        policy = new_policy(
            group, max_retries, escalate_after, cooldown, default_action, now=self.clock.utcnow(), source="runtime"
        )
        with self._lock:
            self.repo.save_policy(policy)
            self._policies[policy.group] = policy
        self.events.audit.record(actor, "recovery.policy.set", policy.group, _policy_details(policy))
        return policy

    def list_policies(self, page_size: int, page_token: str) -> Page[RecoveryPolicy]:
        policies = sorted(self._policies.values(), key=lambda p: p.group)
        return pages.page(policies, lambda p: p.group, page_size, page_token)

    # ---- the ladder -----------------------------------------------------------------------------

    def _agent_lock(self, agent_id: str) -> asyncio.Lock:
        lock = self._agent_locks.get(agent_id)
        if lock is None:
            lock = self._agent_locks[agent_id] = asyncio.Lock()
        return lock

    @obs.traced("recovery attempt")
    async def trigger(
        self,
        agent_id: str,
        reason: str,
        trigger: RecoveryTrigger = RecoveryTrigger.MANUAL,
        request_id: str = "",
        actor: str = "system",
    ) -> RecoveryResult:
        """One recovery attempt, exactly as the source: cooldown, then EJECT / ESCALATE / default action."""
        validate_id(agent_id, "agent_id")
        if request_id:
            earlier = await asyncio.to_thread(self.repo.find_attempt, request_id)
            if earlier is not None:
                return earlier
        if self.agents.group_of(agent_id) is None and not await asyncio.to_thread(self.agents.known, agent_id):
            raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
        async with self._agent_lock(agent_id):
            group = self.agents.group_of(agent_id) or DEFAULT_GROUP
            policy = self.policy_for(group)
            # Fresh from storage: another sidecar's attempt moves the count and the cooldown too.
            state = await asyncio.to_thread(self.repo.get_state, agent_id) or RecoveryState()
            now = self.clock.utcnow()
            plan = plan_attempt(policy, state.retry_count, state.last_attempt_time, now)
            if plan.action is None:
                return RecoveryResult(
                    "", agent_id, group, None, False, cooldown_detail(plan.cooldown_left), reason, trigger,
                    state.retry_count, in_cooldown=True, attempt_time=now, request_id=request_id,
                )  # fmt: skip
            recovery_id = uuid.uuid4().hex
            outcome = await self._execute(plan.action, agent_id, group, reason, plan.retries_before)
            result = RecoveryResult(
                recovery_id, agent_id, group, plan.action, outcome.success, outcome.detail, reason, trigger,
                plan.retries_before + 1, replacement_agent_id=outcome.replacement, command_id=outcome.command_id,
                attempt_time=now, request_id=request_id,
            )  # fmt: skip
            stored = await asyncio.to_thread(self.repo.record_attempt, result, state_after(state, result))
            self._states[agent_id] = stored
        await self._announce(result, plan.retries_before, actor)
        return result

    async def _announce(self, result: RecoveryResult, retries_before: int, actor: str) -> None:
        await self.events.emit(RecoveryEventType.RECOVERY_ATTEMPT, result.agent_id, result)
        if result.action_taken is RecoveryAction.ESCALATE and result.attempt_time is not None:
            escalation = Escalation(
                result.agent_id, result.group, retries_before, result.reason, result.recovery_id, result.attempt_time
            )
            await self.events.emit(RecoveryEventType.ESCALATION, result.agent_id, escalation)
        await self.events.record(actor, "recovery.attempt", result.agent_id, to_json(result))
        log.info(
            "recovery attempt",
            extra={"agent_id": result.agent_id, "action": result.action_taken, "detail": result.detail},
        )

    async def _execute(self, action: RecoveryAction, agent_id: str, group: str, reason: str, retries: int) -> _Outcome:
        if action in (RecoveryAction.RESTART, RecoveryAction.RESTART_CLEAN):
            kind = CommandType.RESTART if action is RecoveryAction.RESTART else CommandType.RESTART_CLEAN
            command_id = await self.hub.post(agent_id, kind, reason or "recovery", self.command_timeout)
            word = action.name.lower().replace("_", " ")
            if not command_id:
                return _Outcome(True, f"not connected: {word} not sent")
            return _Outcome(True, f"{word} sent (command {command_id})", command_id=command_id)
        if action is RecoveryAction.ESCALATE:
            return _Outcome(True, f"escalated after {retries} failed attempts")
        ejected = await asyncio.to_thread(self._eject, agent_id, group)
        if action is RecoveryAction.EJECT:
            return _Outcome(True, ejected)
        replacement = await self._promote_substitute(agent_id, group)
        if replacement:
            return _Outcome(True, f"{ejected}; replaced by {replacement}", replacement=replacement)
        return _Outcome(True, f"{ejected}; no healthy substitute to promote")

    def _eject(self, agent_id: str, group: str) -> str:
        """Out of the group, with its health check (its retry count goes with the recorded state)."""
        self.health.forget(agent_id)
        # Quarantined, not freed: out of its group it would escape the group's deny lists.
        self.agents.quarantine(agent_id, f"ejected from group {group}")
        if group == EJECTED_GROUP:
            return "not a member of any group"
        self.agents.move(agent_id, EJECTED_GROUP)
        return f"ejected from group {group}"

    async def _promote_substitute(self, agent_id: str, group: str) -> str:
        """The first substitute registered for the group that is live and healthy joins it."""
        for candidate in self.substitutes.ordered(SubstituteScope.GROUP, group):
            if (
                candidate == agent_id
                or self.agents.group_of(candidate) is None
                or self.agents.containment_of(candidate) is not None
                or self.is_being_killed(candidate)
            ):
                continue
            if self.health.spec(candidate) is not None:
                if not (await self.health.run(candidate)).healthy:
                    continue
            elif self.health.is_unhealthy(candidate):
                continue
            await asyncio.to_thread(self._promote, candidate, group)
            return candidate
        return ""

    def _promote(self, agent_id: str, group: str) -> None:
        self.agents.move(agent_id, group)
        self.substitutes.discard(SubstituteScope.GROUP, group, agent_id)

    # ---- health-check runs and the monitoring job --------------------------------------------------

    @obs.traced("health checks")
    async def run_health_checks(
        self, group: str = "", request_id: str = "", caller: str = ""
    ) -> tuple[list[HealthStatus], list[RecoveryResult]]:
        """Every member's check at once, each under its own timeout; failures start recovery attempts.

        Not one transaction: the checks reach the agents, and each attempt is stored in its own. With a
        `request_id` (RunHealthChecks), each attempt carries a request id of its own derived from it, the
        caller and the agent, which `trigger` looks up first: a retry whose first answer was lost runs the
        checks again (they only read) and answers their new statuses, but an agent the first call started
        a recovery of gets that attempt back, never a second one."""
        if group:
            validate_id(group, "group")

        def attempt_id(agent_id: str) -> str:
            if not request_id:
                return ""
            return "health-checks-" + hashlib.sha256(f"{caller}\n{request_id}\n{agent_id}".encode()).hexdigest()[:40]

        async def one(agent_id: str) -> tuple[HealthStatus, RecoveryResult | None]:
            status = await self.health.run(agent_id)
            if status.healthy:
                return status, None
            await self.events.emit(RecoveryEventType.HEALTH_CHECK_FAILED, agent_id, status)
            try:
                return status, await self.trigger(
                    agent_id, status.reason, RecoveryTrigger.HEALTH_CHECK, attempt_id(agent_id)
                )
            except NotFound:  # deregistered meanwhile
                return status, None

        holders = await asyncio.to_thread(self._channel_holders)
        targets = [a for a in self.health.targets(group) if self.owns_check(a, holders)]
        results = await asyncio.gather(*(one(a) for a in targets))
        statuses = [s for s, _ in results]
        recoveries = [r for _, r in results if r is not None]
        return statuses, recoveries

    def _channel_holders(self) -> dict[str, str] | None:
        """Agent id -> the present sidecar holding its control channel, from the attachments table (one
        read per run; blocking). None: alone on the storage, or no table (this sidecar's streams decide)."""
        attachments = self.hub.attachments
        if not self.fleet or attachments is None:
            return None
        rows = attachments.all()
        present = {sid: attachments.present(sid) for sid in {a.sidecar_id for a in rows}}
        return {a.agent_id: a.sidecar_id for a in rows if present[a.sidecar_id]}

    def owns_check(self, agent_id: str, holders: dict[str, str] | None = None) -> bool:
        """Whether this sidecar runs the agent's check. Alone on its storage: every check. In a fleet,
        `ping` and `heartbeat` run on the sidecar holding the agent's control channel (no other can see
        it: a ping goes down that channel, heartbeats arrive on it; `holders` is the attachments table),
        and `grpc`/`http` on the one sidecar holding the elected role `MONITOR_ROLE` (the lease in
        `fleet_jobs`), which also judges ping and heartbeat checks of agents attached to no present
        sidecar (as one sidecar alone would: not connected, silent). So no check runs twice."""
        if not self.fleet:
            return True
        spec = self.health.spec(agent_id)
        if spec is None:
            return False
        elected = self.jobs is not None and self.jobs.holds(MONITOR_ROLE)
        if spec.kind in (CheckKind.PING, CheckKind.HEARTBEAT):
            if holders is None:
                return self.hub.is_connected(agent_id)
            holder = holders.get(agent_id)
            if holder is None:
                return elected and not self.hub.is_connected(agent_id)
            return holder == self.jobs.owner if self.jobs is not None else self.hub.is_connected(agent_id)
        return elected

    def attach_monitor(self, monitor: MonitorScheduler) -> None:
        """Called once the scheduler exists; resumes a monitoring job that was running before a restart."""
        self._monitor = monitor
        if self._monitoring.running and self._monitoring.interval:
            monitor.schedule(self._monitoring.interval, self.run_scheduled)

    def start_monitoring(self, interval: float | None, actor: str = "system") -> MonitoringState:
        interval = self.monitor_interval if interval is None else interval
        if interval <= 0:
            raise InvalidArgument("interval must be positive", field="interval")
        now = self.clock.utcnow()
        with self._lock:
            started = MonitoringState(True, interval, now, self._monitoring.last_run_time)
            # StartMonitoring's idempotency record goes with the setting: a retry after a lost answer gets
            # this state (its next run planned one interval after the start) and never restarts monitoring
            # an operator has stopped since.
            answer = replace(started, next_run_time=now + timedelta(seconds=interval))
            self.repo.put_setting(_MONITORING_KEY, {"running": True, "interval": interval}, now, answer)
            self._monitoring = started
            if self._monitor is not None:
                self._monitor.schedule(interval, self.run_scheduled)
        self.events.audit.record(actor, "recovery.monitoring.start", "health-checks", {"interval": interval})
        return self.monitoring_state()

    def stop_monitoring(self, actor: str = "system") -> MonitoringState:
        with self._lock:
            was = self._monitoring.running
            if was:  # StopMonitoring's idempotency record goes with the setting
                answer = replace(self._monitoring, running=False, next_run_time=None)
                self.repo.put_setting(_MONITORING_KEY, {"running": False}, self.clock.utcnow(), answer)
            self._monitoring = replace(self._monitoring, running=False)
            if self._monitor is not None:
                self._monitor.unschedule()
        if was:
            self.events.audit.record(actor, "recovery.monitoring.stop", "health-checks", {})
        return self.monitoring_state()

    def monitoring_state(self) -> MonitoringState:
        state = self._monitoring
        next_run = self._monitor.next_run_time() if (self._monitor and state.running) else None
        return replace(state, next_run_time=next_run)

    def run_scheduled(self) -> None:
        """The monitoring job (scheduler thread): one run of every check on the server's loop."""
        self._monitoring = replace(self._monitoring, last_run_time=self.clock.utcnow())
        try:
            self.hub.run_sync(self.run_health_checks(), timeout=max(60.0, (self._monitoring.interval or 0) * 10))
        except Exception:
            log.exception("scheduled health checks failed")

    # ---- retry counts, history, status ------------------------------------------------------------

    def retry_count(self, agent_id: str) -> int:
        validate_id(agent_id, "agent_id")
        return self._states.get(agent_id, RecoveryState()).retry_count

    def reset_retry_counter(self, agent_id: str, actor: str = "system") -> int:
        validate_id(agent_id, "agent_id")
        with self._lock:
            state = self.repo.get_state(agent_id)  # fresh: the count may have moved on another sidecar
            if state is None or state.retry_count == 0:
                return 0
            new = replace(state, retry_count=0)
            self.repo.save_state(agent_id, new, state.retry_count)  # with ResetRetryCounter's record
            self._states[agent_id] = new
        self.events.audit.record(actor, "recovery.retry_count.reset", agent_id, {"previous": state.retry_count})
        return state.retry_count

    def forget(self, agent_id: str) -> None:
        """Drop everything recovery holds about the agent (the kill switch's unregistration)."""
        with self._lock:
            if self._states.pop(agent_id, None) is not None:
                self.repo.delete_state(agent_id)
        lock = self._agent_locks.get(agent_id)
        if lock is not None and not lock.locked():  # a held one is still serialising an attempt: it stays
            self._agent_locks.pop(agent_id, None)
        self.health.forget(agent_id)

    def history(self, flt: HistoryFilter, page_size: int, page_token: str) -> Page[RecoveryResult]:
        if flt.start_time and flt.end_time and flt.end_time < flt.start_time:
            raise InvalidArgument("end_time is before start_time", field="end_time")
        return self.repo.history(flt, page_size, page_token)

    def status(self, agent_id: str) -> AgentRecoveryStatus:
        return self._status(self.agents.get(agent_id))

    def list_statuses(self, group: str, page_size: int, page_token: str) -> Page[AgentRecoveryStatus]:
        page = self.agents.list(group, page_size, page_token)
        return Page([self._status(a) for a in page.items], page.next_page_token)

    def _status(self, agent: Agent) -> AgentRecoveryStatus:
        state = self._states.get(agent.agent_id, RecoveryState())
        conn = self.hub.connection(agent.agent_id)
        seen = self.hub.last_seen(agent.agent_id)
        return AgentRecoveryStatus(
            agent=agent,
            health_check=self.health.spec(agent.agent_id),
            last_status=self.health.last_status(agent.agent_id),
            retry_count=state.retry_count,
            connected=conn is not None,
            connect_time=conn.connect_time if conn else None,
            last_seen_time=seen[1] if seen else None,
            last_recovery=state.last_recovery,
            escalated=state.escalated,
        )


def _policy_details(p: RecoveryPolicy) -> dict[str, object]:
    return {
        "max_retries": p.max_retries,
        "escalate_after": p.escalate_after,
        "cooldown": p.cooldown,
        "default_action": p.default_action.name,
    }
