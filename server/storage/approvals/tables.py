"""SQLModel tables of human approvals (migration 0003, on its own branch from 0002)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Index, Integer, text
from sqlmodel import Field, SQLModel


def _utc(nullable: bool = False, **kw: Any) -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=nullable, **kw))


class ApprovalRow(SQLModel, table=True):
    __tablename__ = "approvals"
    __table_args__ = (
        # Concurrent identical requests (same agent, request id and digest) are one request (migration 0011).
        Index(
            "uq_approvals_attach",
            "agent_id",
            "request_id",
            "digest",
            "attempt",
            unique=True,
            sqlite_where=text("request_id != ''"),
            postgresql_where=text("request_id != ''"),
        ),
        Index("ix_approvals_state_expire", "state", "expire_time"),
        Index("ix_approvals_abandoned_at", "abandoned_at"),  # migration 0131
    )

    approval_id: str = Field(primary_key=True, max_length=40)
    agent_id: str = Field(max_length=128)
    action: str = Field(max_length=1024)
    context: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    guardrail: str = Field(max_length=128)
    request_id: str = Field(max_length=256)
    trace_id: str = Field(max_length=32)
    digest: str = Field(max_length=64)
    state: str = Field(max_length=16)
    create_time: datetime = _utc(index=True)
    expire_time: datetime | None = _utc(nullable=True)
    decide_time: datetime | None = _utc(nullable=True)
    consume_time: datetime | None = _utc(nullable=True)
    decided_by: str = Field(default="", max_length=512)
    comment: str = Field(default="")
    votes: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    warnings: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    edited_context: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    policy: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    owner: str = Field(default="", max_length=128)
    approvers: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    stage: int = Field(default=0)
    version: int = Field(default=0)
    attempt: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # When the last call waiting on the pending request went away (0131); written only by the mark, the
    # re-attach that clears it and the job that cancels it, never by a whole-row update.
    abandoned_at: datetime | None = _utc(nullable=True)
