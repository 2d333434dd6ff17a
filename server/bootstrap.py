"""The composition root: the one place that wires concrete classes into a running sidecar."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from sqlalchemy.engine import Engine

from outrider.v1 import (
    access_service_pb2,
    access_service_pb2_grpc,
    recovery_service_pb2,
    recovery_service_pb2_grpc,
    safeguard_service_pb2,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2,
    supervisor_service_pb2_grpc,
)
from server.adapters.policy_file import FilePolicySource
from server.adapters.probes import NetworkProbes
from server.config import Config, ConfigError, load_config
from server.container import Repositories, Services
from server.domain.errors import InvalidArgument
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.safeguards.breakers import BreakerState
from server.rpc.access import AccessServicer
from server.rpc.auth import AuthInterceptor, RateLimiter
from server.rpc.recovery import RecoveryServicer
from server.rpc.safeguard import SafeguardServicer
from server.rpc.security import check_exposure, server_credentials
from server.rpc.supervisor import SupervisorServicer
from server.rpc.tracing import TracingInterceptor
from server.services.access.credentials import AccessService
from server.services.access.users import UserService
from server.services.approvals.requests import ApprovalService
from server.services.approvals.reviewers import reviewer_for
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.services.fleet.sidecars import SidecarService, new_sidecar_id
from server.services.ports import AuditSink, Clock, PolicySource
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
from server.services.supervisor.plugins import load_plugin_class
from server.storage.access.tokens import SqlTokenRepository
from server.storage.access.users import SqlSettingsRepository, SqlUserRepository
from server.storage.approvals.repository import SqlApprovalRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, lock_sqlite_for_serving, migrate
from server.storage.fleet.changes import ChangeLog
from server.storage.fleet.sidecars import SqlSidecarRepository
from server.storage.recovery.repository import SqlKillRepository, SqlRecoveryEventRepository, SqlRecoveryRepository
from server.storage.safeguards.budgets import SqlBudgetLedger
from server.storage.safeguards.repository import SqlSafeguardRepository
from server.storage.supervisor.repository import SqlAgentRepository, SqlDecisionRepository, SqlGuardrailRepository
from server.telemetry.sdk import Telemetry, build_telemetry, observe

log = logging.getLogger(__name__)

SERVICE_NAMES = (
    supervisor_service_pb2.DESCRIPTOR.services_by_name["SupervisorService"].full_name,
    recovery_service_pb2.DESCRIPTOR.services_by_name["RecoveryService"].full_name,
    safeguard_service_pb2.DESCRIPTOR.services_by_name["SafeguardService"].full_name,
    access_service_pb2.DESCRIPTOR.services_by_name["AccessService"].full_name,
)


@dataclass
class Sidecar:
    config: Config
    services: Services
    server: grpc.aio.Server
    health: HealthServicer
    address: str
    port: int
    _closers: list[Callable[[], None]] = field(default_factory=list)
    _stopped: bool = False

    @property
    def target(self) -> str:
        return self.address if self.address.startswith("unix:") else f"{self.address.rpartition(':')[0]}:{self.port}"

    async def stop(self, grace: float | None = None) -> None:
        """Stop accepting, let in-flight calls finish (bounded by `grace`), then close the rest."""
        if self._stopped:
            return
        self._stopped = True
        await self.health.enter_graceful_shutdown()
        await self.server.stop(self.config.shutdown_grace if grace is None else grace)
        for close in reversed(self._closers):
            try:
                await asyncio.to_thread(close)
            except Exception:
                log.exception("error while shutting down")
        log.info("sidecar stopped")


def sql_repositories(engine: Engine, changes: ChangeLog) -> Repositories:
    """The production repositories, all on one database engine; `changes` is this sidecar's one listener
    (and the counters and NOTIFY its writers use)."""
    safeguards = SqlSafeguardRepository(engine)
    return Repositories(
        agents=SqlAgentRepository(engine),
        guardrails=SqlGuardrailRepository(engine),
        decisions=SqlDecisionRepository(engine),
        tokens=SqlTokenRepository(engine),
        users=SqlUserRepository(engine),
        settings=SqlSettingsRepository(engine),
        approvals=SqlApprovalRepository(engine, changes),
        audit=SqlAuditRepository(engine),
        recovery=SqlRecoveryRepository(engine),
        recovery_events=SqlRecoveryEventRepository(engine),
        kills=SqlKillRepository(engine),
        breakers=safeguards,
        budgets=SqlBudgetLedger(engine, changes),
        episodes=safeguards,
        leases=safeguards,
        sidecars=SqlSidecarRepository(engine),
        changes=changes,
    )


def build_services(
    config: Config,
    *,
    repos: Repositories | None = None,
    clock: Clock | None = None,
    probes: Probes | None = None,
    policy: PolicySource | None = None,
    telemetry: Telemetry | None = None,
) -> Services:
    """Every service, loaded and ready, by constructor injection. Without `repos`, the SQL repositories on
    the configured database (migrated first); tests pass in-memory ones, a fake clock and fake probes.
    `services.close()` releases what was built, in reverse order."""
    clock = clock or SystemClock()
    telemetry = telemetry or build_telemetry(config.telemetry)
    closers: list[Callable[[], None]] = [telemetry.shutdown]
    sidecar_id = new_sidecar_id()
    if repos is None:
        if config.db_url is None:
            config.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_db_engine(config.database_url())
        migrate(engine)
        closers.append(engine.dispose)
        repos = sql_repositories(engine, ChangeLog(engine, sidecar_id, poll_interval=config.fleet.resync_interval))
    if policy is None and config.config_path is not None:
        policy = FilePolicySource(config.config_path)
    audit = AuditTrail(repos.audit, clock, config.sensitive_keys)
    decisions = DecisionLog(repos.decisions, clock, config.decision_log, audit)
    access = AccessService(repos.tokens, clock, audit)
    access.load()
    users = UserService(repos.users, repos.settings, clock, audit)
    agents = AgentService(repos.agents)
    agents.load()
    approvals = ApprovalService(
        repos.approvals, clock, audit, agents, config.sensitive_keys, metrics=telemetry.metrics, changes=repos.changes
    )
    sg = config.safeguards
    episodes = EpisodeService(repos.episodes, clock, sg.max_episodes)
    leases = LeaseService(repos.leases, clock, sg.leases, audit)
    reversibility = ReversibilityService(clock, config.reversibility, agents.get)
    recovery = _build_recovery(
        config,
        repos,
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
    budgets = BudgetService(
        repos.budgets, clock, sg.budgets, audit, [LoggingSignalSink(), bridge], changes=repos.changes
    )
    for loadable in (breakers, budgets, episodes, leases):
        loadable.load()
    plugin_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="plugin-guardrail")
    deps = GuardrailDeps(breakers=breakers, budgets=budgets)
    sections = [_policy_sections(config.config_path, recovery, reversibility)] if config.config_path else []
    chain = ChainStore(repos.guardrails, policy, audit, load_plugin_class, deps, sections)
    chain.load()
    checks = CheckActionService(
        chain,
        agents,
        decisions,
        approvals,
        plugin_executor=plugin_pool,
        max_context_bytes=config.max_context_bytes,
        release_permit=breakers.release,
        assess_level=reversibility.level_of,
        sensitive_keys=config.sensitive_keys,
        tracer=telemetry.tracer,
        metrics=telemetry.metrics,
        clock=clock,
    )
    recovery.load()
    decisions.start()
    fleet = SidecarService(repos.sidecars, clock, config.fleet, sidecar_id)
    repos.changes.start()  # every cache has subscribed by now
    closers += [
        lambda: plugin_pool.shutdown(wait=False, cancel_futures=True),
        decisions.stop,
        recovery.close,
        breakers.events.close,
        budgets.events.close,
        repos.changes.stop,
    ]
    services = Services(
        config=config,
        agents=agents,
        chain=chain,
        checks=checks,
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
        fleet=fleet,
        closers=closers,
    )
    observe(telemetry, services)
    return services


def _build_recovery(
    config: Config,
    repos: Repositories,
    *,
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
    hub = ControlChannelHub(clock)
    events = RecoveryEventLog(repos.recovery_events, repos.recovery, clock, settings.event_max_rows)
    emitter = EventAuditor(events, audit)
    health = HealthCheckService(repos.recovery, hub, agents, clock, audit, probes or NetworkProbes())
    substitutes = SubstituteRegistry(repos.kills, agents, clock, audit)
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
    )
    cascade = CascadeService(repos.recovery, kills, emitter, clock, settings.cascade, open_breaker)
    return RecoveryFeature(settings, hub, events, health, substitutes, recovery, kills, cascade)


async def build_server(
    config: Config,
    *,
    clock: Clock | None = None,
    extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
    with_console: bool | None = None,
    with_scheduler: bool = True,
) -> Sidecar:
    """Build and start a sidecar: storage and policy loaded, gRPC bound, health SERVING."""
    credentials = server_credentials(config)
    check_exposure(config)
    # SQLite serves one sidecar: a second `outrider serve` on the same file is refused here.
    release_sqlite = lock_sqlite_for_serving(config.database_url())
    try:
        services = await asyncio.to_thread(build_services, config, clock=clock)
    except BaseException:
        release_sqlite()
        raise
    services.closers.insert(0, release_sqlite)
    services.recovery.start(asyncio.get_running_loop())
    auth = AuthInterceptor(
        services.access,
        RateLimiter(config.requests_per_second, config.burst),
        enabled=config.auth_enabled,
        mtls=config.tls_client_ca_file is not None,
    )
    # Tracing first: a call that authentication refuses is traced too.
    tracing = [TracingInterceptor(services.telemetry.tracer)] if services.telemetry.tracing else []
    server = grpc.aio.server(
        interceptors=[*tracing, auth],
        options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            ("grpc.so_reuseport", 0),
            # Calls that arrived but no handler picked up yet: the defaults (1000, hard 3000) refuse
            # bursts of agents at random with CANCELLED; approvals make such bursts normal.
            ("grpc.server.max_pending_requests", 10_000),
            ("grpc.server.max_pending_requests_hard_limit", 20_000),
        ],
    )
    access_service_pb2_grpc.add_AccessServiceServicer_to_server(AccessServicer(services.access), server)
    supervisor_service_pb2_grpc.add_SupervisorServiceServicer_to_server(
        SupervisorServicer(
            services.chain,
            services.checks,
            services.agents,
            services.decisions,
            services.approvals,
            reviewer_for(services.users),
        ),
        server,
    )
    recovery_service_pb2_grpc.add_RecoveryServiceServicer_to_server(
        RecoveryServicer(services.recovery, services.agents), server
    )
    safeguard_service_pb2_grpc.add_SafeguardServiceServicer_to_server(
        SafeguardServicer(
            services.breakers,
            services.budgets,
            services.episodes,
            services.leases,
            services.reversibility,
            config.max_context_bytes,
        ),
        server,
    )
    if extra_handlers:
        server.add_generic_rpc_handlers(tuple(extra_handlers))
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection((*SERVICE_NAMES, reflection.SERVICE_NAME, "grpc.health.v1.Health"), server)

    if credentials is None:
        port = server.add_insecure_port(config.listen)
    else:
        port = server.add_secure_port(config.listen, credentials)
    if not config.listen.startswith("unix:") and port == 0:
        raise OSError(f"cannot listen on {config.listen}")
    await server.start()
    sidecar = Sidecar(config, services, server, health, config.listen, port, [services.close])
    await asyncio.to_thread(services.fleet.register, sidecar.target)
    sidecar._closers.append(services.fleet.stop)  # runs after the scheduler stops, before the engine closes

    if with_scheduler:
        from server.jobs.scheduler import add_fleet_jobs, add_recovery_jobs, add_safeguard_jobs, build_scheduler

        scheduler = build_scheduler(services.decisions, services.access, services.approvals, services.chain)
        add_recovery_jobs(scheduler, services.recovery)
        add_safeguard_jobs(scheduler, services.breakers, services.budgets, services.leases)
        add_fleet_jobs(scheduler, services.fleet)
        scheduler.start()
        sidecar._closers.append(lambda: scheduler.shutdown(wait=False))
    if config.console_enabled if with_console is None else with_console:
        stop_console = start_console(services)
        sidecar._closers.append(stop_console)
    if config.telemetry.metrics_listen:
        sidecar._closers.append(services.telemetry.serve_metrics(config.telemetry.metrics_listen, services.health))

    for name in ("", *SERVICE_NAMES):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("sidecar serving", extra={"listen": sidecar.target, "database": _safe_url(config.database_url())})
    return sidecar


def _policy_sections(
    path: Path, recovery: RecoveryFeature, reversibility: ReversibilityService
) -> Callable[[], Callable[[], None]]:
    """On a policy reload, the file's `recovery:` and `reversibility:` sections are re-read too."""

    def prepare() -> Callable[[], None]:
        try:
            fresh = load_config(str(path), env={})
        except ConfigError as exc:
            raise InvalidArgument(str(exc), field=exc.key) from exc

        def apply() -> None:
            recovery.reload_policy_file(fresh.recovery)
            reversibility.set_policy(fresh.reversibility)

        return apply

    return prepare


def start_console(services: Services) -> Callable[[], None]:
    """Serve the console on its own threads (cheroot streams SSE); returns the stopper."""
    from console.serving import start

    console = start(services, services.config.console_listen)
    services.health["console_url"] = console.url
    log.info("console serving", extra={"url": console.url})
    return console.stop


def _safe_url(url: str) -> str:
    """The database URL without its password, for logs."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        creds, _, host = rest.rpartition("@")
        user = creds.split(":", 1)[0]
        return f"{scheme}{sep}{user}:***@{host}"
    return url
