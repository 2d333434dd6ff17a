"""SQLModel tables of the supervisor: agents, the guardrail chain, the policy state, the decision log (migration
0001; its shadow outcome, 0050; its captured context, 0051); agent containment (0010)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer, LargeBinary
from sqlmodel import Field, SQLModel

from server.storage.columns import utc_column as _utc_column


class AgentRow(SQLModel, table=True):
    __tablename__ = "agents"

    agent_id: str = Field(primary_key=True, max_length=128)
    group_name: str = Field(index=True, max_length=128)
    capabilities: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    labels: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    create_time: datetime = _utc_column()
    update_time: datetime = _utc_column()


class ContainmentRow(SQLModel, table=True):
    """An agent id's standing (migration 0010): kept after its record is removed, so a kill outlives the
    record and `first_time` self-registration knows the id was registered before."""

    __tablename__ = "agent_containment"

    agent_id: str = Field(primary_key=True, max_length=128)
    standing: str = Field(max_length=16)  # active, terminated or quarantined
    kill_id: str = Field(default="", max_length=16)
    detail: str = Field(default="", max_length=1024)
    actor: str = Field(default="", max_length=160)
    update_time: datetime = _utc_column()
    first_register_time: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


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
    # Shadow mode (migration 0050): the shadow guardrail that would have blocked ("": none), why, and whether
    # it would have asked a human.
    shadow_guardrail: str = Field(default="", max_length=128, index=True)
    shadow_reason: str = Field(default="")
    shadow_needs_approval: bool = Field(default=False)
    # Context capture (migration 0051): the masked, bounded context; NULL when not captured.
    context: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    context_truncated: bool = Field(default=False)


class IdempotencyRow(SQLModel, table=True):
    """The first answer to a mutating RPC with a request id (migration 0012), kept for the retention."""

    __tablename__ = "idempotency_keys"

    key: str = Field(primary_key=True, max_length=64)  # SHA-256 of method, caller and request id
    method: str = Field(max_length=160)
    caller: str = Field(max_length=160)
    request_digest: str = Field(max_length=64)
    response: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    create_time: datetime = _utc_column(index=True)
