"""The SQLModel tables. A schema change here needs an Alembic migration in migrations/versions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer
from sqlmodel import Field, SQLModel


def _utc_column(**kw: Any) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=False, **kw))


class AgentRow(SQLModel, table=True):
    __tablename__ = "agents"

    agent_id: str = Field(primary_key=True, max_length=128)
    group_name: str = Field(index=True, max_length=128)
    capabilities: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    labels: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    create_time: datetime = _utc_column()
    update_time: datetime = _utc_column()


class GuardrailRow(SQLModel, table=True):
    __tablename__ = "guardrails"

    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True, autoincrement=True))
    position: int = Field(index=True)
    name: str = Field(max_length=128)
    kind: str = Field(max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    source: str = Field(max_length=16)


class PolicyStateRow(SQLModel, table=True):
    """Which policy file content the stored chain was last built from."""

    __tablename__ = "policy_state"

    key: str = Field(primary_key=True, max_length=32)
    digest: str = Field(max_length=64)
    path: str = Field(max_length=4096)
    apply_time: datetime = _utc_column()


class DecisionRow(SQLModel, table=True):
    __tablename__ = "decisions"
    __table_args__ = (Index("ix_decisions_agent_seq", "agent_id", "seq"),)

    seq: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )
    decision_id: str = Field(unique=True, max_length=64)
    agent_id: str = Field(max_length=128)
    action: str = Field(index=True, max_length=1024)
    context_digest: str = Field(max_length=64)
    allowed: bool
    reason: str
    severity: int
    guardrail: str = Field(max_length=128)
    warnings: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    latency_us: int
    create_time: datetime = _utc_column(index=True)
    request_id: str = Field(default="", max_length=256)
    trace_id: str = Field(default="", max_length=32)


class TokenRow(SQLModel, table=True):
    """An API credential. Only the SHA-256 of the secret is kept."""

    __tablename__ = "tokens"

    token_id: str = Field(primary_key=True, max_length=32)
    kind: str = Field(max_length=16)  # "agent" or "operator"
    subject: str = Field(index=True, max_length=128)  # the agent id or operator name
    secret_hash: str = Field(unique=True, max_length=64)
    description: str = Field(default="", max_length=512)
    created_by: str = Field(default="", max_length=160)
    create_time: datetime = _utc_column()
    revoke_time: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


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


# Each feature keeps its tables in its own module; importing them here registers them on the metadata.
from . import (  # noqa: E402, F401
    tables_approvals,
    tables_recovery,
    tables_safeguard,
    tables_users,
)
