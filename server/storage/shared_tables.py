"""The tables every feature shares (change counters, the audit log), apart from the feature tables so a
command that needs only these (`outrider tokens issue`) does not build every table's mapping."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Integer
from sqlmodel import Field, SQLModel

from server.storage.columns import utc_column as _utc_column


class CounterRow(SQLModel, table=True):
    """Change counters other processes poll cheaply (e.g. `tokens`: bumped on every issue/revoke)."""

    __tablename__ = "counters"

    name: str = Field(primary_key=True, max_length=32)
    value: int = Field(sa_column=Column(BigInteger, nullable=False))


class AuditRow(SQLModel, table=True):
    """One append-only audit record; `hash` covers its content and `prev_hash`."""

    __tablename__ = "audit_log"

    seq: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )
    record_time: datetime = _utc_column()
    actor: str = Field(max_length=160)
    action: str = Field(index=True, max_length=64)
    subject: str = Field(max_length=256)
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
