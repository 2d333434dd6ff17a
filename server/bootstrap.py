"""The composition root: the one place that wires concrete classes into a running sidecar."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

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
from server.config import Config, ConfigError, load_config
from server.domain.approvals.requests import Reviewer
from server.domain.errors import InvalidArgument
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.safeguards.breakers import BreakerState
from server.rpc.access import AccessServicer
from server.rpc.auth import AuthInterceptor, RateLimiter
from server.rpc.recovery import RecoveryServicer
from server.rpc.safeguard import SafeguardServicer
from server.rpc.supervisor import SupervisorServicer
from server.rpc.tracing import TracingInterceptor
from server.services.access.credentials import AccessService
from server.services.access.users import UserService
from server.services.approvals.requests import ApprovalService
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.services.fleet.sidecars import SidecarService, new_sidecar_id
from server.services.ports import Clock
from server.services.recovery.agents import AgentService
from server.services.recovery.feature import RecoveryFeature
from server.services.recovery.kills import compensation_from
from server.services.safeguards.breakers import BreakerService, CascadeReporter, LoggingBreakerListener
from server.services.safeguards.budgets import BudgetService, LoggingSignalSink
from server.services.safeguards.episodes import EpisodeService
from server.services.safeguards.events import SafeguardEventBridge
from server.services.safeguards.leases import LeaseService
from server.services.safeguards.reversibility import ReversibilityService
from server.services.supervisor.chain import SupervisorService
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
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


@dataclass
class Services:
    """What the adapters (gRPC, console, jobs) may call."""

    config: Config
    agents: AgentService
    supervisor: SupervisorService
    decisions: DecisionLog
    access: AccessService
    audit: AuditTrail
    approvals: ApprovalService
    users: UserService
    recovery: RecoveryFeature
    breakers: BreakerService
    budgets: BudgetService
    episodes: EpisodeService
    leases: LeaseService
    reversibility: ReversibilityService
    telemetry: Telemetry
    fleet: SidecarService
    changes: ChangeLog
    health: dict[str, Any] = field(default_factory=dict)


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


def build_services(config: Config, clock: Clock | None = None) -> tuple[Services, list[Callable[[], None]]]:
    """Storage, migrations and every service, loaded and ready; plus what to close, in order."""
    clock = clock or SystemClock()
    telemetry = build_telemetry(config.telemetry)
    if config.db_url is None:
        config.data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_db_engine(config.database_url())
    migrate(engine)
    sidecar_id = new_sidecar_id()
    # The one listener of this process: every cache below subscribes to it before it starts.
    changes = ChangeLog(engine, sidecar_id, poll_interval=config.fleet.resync_interval)
    fleet = SidecarService(SqlSidecarRepository(engine), clock, config.fleet, sidecar_id)
    audit = AuditTrail(SqlAuditRepository(engine), clock, config.sensitive_keys)
    decisions = DecisionLog(SqlDecisionRepository(engine), clock, config.decision_log, audit)
    access = AccessService(SqlTokenRepository(engine), clock, audit)
    access.load()
    users = UserService(SqlUserRepository(engine), SqlSettingsRepository(engine), clock, audit)
    agents = AgentService(SqlAgentRepository(engine))
    agents.load()
    approvals = ApprovalService(
        SqlApprovalRepository(engine), clock, audit, agents, config.sensitive_keys, metrics=telemetry.metrics
    )
    plugin_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="plugin-guardrail")
    safeguards, sg = SqlSafeguardRepository(engine), config.safeguards
    breakers = BreakerService(safeguards, clock, sg.breakers, audit, [LoggingBreakerListener()])
    budgets = BudgetService(
        SqlBudgetLedger(engine, changes), clock, sg.budgets, audit, [LoggingSignalSink()], changes=changes
    )
    episodes = EpisodeService(safeguards, clock, sg.max_episodes)
    leases = LeaseService(safeguards, clock, sg.leases, audit)
    reversibility = ReversibilityService(clock, config.reversibility, agents.get)
    for loadable in (breakers, budgets, episodes, leases):
        loadable.load()
    supervisor = SupervisorService(
        agents=agents,
        repo=SqlGuardrailRepository(engine),
        decisions=decisions,
        policy=FilePolicySource(config.config_path) if config.config_path else None,
        clock=clock,
        load_plugin=load_plugin_class,
        plugin_executor=plugin_pool,
        max_context_bytes=config.max_context_bytes,
        audit=audit,
        sensitive_keys=config.sensitive_keys,
        approvals=approvals,
        assess_level=reversibility.level_of,
        guardrail_deps=GuardrailDeps(breakers=breakers, budgets=budgets),
        tracer=telemetry.tracer,
        metrics=telemetry.metrics,
    )
    supervisor.load()
    recovery = RecoveryFeature(
        SqlRecoveryRepository(engine),
        SqlRecoveryEventRepository(engine),
        SqlKillRepository(engine),
        agents=agents,
        audit=audit,
        clock=clock,
        settings=config.recovery,
    )
    recovery.load()
    recovery.kills.register_approval_canceller(
        lambda kill: approvals.cancel_agent(kill.agent_id, kill.requested_by, f"agent killed ({kill.kill_id})")
    )
    recovery.kills.register_lease_revoker(lambda kill: leases.revoke_agent_leases(kill.agent_id, kill.requested_by))
    recovery.kills.set_reversibility(compensation_from(reversibility.assess))
    if config.config_path is not None:
        supervisor.reload_hooks.append(_policy_sections(config.config_path, recovery, reversibility))
    recovery.cascade.set_breaker_opener(lambda key, reason: breakers.trip(key, reason).state is BreakerState.OPEN)
    breakers.add_listener(CascadeReporter(recovery.cascade.report_failure_threadsafe))
    bridge = SafeguardEventBridge(recovery.events, recovery.hub)
    breakers.add_listener(bridge)
    budgets.add_sink(bridge)
    decisions.start()
    services = Services(
        config=config,
        agents=agents,
        supervisor=supervisor,
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
        changes=changes,
    )
    observe(telemetry, services)
    changes.start()
    closers: list[Callable[[], None]] = [
        telemetry.shutdown,
        engine.dispose,
        lambda: plugin_pool.shutdown(wait=False, cancel_futures=True),
        decisions.stop,
        recovery.close,
        breakers.events.close,
        budgets.events.close,
        changes.stop,
    ]
    return services, closers


async def build_server(
    config: Config,
    *,
    clock: Clock | None = None,
    extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
    with_console: bool | None = None,
    with_scheduler: bool = True,
) -> Sidecar:
    """Build and start a sidecar: storage and policy loaded, gRPC bound, health SERVING."""
    credentials = _server_credentials(config)
    _warn_about_security(config)
    # SQLite serves one sidecar: a second `outrider serve` on the same file is refused here.
    release_sqlite = lock_sqlite_for_serving(config.database_url())
    try:
        services, closers = await asyncio.to_thread(build_services, config, clock)
    except BaseException:
        release_sqlite()
        raise
    closers.insert(0, release_sqlite)
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
            services.supervisor, services.agents, services.decisions, services.approvals, reviewer_for(services)
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
    sidecar = Sidecar(config, services, server, health, config.listen, port, closers)
    await asyncio.to_thread(services.fleet.register, sidecar.target)
    sidecar._closers.append(services.fleet.stop)  # runs after the scheduler stops, before the engine closes

    if with_scheduler:
        from server.jobs.scheduler import add_fleet_jobs, add_recovery_jobs, add_safeguard_jobs, build_scheduler

        scheduler = build_scheduler(services.decisions, services.access, services.approvals, services.supervisor)
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


def reviewer_for(services: Services) -> Callable[[str], Reviewer]:
    """An operator deciding over gRPC reviews as the console user of the same name (its role and groups,
    so `group:NAME` approvers work over gRPC too); an operator with no such user reviews as an approver."""

    def lookup(name: str) -> Reviewer:
        user = services.users.get(name)
        if user is None:
            return Reviewer(name, "approver")
        if user.disabled:
            return Reviewer(name, "viewer")
        return Reviewer(name, str(user.role.value), frozenset(user.groups))

    return lookup


def _server_credentials(config: Config) -> grpc.ServerCredentials | None:
    """TLS when a certificate is configured; mTLS when a client CA is too."""
    if config.tls_cert_file is None and config.tls_key_file is None:
        if config.tls_client_ca_file is not None:
            raise ConfigError("configuration", "tls.client_ca_file", "mTLS needs tls.cert_file and tls.key_file too")
        return None
    if config.tls_cert_file is None or config.tls_key_file is None:
        raise ConfigError("configuration", "tls", "give both tls.cert_file and tls.key_file")

    def read(path: Path, key: str) -> bytes:
        try:
            return path.read_bytes()
        except OSError as exc:
            raise ConfigError("configuration", key, f"cannot read {path}: {exc.strerror or exc}") from exc

    cert, key = read(config.tls_cert_file, "tls.cert_file"), read(config.tls_key_file, "tls.key_file")
    ca = read(config.tls_client_ca_file, "tls.client_ca_file") if config.tls_client_ca_file else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca, require_client_auth=ca is not None)


def _warn_about_security(config: Config) -> None:
    """Binding beyond loopback without TLS needs --insecure; authentication off is loud."""
    host = config.listen.rpartition(":")[0]
    exposed = not config.listen.startswith("unix:") and host not in LOOPBACK_HOSTS
    if exposed and config.tls_cert_file is None:
        if not config.insecure:
            raise ConfigError(
                "configuration",
                "server.listen",
                f"{config.listen} is not a loopback address and TLS is off: configure tls.cert_file/tls.key_file, "
                "or pass --insecure (server.insecure: true) to accept plaintext credentials on the network",
            )
        log.warning("INSECURE: serving plaintext gRPC on a non-loopback address", extra={"listen": config.listen})
    if not config.auth_enabled:
        log.warning(
            "AUTHENTICATION IS DISABLED: every caller is treated as an operator. Development only; "
            "never expose this sidecar",
            extra={"auth_enabled": False},
        )


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
