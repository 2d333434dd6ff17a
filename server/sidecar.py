"""The sidecar process's gRPC server: every servicer, health and reflection, the interceptors, TLS, and the
console and scheduler beside it, over the services the composition root (server/bootstrap.py) builds."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

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
from server.bootstrap import build_services
from server.config import Config
from server.container import Services
from server.rpc.access import AccessServicer
from server.rpc.auth import AuthInterceptor, RateLimiter
from server.rpc.convert import EdgeLimits
from server.rpc.freshness import FreshnessInterceptor
from server.rpc.hygiene import HygieneInterceptor
from server.rpc.idempotency import IdempotencyInterceptor
from server.rpc.recovery import RecoveryServicer
from server.rpc.reflection import enable_reflection
from server.rpc.safeguard import SafeguardServicer
from server.rpc.security import check_exposure, server_credentials
from server.rpc.supervisor import SupervisorServicer
from server.rpc.tracing import TracingInterceptor
from server.services.approvals.reviewers import reviewer_for
from server.services.ports import Clock
from server.services.recovery.ladder import MONITOR_ROLE
from server.services.supervisor.decision_log import DecisionLog
from server.storage.db import lock_sqlite_for_serving

log = logging.getLogger(__name__)

SERVICE_NAMES = (
    supervisor_service_pb2.DESCRIPTOR.services_by_name["SupervisorService"].full_name,
    recovery_service_pb2.DESCRIPTOR.services_by_name["RecoveryService"].full_name,
    safeguard_service_pb2.DESCRIPTOR.services_by_name["SafeguardService"].full_name,
    access_service_pb2.DESCRIPTOR.services_by_name["AccessService"].full_name,
)
DECISION_LOG_HEALTH = "outrider.decision_log"  # a gRPC health service name that follows the writer


class _GenericOnly:
    """The services' handlers as generic handlers only (what the generated `add_*_to_server` also adds),
    not as registered methods as well.

    For registered methods grpc.aio keeps one pending request per method and, for every call it takes up,
    waits on all of them at once (`asyncio.wait` over ≈ 90 futures: the four services' methods), adding and
    removing a done-callback on each: a cost per RPC that grows with the number of methods (docs/benchmarks.md,
    "Registered methods"). With generic handlers there is one pending request and a dict lookup by method."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: Any) -> None:
        return None


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


async def build_server(
    config: Config,
    *,
    clock: Clock | None = None,
    extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
    with_console: bool | None = None,
    with_scheduler: bool = True,
    services: Services | None = None,
) -> Sidecar:
    """Build and start a sidecar: storage and policy loaded, gRPC bound, health SERVING.

    With `services` (already built, e.g. by `build_services(config, repos=MemoryStore().repositories())`),
    the sidecar serves those instead of building its own on the configured database: rule tests get
    in-process gRPC on the in-memory adapters through the same wiring. The sidecar owns them from then on
    (`stop()` closes them); `clock` is then the one they were built with, so passing both is an error."""
    credentials = server_credentials(config)
    check_exposure(config)
    if services is None:
        # SQLite serves one sidecar, or the workers of one `serve --workers`: any other `outrider serve` on the
        # same file is refused here.
        release_sqlite = lock_sqlite_for_serving(config.database_url(), worker=config.reuse_port)
        try:
            services = await asyncio.to_thread(build_services, config, clock=clock)
        except BaseException:
            release_sqlite()
            raise
        services.closers.insert(0, release_sqlite)
    elif clock is not None:
        raise ValueError("build_server: pass the clock to build_services, not beside prebuilt services")
    services.recovery.start(asyncio.get_running_loop())
    auth = AuthInterceptor(
        services.access,
        RateLimiter(config.requests_per_second, config.burst),
        enabled=config.auth_enabled,
        mtls=config.tls_client_ca_file is not None,
        peer_limiter=RateLimiter(config.unauthenticated_requests_per_second, config.unauthenticated_burst),
        containment_of=services.agents.containment_of,
    )
    # Tracing first: a call that authentication refuses is traced too.
    tracing = [TracingInterceptor(services.telemetry.tracer)] if services.telemetry.tracing else []
    # Inside authentication: the remembered answer is the caller's own.
    remembered = [IdempotencyInterceptor(services.idempotency)] if services.idempotency else []
    fresh = [FreshnessInterceptor(services.freshness)] if services.freshness else []
    server = grpc.aio.server(
        # Hygiene before authentication: a request that does not parse is refused before anything reads it.
        # Freshness before authentication: a paused sidecar confirms its caches (revoked tokens, breakers,
        # standings) before any of them answers.
        interceptors=[*tracing, *fresh, HygieneInterceptor(), auth, *remembered],
        options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            ("grpc.so_reuseport", 1 if config.reuse_port else 0),
            # Calls that arrived but no handler picked up yet: the defaults (1000, hard 3000) refuse
            # bursts of agents at random with CANCELLED; approvals make such bursts normal.
            ("grpc.server.max_pending_requests", 10_000),
            ("grpc.server.max_pending_requests_hard_limit", 20_000),
            # grpc core answers CANCELLED, silently on the server, to a call that waited longer than this
            # (default 30 s) for the server to take it up: in a burst of thousands the last ones did.
            ("grpc.server_max_unrequested_time_in_server", 300),
        ],
    )
    limits = EdgeLimits(
        config.max_context_depth, config.max_string_length, config.action_charset, config.action_scripts
    )
    # The generated `add_*_to_server` only calls the two methods _GenericOnly has.
    registry = cast(grpc.aio.Server, _GenericOnly(server))
    access_service_pb2_grpc.add_AccessServiceServicer_to_server(AccessServicer(services.access), registry)
    supervisor_service_pb2_grpc.add_SupervisorServiceServicer_to_server(
        SupervisorServicer(
            services.chain,
            services.checks,
            services.agents,
            services.decisions,
            services.approvals,
            reviewer_for(services.users),
            services.explain,
            limits=limits,
            reload_policy=services.policy.reload,
            charge=auth.charge,
            fresh=services.freshness.ensure if services.freshness else None,
        ),
        registry,
    )
    recovery_service_pb2_grpc.add_RecoveryServiceServicer_to_server(
        RecoveryServicer(services.recovery, services.agents, limits=limits), registry
    )
    safeguard_service_pb2_grpc.add_SafeguardServiceServicer_to_server(
        SafeguardServicer(
            services.breakers,
            services.budgets,
            services.episodes,
            services.leases,
            services.reversibility,
            config.max_context_bytes,
            limits=limits,
        ),
        registry,
    )
    if extra_handlers:
        server.add_generic_rpc_handlers(tuple(extra_handlers))
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, registry)  # generic only too: no pending request of its own
    enable_reflection((*SERVICE_NAMES, "grpc.health.v1.Health"), server)  # v1 and v1alpha

    try:
        if credentials is None:
            port = server.add_insecure_port(config.listen)
        else:
            port = server.add_secure_port(config.listen, credentials)
    except RuntimeError as exc:  # grpcio raises when the address cannot be bound (in use, not available)
        raise OSError(f"cannot listen on {config.listen}: {exc}") from None
    if not config.listen.startswith("unix:") and port == 0:
        raise OSError(f"cannot listen on {config.listen}")
    # In `sidecars` before serving (the port is bound): nothing slow between serving and "sidecar serving".
    listen = config.listen if config.listen.startswith("unix:") else f"{config.listen.rpartition(':')[0]}:{port}"
    await asyncio.to_thread(services.fleet.register, listen)
    await server.start()
    sidecar = Sidecar(config, services, server, health, config.listen, port, [services.close])
    sidecar._closers.append(services.fleet.stop)  # runs after the scheduler stops, before the engine closes
    if services.jobs is not None:  # after the scheduler stops: another sidecar takes the role at once
        jobs = services.jobs
        sidecar._closers.append(lambda: jobs.release(MONITOR_ROLE))

    if with_scheduler:
        from server.jobs.scheduler import build_sidecar_scheduler

        scheduler = build_sidecar_scheduler(services)
        scheduler.start()
        sidecar._closers.append(lambda: scheduler.shutdown(wait=True))
        services.notifications.start()  # the outbox's delivery worker (its own thread; no-op without channels)
    # Before the scheduler and storage close (closers run in reverse), after the server ended the waiting calls.
    sidecar._closers.append(services.approvals.mark_left_at_stop)
    if config.console_enabled if with_console is None else with_console:
        stop_console = start_console(services)
        sidecar._closers.append(stop_console)
    if config.telemetry.metrics_listen:
        sidecar._closers.append(services.telemetry.serve_metrics(config.telemetry.metrics_listen, services.health))

    for name in ("", *SERVICE_NAMES, DECISION_LOG_HEALTH):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    loop = asyncio.get_running_loop()
    watch = loop.create_task(_watch_decision_log(services.decisions, health))
    sidecar._closers.insert(0, lambda: _cancel_soon(loop, watch))  # closers run in threads
    log.info("sidecar serving", extra={"listen": sidecar.target, "database": _safe_url(config.database_url())})
    return sidecar


def freeze_startup_heap() -> int:
    """Move every object alive once the sidecar serves (modules, classes, functions, the services: about
    170,000) out of the cyclic garbage collector's reach; returns how many it froze. A full collection walks
    every tracked object and stops every thread while it does: with them it took 100-400 ms, several times a
    minute under the soak's load (a pause in every call in flight), and longer as the live heap grew. They
    live as long as the process, so the collector has nothing to find among them. For the process that serves (`outrider
    serve`), once: objects frozen are never collected."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def _cancel_soon(loop: asyncio.AbstractEventLoop, task: asyncio.Task[None]) -> None:
    loop.call_soon_threadsafe(task.cancel)


async def _watch_decision_log(decisions: DecisionLog, health: HealthServicer, interval: float = 0.25) -> None:
    """The gRPC health of `outrider.decision_log` follows the writer (NOT_SERVING while it is down, or while
    a full journal refuses CheckActions), and a writer thread that is gone is started again."""
    serving = True
    while True:
        await asyncio.sleep(interval)
        try:
            decisions.watchdog()
            up = decisions.stats.up and not decisions.refusing  # a full journal refuses CheckActions
            if up != serving:
                serving = up
                status = health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
                await health.set(DECISION_LOG_HEALTH, status)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("decision log watch failed")


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
