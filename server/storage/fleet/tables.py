"""SQLModel tables of the fleet (migration 0040, its own Alembic branch from 0002)."""

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


class FleetJobRow(SQLModel, table=True):
    """A piece of periodic work done once fleet-wide (migration 0111): a period of a job (claimed by the
    sidecar that moves `due_time` on) or a role's lease (held while its owner renews it)."""

    __tablename__ = "fleet_jobs"

    job_id: str = Field(primary_key=True, max_length=64)
    owner: str = Field(default="", max_length=32)
    due_time: datetime = _utc()  # the period's end, or the lease's expiry: claimable from then on
    run_time: datetime | None = _utc(nullable=True)  # the last claim
