"""What the composition root builds and the adapters receive: the typed `Services` and the `Repositories`
behind them. The rpc servicers, the console and the jobs get a `Services`; tests build one on fakes."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.config import Config
from server.services.access.credentials import AccessService
from server.services.access.users import SessionRepository, SettingsRepository, UserRepository, UserService
from server.services.approvals.requests import ApprovalRepository, ApprovalService
from server.services.audit import AuditRepository, AuditTrail
from server.services.fleet.freshness import CacheFreshness
from server.services.fleet.jobs import FleetJobs
from server.services.fleet.policy import FleetPolicyService
from server.services.fleet.ports import (
    AttachmentRepository,
    ChangeFeed,
    CommandRepository,
    FleetPolicyRepository,
    JobClaimRepository,
    SidecarRepository,
)
from server.services.fleet.sidecars import SidecarService
from server.services.idempotency import IdempotencyRepository, IdempotencyService
from server.services.notifications.outbox import NotificationService
from server.services.notifications.ports import NotificationRepository, SlackMessages
from server.services.notifications.slack import SlackInteractions
from server.services.ports import (
    AgentRepository,
    DecisionRepository,
    GuardrailRepository,
    RateWindowRepository,
    TokenRepository,
)
from server.services.recovery.agents import AgentService
from server.services.recovery.feature import RecoveryFeature
from server.services.recovery.ports import (
    CascadeWindowStore,
    KillRepository,
    RecoveryEventRepository,
    RecoveryRepository,
)
from server.services.safeguards.breakers import BreakerRepository, BreakerService
from server.services.safeguards.budgets import BudgetLedger, BudgetService
from server.services.safeguards.episodes import EpisodeRepository, EpisodeService
from server.services.safeguards.leases import LeaseRepository, LeaseService
from server.services.safeguards.reversibility import ReversibilityService
from server.services.supervisor.chain import ChainStore
from server.services.supervisor.check import CheckActionService
from server.services.supervisor.decision_log import DecisionLog
from server.services.supervisor.explain import ExplainService
from server.telemetry.sdk import Telemetry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Repositories:
    """Every port the services need from storage: SQL in production (`server.storage.sql_repositories`),
    in memory in unit tests (`tests/fakes`)."""

    agents: AgentRepository
    guardrails: GuardrailRepository
    decisions: DecisionRepository
    tokens: TokenRepository
    users: UserRepository
    settings: SettingsRepository
    sessions: SessionRepository
    approvals: ApprovalRepository
    audit: AuditRepository
    recovery: RecoveryRepository
    recovery_events: RecoveryEventRepository
    kills: KillRepository
    breakers: BreakerRepository
    budgets: BudgetLedger
    episodes: EpisodeRepository
    leases: LeaseRepository
    sidecars: SidecarRepository
    changes: ChangeFeed  # the sidecar's one notification listener (server/storage/fleet/changes.py)
    notifications: NotificationRepository  # the outbox (written by the approvals and recovery repositories too)
    # Remembered answers of mutating RPCs; None: kept in memory only (no durability across restarts).
    idempotency: IdempotencyRepository | None = None
    # The fleet's one policy; None: not stored (the policy lives in this process only).
    fleet_policy: FleetPolicyRepository | None = None
    # Which sidecar holds each agent's control channel; None: one sidecar alone (nothing to route).
    attachments: AttachmentRepository | None = None
    # Control commands routed to the sidecar holding the agent's channel; None: nothing to route.
    commands: CommandRepository | None = None
    # Claims of periodic work done once fleet-wide (`fleet_jobs`); None: this process alone claims in memory.
    job_claims: JobClaimRepository | None = None
    # The fleet's shared rate windows (`rate_limit` scope: fleet); None where the sidecar is the whole fleet
    # (SQLite, one process): every rate_limit then counts in this process, as before.
    rate_windows: RateWindowRepository | None = None
    # The cascade detector's window of failures; None: kept in this process (unit tests on fakes).
    cascade_window: CascadeWindowStore | None = None
    # Where Slack messages about approvals were posted (chat.update); None: messages are not updated.
    slack_messages: SlackMessages | None = None


@dataclass
class Services:
    """What the adapters (gRPC, console, jobs) may call."""

    config: Config
    agents: AgentService
    chain: ChainStore
    checks: CheckActionService
    explain: ExplainService  # CheckAction's answer, side-effect free (ExplainAction, `outrider policy explain`)
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
    notifications: NotificationService
    policy: FleetPolicyService  # the fleet's one policy: start-up rule, ReloadPolicy/SIGHUP, status
    # Decisions taken in Slack (POST /slack/interactions); None: no slack channel has a signing_secret.
    slack: SlackInteractions | None = None
    # Durable request-id idempotency of mutating RPCs (issue 12).
    idempotency: IdempotencyService | None = None
    # Periodic work once fleet-wide and elected roles (issue 16); built by the composition root.
    jobs: FleetJobs | None = None
    # The caches' freshness gate (server/services/fleet/freshness.py); None: no gate (fakes in tests).
    freshness: CacheFreshness | None = None
    # Facts for /healthz and the console (e.g. `console_url`).
    health: dict[str, Any] = field(default_factory=dict)
    # What to close at shutdown, in order (blocking; from a worker thread).
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Close in the reverse order of building."""
        for close in reversed(self.closers):
            try:
                close()
            except Exception:
                log.exception("error while shutting down")
        self.closers.clear()
