"""The outbox: one row per (event, channel), written in the transaction of the event that causes it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel


def _utc(nullable: bool = False) -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=nullable))


class NotificationRow(SQLModel, table=True):
    __tablename__ = "notifications"
    __table_args__ = (
        UniqueConstraint("event_id", "channel", name="uq_notifications_event_channel"),
        # The worker's poll: "due PENDING rows", one cheap index range scan.
        Index("ix_notifications_due", "state", "next_attempt_time"),
    )

    seq: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )
    notification_id: str = Field(max_length=40, unique=True)
    event_id: str = Field(max_length=40)
    kind: str = Field(max_length=40)
    channel: str = Field(max_length=64)
    agent_id: str = Field(default="", max_length=128)
    subject: str = Field(default="", max_length=160)
    document: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    state: str = Field(max_length=16)
    attempts: int = Field(default=0)
    create_time: datetime = _utc()
    next_attempt_time: datetime = _utc()
    deliver_time: datetime | None = _utc(nullable=True)
    last_error: str = Field(default="")
    claimed_by: str = Field(default="", max_length=64)


class SlackMessageRow(SQLModel, table=True):
    """A message posted to Slack for an approval (migration 0061)."""

    __tablename__ = "slack_messages"
    __table_args__ = (
        UniqueConstraint("slack_channel", "ts", name="uq_slack_messages_message"),
        Index("ix_slack_messages_approval", "approval_id", "channel"),
    )

    seq: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    )
    approval_id: str = Field(max_length=64)
    channel: str = Field(max_length=64)
    slack_channel: str = Field(max_length=64)
    ts: str = Field(max_length=32)
    create_time: datetime = _utc()
