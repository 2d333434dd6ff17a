"""The background scheduler: periodic jobs that each call one service method.

In a fleet every sidecar runs this scheduler. What each job does fleet-wide (docs/fleet.md, "Scheduled
work"): retention jobs are claimed per period (`FleetJobs.once`: one sidecar per period); approval
expiry, breaker timers, lease and reservation expiry and kill take-over claim each due item in storage
(a compare-and-set or `SKIP LOCKED`), so every scheduler may tick them; cache refreshes and the
heartbeat are this sidecar's own."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.schedulers.background import BackgroundScheduler

from server.container import Services
from server.domain.errors import StorageUnavailable
from server.services.access.credentials import AccessService
from server.services.approvals.requests import ApprovalService
from server.services.audit import AuditTrail
from server.services.fleet.jobs import FleetJobs
from server.services.fleet.sidecars import FORGET_EVERY, SidecarService
from server.services.idempotency import IdempotencyService
from server.services.recovery.agents import AgentService
from server.services.recovery.feature import RecoveryFeature
from server.services.recovery.kills import KillService
from server.services.recovery.ladder import MONITOR_ROLE
from server.services.safeguards.breakers import BreakerService
from server.services.safeguards.budgets import BudgetService
from server.services.safeguards.leases import PRUNE_EVERY, LeaseService
from server.services.supervisor.chain import ChainStore
from server.services.supervisor.decision_log import DecisionLog

log = logging.getLogger(__name__)

EVENTS_PRUNE_EVERY = 300.0


def add_once(
    scheduler: BackgroundScheduler, jobs: FleetJobs | None, job_id: str, every: float, run: Callable[[], object]
) -> None:
    """A job done once per `every` seconds fleet-wide: each sidecar ticks it a few times a period and the
    tick that claims the period (in `fleet_jobs`) runs it. Without `jobs`, this process alone runs it."""
    if jobs is None:
        scheduler.add_job(run, "interval", seconds=every, id=job_id)
    else:
        scheduler.add_job(jobs.once(job_id, every, run), "interval", seconds=jobs.tick_interval(every), id=job_id)


def build_scheduler(
    decisions: DecisionLog,
    access: AccessService,
    approvals: ApprovalService,
    chain: ChainStore | None = None,
    prune_interval: float = 60.0,
    agents: AgentService | None = None,
    idempotency: IdempotencyService | None = None,
    jobs: FleetJobs | None = None,
) -> BackgroundScheduler:
    scheduler = BackgroundScheduler(timezone="UTC", job_defaults={"coalesce": True, "max_instances": 1})
    add_once(scheduler, jobs, "decision-log-prune", prune_interval, decisions.prune)
    # Token revocations made by other processes (CLI, other sidecars) take effect within this interval.
    scheduler.add_job(access.refresh, "interval", seconds=0.25, id="token-refresh")
    # Approval timeouts and escalations (each a compare-and-set on the request's version: one sidecar
    # closes or escalates it), and decisions taken by other processes (a separate console).
    scheduler.add_job(approvals.expire_due, "interval", seconds=0.25, id="approval-expiry")
    scheduler.add_job(approvals.poll, "interval", seconds=0.25, id="approval-poll")
    # Requests nobody waits on any more: this sidecar marks those its last waiter left (and clears stale
    # marks on those its calls wait on); every sidecar cancels those marked for approvals.abandoned_after
    # (each a conditional update: one sidecar cancels, a re-attach that committed first wins).
    every = approvals.attend_every
    scheduler.add_job(approvals.attend, "interval", seconds=every, id="approval-attendance")
    scheduler.add_job(approvals.cancel_abandoned, "interval", seconds=every, id="approval-abandoned")
    if idempotency is not None:
        # Remembered answers past the retention (server.idempotency_retention, default 24 h).
        add_once(scheduler, jobs, "idempotency-prune", prune_interval, idempotency.prune)
    if agents is not None:
        # Kills, quarantines and reinstatements made by other processes (CLI, other sidecars).
        scheduler.add_job(agents.refresh, "interval", seconds=0.25, id="containment-refresh")
        # Agent records (group, labels, capabilities) changed by other processes (`outrider agents set`).
        scheduler.add_job(agents.refresh_records, "interval", seconds=0.25, id="agent-records-refresh")
    if chain is not None:
        # Guardrail changes stored by another process (a separate console, another sidecar).
        scheduler.add_job(chain.refresh, "interval", seconds=1.0, id="guardrail-refresh")
    return scheduler


def add_audit_jobs(scheduler: BackgroundScheduler, audit: AuditTrail) -> None:
    """Signed audit checkpoints every N records or T seconds (the tick only looks at two counters)."""
    scheduler.add_job(audit.checkpoint_due, "interval", seconds=1.0, id="audit-checkpoint")


class HealthMonitorJob:
    """RecoveryService's monitoring job (StartMonitoring/StopMonitoring add and remove it): every health
    check at a fixed rate."""

    JOB_ID = "recovery-health-checks"

    def __init__(self, scheduler: BackgroundScheduler) -> None:
        self.scheduler = scheduler

    def schedule(self, interval: float, run: Callable[[], None]) -> None:
        self.scheduler.add_job(run, "interval", seconds=interval, id=self.JOB_ID, replace_existing=True)

    def unschedule(self) -> None:
        if self.scheduler.get_job(self.JOB_ID) is not None:
            self.scheduler.remove_job(self.JOB_ID)

    def next_run_time(self) -> datetime | None:
        job = self.scheduler.get_job(self.JOB_ID)
        return job.next_run_time if job is not None else None


def add_recovery_jobs(
    scheduler: BackgroundScheduler, recovery: RecoveryFeature, jobs: FleetJobs | None = None
) -> HealthMonitorJob:
    """The recovery event log's retention, and the monitoring job (handed to the recovery feature)."""
    add_once(scheduler, jobs, "recovery-events-prune", EVENTS_PRUNE_EVERY, recovery.events.prune)
    monitor = HealthMonitorJob(scheduler)
    recovery.attach_monitor(monitor)
    return monitor


def add_safeguard_jobs(
    scheduler: BackgroundScheduler,
    breakers: BreakerService,
    budgets: BudgetService,
    leases: LeaseService,
    jobs: FleetJobs | None = None,
) -> None:
    """Timers of the safeguards. Every 50 ms: OPEN breakers become HALF_OPEN on time (within 100 ms of
    the recovery timeout, without traffic) and unsettled permits expire as failures; expired leases are
    reaped and their slots handed to the next waiters. Reservations past their TTL return their tokens."""
    scheduler.add_job(breakers.tick, "interval", seconds=0.05, id="breaker-timers")
    scheduler.add_job(leases.reap, "interval", seconds=0.05, id="lease-expiry")
    scheduler.add_job(budgets.expire_reservations, "interval", seconds=0.25, id="reservation-expiry")
    # Ended leases older than a day are forgotten.
    add_once(scheduler, jobs, "lease-prune", PRUNE_EVERY, leases.prune_ended)


def add_fleet_jobs(
    scheduler: BackgroundScheduler,
    fleet: SidecarService,
    kills: KillService | None = None,
    jobs: FleetJobs | None = None,
) -> None:
    """This sidecar's heartbeat in `sidecars`: silent for fleet.sidecar_timeout, it counts as gone; the
    take-over of running kills whose owning sidecar is gone (each claimed by one sidecar); and forgetting
    sidecars gone for a week (once fleet-wide)."""
    every = fleet.settings.heartbeat_interval
    # Never skipped as "missed" (APScheduler skips a run over a second late by default): after a pause
    # (SIGSTOP, a VM freeze) the heartbeat runs at once and finds out the sidecar was declared gone.
    scheduler.add_job(fleet.heartbeat, "interval", seconds=every, id="fleet-heartbeat", misfire_grace_time=None)
    add_once(scheduler, jobs, "fleet-forget", FORGET_EVERY, fleet.forget_gone)
    if jobs is not None:
        # The elected sidecar for grpc/http health checks: renewed with every heartbeat, taken over by
        # another sidecar once it lapses (fleet.sidecar_timeout), released at a clean shutdown.
        ttl = fleet.settings.sidecar_timeout
        scheduler.add_job(
            lambda: jobs.hold(MONITOR_ROLE, ttl),
            "interval",
            seconds=every,
            id="fleet-monitor-election",
            next_run_time=datetime.now(UTC),
            misfire_grace_time=None,
        )
    if kills is not None:
        scheduler.add_job(
            kills.adopt_orphans, "interval", seconds=every, id="fleet-kill-takeover", misfire_grace_time=None
        )
        if kills.hub.attachments is not None:  # the agents attached here seen; dead sidecars' rows released
            scheduler.add_job(
                kills.hub.stamp_attachments, "interval", seconds=every, id="fleet-attachments", misfire_grace_time=None
            )


def build_sidecar_scheduler(services: Services) -> BackgroundScheduler:
    """Every periodic job of a sidecar (not started)."""
    scheduler = build_scheduler(
        services.decisions,
        services.access,
        services.approvals,
        services.chain,
        agents=services.agents,
        idempotency=services.idempotency,
        jobs=services.jobs,
    )
    add_recovery_jobs(scheduler, services.recovery, services.jobs)
    add_safeguard_jobs(scheduler, services.breakers, services.budgets, services.leases, services.jobs)
    add_fleet_jobs(scheduler, services.fleet, services.recovery.kills, services.jobs)
    add_audit_jobs(scheduler, services.audit)
    for job in scheduler.get_jobs():
        job.modify(func=_waits_for_storage(job.id, job.func))
    return scheduler


_QUIET_FOR = 30.0  # seconds between two "still unavailable" lines of one job


def _waits_for_storage(job_id: str, run: Callable[..., object]) -> Callable[..., object]:
    """A job that meets an unreachable database says so in one line (then every _QUIET_FOR seconds) and
    runs again at its next tick, instead of a traceback four times a second per job during an outage."""
    last = [0.0]

    def job(*args: object, **kwargs: object) -> object:
        try:
            return run(*args, **kwargs)
        except StorageUnavailable:
            now = time.monotonic()
            if now - last[0] >= _QUIET_FOR:
                last[0] = now
                log.warning("job %s: storage unavailable; it runs again at its next tick", job_id)
            return None

    return job
