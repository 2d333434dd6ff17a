"""SQLModel tables of the safeguard feature (migration on its own Alembic branch from 0002).

Breakers, episodes and leases are kept in memory by their services and written through here; token
budgets are changed in these tables directly (server/storage/safeguards/budgets.py);
these tables are what a restart reads back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer
from sqlmodel import Field, SQLModel


def _utc(**kw: Any) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=False, **kw))


def _utc_or_none() -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


def _big() -> Any:
    return Field(sa_column=Column(BigInteger, nullable=False))


class BreakerRow(SQLModel, table=True):
    """One circuit breaker (permits are not stored: they are short-lived)."""

    __tablename__ = "safeguard_breakers"

    key: str = Field(primary_key=True, max_length=256)
    state: int
    failure_count: int
    generation: int = _big()
    forced: bool
    runtime_config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    has_cached: bool
    cached: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    probes: int = Field(default=0)  # HALF_OPEN permits of this generation in flight, fleet-wide (0070)
    open_time: datetime | None = _utc_or_none()
    last_failure_time: datetime | None = _utc_or_none()
    last_success_time: datetime | None = _utc_or_none()
    create_time: datetime = _utc()
    update_time: datetime = _utc()


class GlobalBudgetRow(SQLModel, table=True):
    __tablename__ = "safeguard_global_budget"

    name: str = Field(primary_key=True, max_length=16)
    total: int = _big()
    used: int = _big()
    reserved: int = _big()
    warned: bool
    stopped: bool
    source: str = Field(max_length=16)
    update_time: datetime = _utc()
    version: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))


class AllocationRow(SQLModel, table=True):
    __tablename__ = "safeguard_allocations"

    agent_id: str = Field(primary_key=True, max_length=128)
    allocated: int = _big()
    used: int = _big()
    reserved: int = _big()
    priority: int
    warned: bool
    stopped: bool
    allocate_time: datetime = _utc()
    priority_set: bool = Field(default=False)
    update_time: datetime = _utc()
    version: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))


class ReservationRow(SQLModel, table=True):
    __tablename__ = "safeguard_reservations"
    __table_args__ = (
        Index("ix_safeguard_reservations_open", "state", "expire_time"),
        # The ended ones by end time, for the expiry job's prune of those past retention (migration 0141).
        Index("ix_safeguard_reservations_ended", "end_time"),
    )

    reservation_id: str = Field(primary_key=True, max_length=32)
    agent_id: str = Field(index=True, max_length=128)
    tokens: int = _big()
    state: str = Field(max_length=16)
    actual: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    request_id: str = Field(max_length=256)
    create_time: datetime = _utc()
    expire_time: datetime = _utc()
    end_time: datetime | None = _utc_or_none()


class EpisodeRow(SQLModel, table=True):
    __tablename__ = "safeguard_episodes"

    episode_id: int = Field(
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=False)
    )
    task_id: str = Field(max_length=256)
    agent_id: str = Field(index=True, max_length=128)
    task_type: str = Field(max_length=256)
    outcome: str = Field(max_length=256)
    episode_metadata: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    episode_time: datetime = _utc()


class LeaseRow(SQLModel, table=True):
    __tablename__ = "safeguard_leases"
    __table_args__ = (
        Index("ix_safeguard_leases_key", "key_scope", "key_id"),
        Index("ix_safeguard_leases_active", "key_scope", "key_id", "state"),  # 0071: a key's grants
        Index("ix_safeguard_leases_ended", "end_time"),  # 0141: the prune of ended leases
    )

    lease_id: str = Field(primary_key=True, max_length=32)
    key_scope: int
    key_id: str = Field(max_length=256)
    agent_id: str = Field(index=True, max_length=128)
    fencing_token: int = _big()
    state: int = Field(index=True)
    ttl: float
    request_id: str = Field(max_length=256)
    acquire_time: datetime = _utc(index=True)
    expire_time: datetime = _utc()
    end_time: datetime | None = _utc_or_none()


class LeaseKeyRow(SQLModel, table=True):
    """The last fencing token issued for a key, so tokens keep growing across restarts."""

    __tablename__ = "safeguard_lease_keys"

    key: str = Field(primary_key=True, max_length=300)
    fencing_token: int = _big()


class LeaseWaiterRow(SQLModel, table=True):
    """A caller waiting for a slot of a key, on any sidecar (migration 0071): FIFO by `seq` fleet-wide.
    `poll_time` is refreshed while it waits; a row left by a sidecar that died goes stale and is dropped."""

    __tablename__ = "safeguard_lease_waiters"
    __table_args__ = (Index("ix_safeguard_lease_waiters_key", "key", "seq"),)

    seq: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )
    waiter_id: str = Field(max_length=32, unique=True)
    key: str = Field(max_length=300)
    agent_id: str = Field(index=True, max_length=128)
    killed: bool = Field(default=False)
    create_time: datetime = _utc()
    poll_time: datetime = _utc()
