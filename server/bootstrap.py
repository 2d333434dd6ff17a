"""The composition root: the one place that wires concrete classes into services (`build_services`); the gRPC
server around them is server/sidecar.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.adapters.audit_keys import AuditKeys
from server.adapters.decision_journal import FileDecisionJournal
from server.adapters.memory.cascade import MemoryCascadeWindow
from server.adapters.memory.fleet import MemoryFleetPolicy, MemoryJobClaims
from server.adapters.notifications import build_senders
from server.adapters.notifications.render import slack_message
from server.adapters.notifications.slack import SlackWebApi
from server.adapters.policy_file import FilePolicySource
from server.adapters.probes import NetworkProbes
from server.config import Config, ConfigError, from_file
from server.container import Repositories, Services
from server.domain.errors import InvalidArgument
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.safeguards.breakers import BreakerState
from server.services.access.credentials import AccessService
from server.services.access.users import UserService
from server.services.approvals.requests import ApprovalService
from server.services.clock import SystemClock
from server.services.fleet.attachments import AttachmentService
from server.services.fleet.freshness import CacheFreshness
from server.services.fleet.jobs import FleetJobs
from server.services.fleet.policy import FleetPolicyService, start_policy
from server.services.fleet.sidecars import SidecarService, new_sidecar_id
from server.services.idempotency import IdempotencyService, MemoryIdempotency
from server.services.notifications.outbox import NotificationService
from server.services.notifications.planner import NotificationPlanner
from server.services.notifications.slack import API_TIMEOUT as SLACK_API_TIMEOUT
from server.services.notifications.slack import SlackInteractions
from server.services.ports import AuditSink, Clock
from server.services.recovery.agents import AgentService
from server.services.recovery.cascade import BreakerOpener, CascadeService
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.events import EventAuditor, RecoveryEventLog
from server.services.recovery.feature import RecoveryFeature
from server.services.recovery.health_checks import HealthCheckService, Probes
from server.services.recovery.kills import KillHook, KillService, ReversibilityLookup, compensation_from
from server.services.recovery.ladder import RecoveryService
from server.services.recovery.substitutes import SubstituteRegistry
from server.services.safeguards.breakers import BreakerService, CascadeReporter, LoggingBreakerListener
from server.services.safeguards.budgets import BudgetService, LoggingSignalSink
from server.services.safeguards.episodes import EpisodeService
from server.services.safeguards.events import SafeguardEventBridge
from server.services.safeguards.leases import LeaseService
from server.services.safeguards.reversibility import ReversibilityService
from server.services.supervisor.chain import ChainStore
from server.services.supervisor.check import CheckActionService
from server.services.supervisor.decision_log import DecisionLog
from server.services.supervisor.explain import ExplainService
from server.services.supervisor.plugins import PluginModules
from server.services.supervisor.rates import RateWindows
from server.storage.access.tokens import SqlTokenRepository
from server.storage.access.users import SqlSessionRepository, SqlSettingsRepository, SqlUserRepository
from server.storage.approvals.repository import SqlApprovalRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate
from server.storage.fleet.attachments import SqlAttachmentRepository
from server.storage.fleet.changes import ChangeLog
from server.storage.fleet.commands import SqlCommandRepository
from server.storage.fleet.jobs import SqlJobClaims
from server.storage.fleet.policy import SqlFleetPolicyRepository
from server.storage.fleet.rates import SqlRateWindowRepository
from server.storage.fleet.sidecars import SqlSidecarRepository
from server.storage.idempotency import SqlIdempotencyRepository
from server.storage.notifications.repository import SqlNotificationRepository
from server.storage.notifications.slack import SqlSlackMessages
from server.storage.recovery.cascade import SqlCascadeWindow
from server.storage.recovery.repository import SqlKillRepository, SqlRecoveryEventRepository, SqlRecoveryRepository
from server.storage.safeguards.breakers import SqlBreakerRepository
from server.storage.safeguards.budgets import SqlBudgetLedger
from server.storage.safeguards.leases import SqlLeaseRepository
from server.storage.safeguards.repository import SqlSafeguardRepository
from server.storage.supervisor.repository import SqlAgentRepository, SqlDecisionRepository, SqlGuardrailRepository
from server.telemetry.sdk import Telemetry, build_telemetry, observe

log = logging.getLogger(__name__)


def sql_repositories(
    engine: Engine, planner: NotificationPlanner | None = None, changes: ChangeLog | None = None
) -> Repositories:
    """The production repositories, all on one database engine. With a `planner`, recovery events and
    completed kills write the notifications they cause in their own transaction. `changes` is this
    sidecar's one change listener (and the counters and NOTIFY its writers use)."""
    changes = changes or ChangeLog(engine, new_sidecar_id())
    safeguards = SqlSafeguardRepository(engine)
    fleet = changes.enabled  # several sidecars (or workers) share the database: commands are routed
    return Repositories(
        agents=SqlAgentRepository(engine, changes),
        guardrails=SqlGuardrailRepository(engine, changes),
        decisions=SqlDecisionRepository(engine),
        tokens=SqlTokenRepository(engine, changes),
        users=SqlUserRepository(engine),
        settings=SqlSettingsRepository(engine),
        sessions=SqlSessionRepository(engine),
        approvals=SqlApprovalRepository(engine, changes),
        audit=SqlAuditRepository(engine),
        recovery=SqlRecoveryRepository(engine, changes),
        recovery_events=SqlRecoveryEventRepository(
            engine, notices=planner.for_recovery_event if planner else None, changes=changes
        ),
        kills=SqlKillRepository(engine, notices=planner.for_kill if planner else None, changes=changes),
        breakers=SqlBreakerRepository(engine, changes),
        budgets=SqlBudgetLedger(engine, changes),
        episodes=safeguards,
        leases=SqlLeaseRepository(engine, changes),
        idempotency=SqlIdempotencyRepository(engine),
        job_claims=SqlJobClaims(engine),
        notifications=SqlNotificationRepository(engine),
        slack_messages=SqlSlackMessages(engine),
        sidecars=SqlSidecarRepository(engine),
        changes=changes,
        fleet_policy=SqlFleetPolicyRepository(engine, changes),
        attachments=SqlAttachmentRepository(engine) if fleet else None,
        commands=SqlCommandRepository(engine, changes) if fleet else None,
        rate_windows=SqlRateWindowRepository(engine) if fleet else None,
        cascade_window=SqlCascadeWindow(engine),
    )


def build_services(
    config: Config,
    *,
    repos: Repositories | None = None,
    clock: Clock | None = None,
    probes: Probes | None = None,
    policy: FilePolicySource | None = None,
    telemetry: Telemetry | None = None,
    audit_keys: AuditKeys | None = None,
) -> Services:
    """Every service, loaded and ready, by constructor injection. Without `repos`, the SQL repositories on
    the configured database (migrated first); tests pass in-memory ones, a fake clock and fake probes.
    With the SQL repositories the audit chain is sealed with the keys of audit.key_file (created on first
    start) unless `audit_keys` are given; on fakes it is keyed only when they are.
    `services.close()` releases what was built, in reverse order."""
    clock = clock or SystemClock()
    telemetry = telemetry or build_telemetry(config.telemetry)
    closers: list[Callable[[], None]] = [telemetry.shutdown]
    sidecar_id = new_sidecar_id()
    n = config.notifications
    planner = NotificationPlanner(
        n.routes,
        config.console_public_url,
        config.sensitive_keys,
        n.context_keys,
        in_place=[c.name for c in n.channels if c.updates_in_place],
    )
    single_process = True  # in-memory repositories; SQLite too, unless workers share the file
    enforce_policy = False
    on_sql = repos is None
    if repos is None:
        if config.db_url is None:
            config.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_db_engine(config.database_url())
        migrate(engine)
        closers.append(engine.dispose)
        # A worker of `serve --workers` shares even a SQLite file with the other workers.
        changes = ChangeLog(engine, sidecar_id, poll_interval=config.fleet.resync_interval, shared=config.reuse_port)
        repos = sql_repositories(engine, planner if n.enabled else None, changes)
        single_process = not changes.enabled
        # Sidecars on one PostgreSQL may have different policy files; the workers on one SQLite file share one.
        enforce_policy = engine.dialect.name == "postgresql"
        if audit_keys is None:
            audit_keys = load_audit_keys(config)  # production: the chain is keyed (docs/security.md)
    sidecar_id = getattr(repos.changes, "origin", sidecar_id)  # one id for the listener, kills and `sidecars`
    if policy is None and config.config_path is not None:
        policy = FilePolicySource(config.config_path)
    fleet_policies = repos.fleet_policy or MemoryFleetPolicy()
    try:
        # The fleet's one policy decides what is built below (a file that differs may refuse the start).
        start = start_policy(fleet_policies, policy, apply=config.apply_policy, enforce=enforce_policy)
        sections = _policy_config(config.config_path, start.document)
        audit = open_audit_trail(config, repos.audit, clock, audit_keys)  # the audit.keyed marker, checkpoints
    except BaseException:
        for close in reversed(closers):  # e.g. another key on this database: release what was opened
            close()
        raise
    closers.append(audit.close)  # the last signed checkpoint: after the decision log's last records
    # On SQL storage, decisions it cannot take wait in a local journal under the data dir (opened by start()).
    journal = (lambda: FileDecisionJournal(config.data_dir, config.decision_log.journal_max_bytes)) if on_sql else None
    decisions = DecisionLog(
        repos.decisions, clock, config.decision_log, audit, sensitive_keys=config.sensitive_keys, journal=journal
    )
    access = AccessService(repos.tokens, clock, audit, repos.changes)
    access.load()
    users = UserService(repos.users, repos.settings, clock, audit, sessions=repos.sessions)
    agents = AgentService(repos.agents, settings=config.agents, audit=audit, clock=clock, changes=repos.changes)
    agents.load()
    approvals = ApprovalService(
        repos.approvals,
        clock,
        audit,
        agents,
        config.sensitive_keys,
        metrics=telemetry.metrics,
        notices=planner.for_approval if n.enabled else None,  # no channels: nothing is written to the outbox
        changes=repos.changes,
        max_pending_per_agent=config.max_pending_approvals_per_agent,
        abandoned_after=config.approvals_abandoned_after,
    )
    sg = config.safeguards
    episodes = EpisodeService(repos.episodes, clock, sg.max_episodes)
    leases = LeaseService(repos.leases, clock, sg.leases, audit)
    leases.attach(repos.changes)  # a lease ended on another sidecar wakes the waiters here
    reversibility = ReversibilityService(clock, sections.reversibility, agents.get)
    jobs = FleetJobs(repos.job_claims or MemoryJobClaims(), clock, sidecar_id)
    attachments = AttachmentService(repos.attachments, clock, config.fleet, sidecar_id) if repos.attachments else None
    recovery = _build_recovery(
        replace(
            config,
            recovery=replace(config.recovery, policies=sections.recovery.policies, cascade=sections.recovery.cascade),
        ),
        repos,
        jobs=jobs,
        fleet=not single_process,
        attachments=attachments,
        agents=agents,
        audit=audit,
        clock=clock,
        probes=probes,
        cancel_approvals=lambda kill: approvals.cancel_agent(
            kill.agent_id, kill.requested_by, f"agent killed ({kill.kill_id})"
        ),
        revoke_leases=lambda kill: leases.revoke_agent_leases(kill.agent_id, kill.requested_by),
        reversibility=compensation_from(reversibility.assess),
        # The breakers are built next (their listeners report to cascade detection): resolved at call time.
        open_breaker=lambda key, reason: breakers.trip(key, reason).state is BreakerState.OPEN,
    )
    bridge = SafeguardEventBridge(recovery.events, recovery.hub)
    breakers = BreakerService(
        repos.breakers,
        clock,
        sg.breakers,
        audit,
        [LoggingBreakerListener(), CascadeReporter(recovery.cascade.report_failure_threadsafe), bridge],
    )
    breakers.attach(repos.changes)  # other sidecars' breaker changes reload this cache
    budgets = BudgetService(
        repos.budgets, clock, sg.budgets, audit, [LoggingSignalSink(), bridge], changes=repos.changes
    )
    for loadable in (breakers, budgets, episodes, leases):
        loadable.load()
    plugin_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="plugin-guardrail")
    chain_pool = ThreadPoolExecutor(max_workers=config.chain_workers, thread_name_prefix="chain")
    rates = RateWindows(repos.rate_windows, clock) if repos.rate_windows is not None else None
    deps = GuardrailDeps(breakers=breakers, budgets=budgets, rates=rates)
    chain = ChainStore(
        repos.guardrails, policy, audit, PluginModules(config.plugin_modules), deps, changes=repos.changes
    )
    prepare, follow = _policy_sections(config.config_path, recovery, reversibility, agents)
    fleet_policy = FleetPolicyService(
        fleet_policies, policy, chain, prepare, follow, audit, clock, sidecar_id, changes=repos.changes
    )
    fleet_policy.start(
        start,
        lambda: start_policy(fleet_policies, policy, apply=config.apply_policy, enforce=enforce_policy),
        actor=_apply_actor() if config.apply_policy else "system",
    )
    # After the chain: a policy that does not load changes no record either. The file's records win.
    agents.apply_declared(sections.agents.records, source=str(config.config_path))
    checks = CheckActionService(
        chain,
        agents,
        decisions,
        approvals,
        plugin_executor=plugin_pool,
        max_context_bytes=config.max_context_bytes,
        release_permit=breakers.release_soon,
        assess_level=reversibility.level_of,
        sensitive_keys=config.sensitive_keys,
        tracer=telemetry.tracer,
        metrics=telemetry.metrics,
        clock=clock,
        chain_pool=chain_pool,
        offload_bytes=config.offload_context_bytes,
        max_offloaded=config.max_offloaded,
        max_inflight_per_agent=config.max_inflight_per_agent,
        max_streams_per_agent=config.max_check_streams_per_agent,
    )
    recovery.load()
    notifications = NotificationService(
        repos.notifications,
        clock,
        n,
        build_senders(n.channels, repos.slack_messages, clock.utcnow),
        planner,
        audit,
        pending_approvals=approvals.pending,
        single_process=single_process,
        metrics=telemetry.metrics,
        claim=jobs.due,
        slack_messages=repos.slack_messages,
    )
    # Wake the delivery worker when this process commits a change that may have written to the outbox;
    # rows other sidecars write are found by its poll (a PostgreSQL NOTIFY listener can call wake() too).
    approvals.subscribe(notifications.wake)
    recovery.events.add_listener(lambda _event: notifications.wake())
    # ... and when another sidecar commits an approval change (its outbox rows are then due too).
    repos.changes.subscribe("approvals", lambda _approval_id: notifications.wake(), notifications.wake)
    slack = SlackInteractions(
        n.channels,
        approvals,
        users,
        planner,
        slack_message,
        lambda c: SlackWebApi(c.api_base_url, c.bot_token, min(c.timeout, SLACK_API_TIMEOUT)),
        audit,
        clock,
        now=time.time,
    )
    decisions.start()
    # A sidecar that finds it was declared gone (paused past fleet.sidecar_timeout): its caches reloaded,
    # lapsed roles and kills taken over meanwhile given up, its streams' attachments re-asserted
    # (docs/fleet.md, "A paused sidecar").
    resumed: list[Callable[[], object]] = [
        repos.changes.resync_all,
        jobs.drop_lapsed,
        recovery.kills.give_up_taken_over,
    ]
    if attachments is not None:
        resumed.append(recovery.hub.stamp_attachments)
    fleet = SidecarService(repos.sidecars, clock, config.fleet, sidecar_id, on_resumed=resumed)
    repos.changes.start()  # every cache has subscribed by now
    closers += [
        lambda: plugin_pool.shutdown(wait=False, cancel_futures=True),
        lambda: chain_pool.shutdown(wait=False, cancel_futures=True),
        leases.close,
        decisions.stop,
        *([attachments.release_mine] if attachments else []),  # after the streams ended (recovery.close)
        recovery.close,
        breakers.events.close,
        breakers.writes.close,
        budgets.events.close,
        notifications.stop,
        repos.changes.stop,
    ]
    services = Services(
        config=config,
        agents=agents,
        chain=chain,
        checks=checks,
        explain=ExplainService(checks, audit, agents=config.explain_agents),
        decisions=decisions,
        access=access,
        audit=audit,
        approvals=approvals,
        users=users,
        recovery=recovery,
        breakers=breakers,
        budgets=budgets,
        episodes=episodes,
        leases=leases,
        reversibility=reversibility,
        telemetry=telemetry,
        notifications=notifications,
        slack=slack if slack.enabled else None,
        fleet=fleet,
        policy=fleet_policy,
        closers=closers,
        idempotency=IdempotencyService(repos.idempotency or MemoryIdempotency(), clock, config.idempotency_retention),
        jobs=jobs,
        freshness=CacheFreshness(repos.changes, config.fleet),
    )
    observe(telemetry, services)
    return services


def _build_recovery(
    config: Config,
    repos: Repositories,
    *,
    jobs: FleetJobs,
    fleet: bool,
    attachments: AttachmentService | None,
    agents: AgentService,
    audit: AuditSink,
    clock: Clock,
    probes: Probes | None,
    cancel_approvals: KillHook,
    revoke_leases: KillHook,
    reversibility: ReversibilityLookup,
    open_breaker: BreakerOpener,
) -> RecoveryFeature:
    """The recovery feature: control channel, events, health checks, substitutes, the ladder, kills, cascades."""
    settings = config.recovery
    hub = ControlChannelHub(clock, attachments, repos.commands, repos.changes)
    events = RecoveryEventLog(repos.recovery_events, repos.recovery, clock, settings.event_max_rows, repos.changes)
    emitter = EventAuditor(events, audit)
    health = HealthCheckService(repos.recovery, hub, agents, clock, audit, probes or NetworkProbes(), repos.changes)
    substitutes = SubstituteRegistry(repos.kills, agents, clock, audit, repos.changes)
    recovery = RecoveryService(
        repos.recovery,
        hub,
        agents,
        health,
        substitutes,
        emitter,
        clock,
        file_policies=settings.policies,
        command_timeout=settings.command_timeout,
        monitor_interval=settings.monitor_interval,
        # The kill switch is built next and needs the ladder: resolved at call time.
        is_being_killed=lambda agent_id: kills.is_being_killed(agent_id),
        changes=repos.changes,
        jobs=jobs,
        fleet=fleet,
    )
    kills = KillService(
        repos.kills,
        hub,
        agents,
        health,
        recovery,
        substitutes,
        emitter,
        clock,
        callback_timeout=settings.callback_timeout,
        handoff_timeout=settings.handoff_timeout,
        cancel_approvals=cancel_approvals,
        revoke_leases=revoke_leases,
        reversibility=reversibility,
        owner_timeout=config.fleet.sidecar_timeout,
    )
    cascade = CascadeService(
        repos.recovery,
        kills,
        emitter,
        clock,
        settings.cascade,
        open_breaker,
        observed_failing=health.is_unhealthy,
        window=repos.cascade_window or MemoryCascadeWindow(),
    )
    return RecoveryFeature(settings, hub, events, health, substitutes, recovery, kills, cascade)


def _policy_config(path: Path | None, document: dict[str, Any] | None) -> Config:
    """The policy sections of `document` (the fleet's policy) read as a config file; defaults without one."""
    try:
        return from_file(path, document or {})
    except ConfigError as exc:
        raise InvalidArgument(str(exc), field=exc.key) from exc


def _apply_actor() -> str:
    """Who made this host's file the fleet's policy with `outrider serve --apply-policy` (audited)."""
    import getpass
    import socket

    return f"cli:{getpass.getuser()}@{socket.gethostname()} (--apply-policy)"


def _policy_sections(
    path: Path | None, recovery: RecoveryFeature, reversibility: ReversibilityService, agents: AgentService
) -> tuple[Callable[[dict[str, Any]], Callable[[], None]], Callable[[dict[str, Any]], None]]:
    """The policy's `recovery:`, `reversibility:` and `agents.records`: parsed from a policy document, then
    applied by the sidecar that applies the policy (storage and this process: `prepare`), or taken into
    this process by the others once it is stored (`follow`, writing nothing)."""

    def prepare(document: dict[str, Any]) -> Callable[[], None]:
        fresh = _policy_config(path, document)

        def apply() -> None:
            recovery.reload_policy_file(fresh.recovery)
            reversibility.set_policy(fresh.reversibility)
            agents.apply_declared(fresh.agents.records, source=str(path))

        return apply

    def follow(document: dict[str, Any]) -> None:
        fresh = _policy_config(path, document)
        reversibility.set_policy(fresh.reversibility)
        recovery.follow_policy_file(fresh.recovery)

    return prepare, follow
