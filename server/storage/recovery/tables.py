"""SQLModel tables of the recovery feature (migration on its own Alembic branch from 0002)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer, UniqueConstraint, text
from sqlmodel import Field, SQLModel


def _utc(**kw: Any) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=False, **kw))


def _utc_or_none() -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


def _seq() -> Any:
    return Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )


class RecoveryPolicyRow(SQLModel, table=True):
    """A group's own recovery policy (runtime or from the policy file)."""

    __tablename__ = "recovery_policies"

    group_name: str = Field(primary_key=True, max_length=128)
    max_retries: int
    escalate_after: int
    cooldown: float
    default_action: str = Field(max_length=16)
    source: str = Field(max_length=16)
    update_time: datetime = _utc()


class RecoveryAgentStateRow(SQLModel, table=True):
    """Retry count, last attempt time (the cooldown) and latest attempt of one agent."""

    __tablename__ = "recovery_agent_state"

    agent_id: str = Field(primary_key=True, max_length=128)
    retry_count: int
    last_attempt_time: datetime | None = _utc_or_none()
    last_recovery: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class RecoveryHistoryRow(SQLModel, table=True):
    """One recorded recovery attempt (attempts refused in cooldown are not recorded)."""

    __tablename__ = "recovery_history"

    seq: int | None = _seq()
    recovery_id: str = Field(unique=True, max_length=64)
    agent_id: str = Field(index=True, max_length=128)
    group_name: str = Field(max_length=128)
    action: str = Field(max_length=16)
    trigger: str = Field(max_length=16)
    attempt_time: datetime = _utc(index=True)
    request_id: str = Field(index=True, max_length=256)
    record: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class HealthCheckRow(SQLModel, table=True):
    __tablename__ = "recovery_health_checks"

    agent_id: str = Field(primary_key=True, max_length=128)
    spec: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    update_time: datetime = _utc()
    # The latest result of the check, whichever sidecar ran it (None: not run since the spec was set).
    last_status: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class RecoveryEventRow(SQLModel, table=True):
    """The durable event log; `seq` is the resume cursor."""

    __tablename__ = "recovery_events"

    seq: int | None = _seq()
    event_type: str = Field(index=True, max_length=32)
    agent_id: str = Field(index=True, max_length=128)
    event_time: datetime = _utc(index=True)
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class KillRow(SQLModel, table=True):
    """A kill: written as an intent first, updated as each step settles, completed at the end."""

    __tablename__ = "recovery_kills"
    # At most one running kill per agent, fleet-wide (migration 0042).
    __table_args__ = (
        Index(
            "uq_recovery_kills_running",
            "agent_id",
            unique=True,
            sqlite_where=text("complete_time IS NULL"),
            postgresql_where=text("complete_time IS NULL"),
        ),
        # The running kills in order, for the take-over job's read every heartbeat (migration 0140): the
        # history of completed kills is never read by it.
        Index(
            "ix_recovery_kills_running",
            "seq",
            sqlite_where=text("complete_time IS NULL"),
            postgresql_where=text("complete_time IS NULL"),
        ),
    )

    seq: int | None = _seq()
    kill_id: str = Field(unique=True, max_length=16)
    agent_id: str = Field(index=True, max_length=128)
    session_id: str = Field(index=True, max_length=128)
    reason: str = Field(max_length=32)
    kill_time: datetime = _utc(index=True)
    complete_time: datetime | None = _utc_or_none()
    request_id: str = Field(index=True, max_length=256)
    record: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    owner_sidecar: str = Field(default="", max_length=32)  # the sidecar running it; "" before migration 0042


class SubstituteRow(SQLModel, table=True):
    """An agent on a session's (kill handoffs) or group's (REPLACE) substitute list; `id` orders the list."""

    __tablename__ = "recovery_substitutes"
    __table_args__ = (UniqueConstraint("scope", "scope_id", "agent_id", name="uq_recovery_substitutes_entry"),)

    id: int | None = _seq()
    scope: str = Field(max_length=16)
    scope_id: str = Field(max_length=128)
    agent_id: str = Field(index=True, max_length=128)
    register_time: datetime = _utc()
    request_id: str = Field(default="", max_length=256)


class RecoverySettingRow(SQLModel, table=True):
    """Small feature-wide settings: the cascade policy, the monitoring job, policy-file digests, pruning."""

    __tablename__ = "recovery_settings"

    key: str = Field(primary_key=True, max_length=32)
    value: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    update_time: datetime = _utc()


class CascadeFailureRow(SQLModel, table=True):
    """A failure reported between agents, in the cascade detector's window: the fleet's one window, so
    related failures reported to different sidecars count together (migration 0113)."""

    __tablename__ = "recovery_cascade_failures"

    __table_args__ = (Index("ix_recovery_cascade_failures_time", "failure_time"),)

    seq: int | None = _seq()
    from_agent: str = Field(max_length=128)
    to_agent: str = Field(max_length=128)
    detail: str = Field(default="", max_length=1024)
    source: str = Field(max_length=16)
    reporter: str = Field(max_length=256)
    failure_time: datetime = _utc()
    # Set when the failure became part of a cascade: it leaves the window.
    cascade_id: str | None = Field(default=None, max_length=40)
