"""The background scheduler: periodic jobs that each call one service method."""

from __future__ import annotations

import logging

from apscheduler.schedulers.background import BackgroundScheduler

from server.services.access import AccessService
from server.services.approvals import ApprovalService
from server.services.decision_log import DecisionLog

log = logging.getLogger(__name__)


def build_scheduler(
    decisions: DecisionLog, access: AccessService, approvals: ApprovalService, prune_interval: float = 60.0
) -> BackgroundScheduler:
    scheduler = BackgroundScheduler(timezone="UTC", job_defaults={"coalesce": True, "max_instances": 1})
    scheduler.add_job(decisions.prune, "interval", seconds=prune_interval, id="decision-log-prune")
    # Token revocations made by other processes (CLI, other sidecars) take effect within this interval.
    scheduler.add_job(access.refresh, "interval", seconds=0.25, id="token-refresh")
    # Approval timeouts and escalations, and decisions taken by other processes (a separate console).
    scheduler.add_job(approvals.expire_due, "interval", seconds=0.25, id="approval-expiry")
    scheduler.add_job(approvals.poll, "interval", seconds=0.25, id="approval-poll")
    return scheduler
