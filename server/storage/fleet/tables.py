"""SQLModel tables of the fleet (migration 0040, its own Alembic branch from 0002; rate windows, 0013)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Column, DateTime
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
