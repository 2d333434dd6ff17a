"""SQLModel tables of the fleet (migrations 0040, 0080, 0100-0111 and 0150, their own Alembic branch from 0002;
rate windows, 0013)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer
from sqlmodel import Field, SQLModel


def _utc(nullable: bool = False) -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=nullable))


class SidecarRow(SQLModel, table=True):
    """One `outrider serve` process that shares this database."""

    __tablename__ = "sidecars"

    sidecar_id: str = Field(primary_key=True, max_length=32)
    host: str = Field(max_length=256)
    pid: int
    version: str = Field(max_length=64)
    listen: str = Field(max_length=512)
    start_time: datetime = _utc()
    heartbeat_time: datetime = _utc()
    stop_time: datetime | None = _utc(nullable=True)


class ChangeCounterRow(SQLModel, table=True):
    """How many committed changes a topic (budgets, leases, ...) has had: a listener that missed
    notifications compares these with what it saw and resynchronises the topics that moved."""

    __tablename__ = "fleet_changes"

    topic: str = Field(primary_key=True, max_length=64)
    version: int = Field(sa_column=Column(BigInteger, nullable=False))


class ChangeFeedRow(SQLModel, table=True):
    """One committed change, for the workers sharing a SQLite file (migration 0150; PostgreSQL uses NOTIFY
    instead and leaves it empty): server/storage/fleet/changes.py. `seq` never goes back, even once the
    newest rows are pruned (AUTOINCREMENT)."""

    __tablename__ = "fleet_change_feed"
    __table_args__ = (Index("ix_fleet_change_feed_create_time", "create_time"), {"sqlite_autoincrement": True})

    seq: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True, autoincrement=True))
    topic: str = Field(max_length=64)
    version: int = Field(sa_column=Column(BigInteger, nullable=False))
    origin: str = Field(max_length=32)
    key: str
    create_time: datetime = _utc()


class FleetPolicyRow(SQLModel, table=True):
    """The fleet's one policy (migration 0080): one row, key `fleet`; version 0 is a placeholder that
    only exists so a first apply has a row to lock."""

    __tablename__ = "fleet_policy"

    key: str = Field(primary_key=True, max_length=16)
    version: int = Field(sa_column=Column(BigInteger, nullable=False))
    digest: str = Field(max_length=64)
    document: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    path: str = Field(max_length=4096)
    host: str = Field(max_length=256)
    sidecar_id: str = Field(max_length=32)
    actor: str = Field(max_length=256)
    apply_time: datetime = _utc()


class FleetPolicyAppliedRow(SQLModel, table=True):
    """Which fleet policy version each sidecar runs (written when it applied one)."""

    __tablename__ = "fleet_policy_applied"

    sidecar_id: str = Field(primary_key=True, max_length=32)
    version: int = Field(sa_column=Column(BigInteger, nullable=False))
    digest: str = Field(max_length=64)
    apply_time: datetime = _utc()


class AttachmentRow(SQLModel, table=True):
    """Which sidecar holds an agent's control channel (migration 0100): one row per attached agent."""

    __tablename__ = "fleet_attachments"

    agent_id: str = Field(primary_key=True, max_length=128)
    attachment_id: str = Field(max_length=64)
    sidecar_id: str = Field(max_length=32, index=True)
    connect_time: datetime = _utc()
    last_seen_time: datetime = _utc()


class RoutedCommandRow(SQLModel, table=True):
    """A control command on its way to the sidecar holding the agent's channel (migration 0101)."""

    __tablename__ = "fleet_commands"

    __table_args__ = (Index("ix_fleet_commands_target", "target_sidecar", "state"),)

    seq: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )
    command_id: str = Field(max_length=40, unique=True)
    agent_id: str = Field(max_length=128)
    kind: str = Field(max_length=16)
    reason: str = Field(max_length=1024)
    payload: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    issuer_sidecar: str = Field(max_length=32)
    target_sidecar: str = Field(max_length=32)
    issue_time: datetime = _utc()
    expire_time: datetime = _utc()
    state: str = Field(max_length=16)
    delivery: str = Field(default="", max_length=16)
    outcome: int = 0
    detail: str = Field(default="", max_length=1024)
    claim_time: datetime | None = _utc(nullable=True)
    settle_time: datetime | None = _utc(nullable=True)


class FleetJobRow(SQLModel, table=True):
    """A piece of periodic work done once fleet-wide (migration 0111): a period of a job (claimed by the
    sidecar that moves `due_time` on) or a role's lease (held while its owner renews it)."""

    __tablename__ = "fleet_jobs"

    job_id: str = Field(primary_key=True, max_length=64)
    owner: str = Field(default="", max_length=32)
    due_time: datetime = _utc()  # the period's end, or the lease's expiry: claimable from then on
    run_time: datetime | None = _utc(nullable=True)  # the last claim


class RateWindowRow(SQLModel, table=True):
    """A `rate_limit` guardrail's fleet window for one agent (migration 0013): how much of window
    `window_index`'s allowance the sidecars have taken as slices. One row per (guardrail spec, agent),
    moved on to the next window in place."""

    __tablename__ = "fleet_rate_windows"

    guardrail_key: str = Field(primary_key=True, max_length=32)
    agent_id: str = Field(primary_key=True, max_length=128)
    window_index: int = Field(sa_column=Column(BigInteger, nullable=False))
    taken: int = Field(sa_column=Column(BigInteger, nullable=False))
    update_time: datetime = _utc()
