"""SQLModel tables of the fleet (migration 0040, its own Alembic branch from 0002)."""

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
