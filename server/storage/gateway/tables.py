"""The pinned tools of the MCP gateway (migration 0130, its own Alembic branch from 0002)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Column, DateTime, Text
from sqlmodel import Field, SQLModel


def _utc_or_none() -> Any:
    return Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class ToolPinRow(SQLModel, table=True):
    """One upstream tool as first listed (or last accepted); `pending_*` is a differing listing waiting for an
    operator (`outrider gateway tools accept`)."""

    __tablename__ = "gateway_tool_pins"

    upstream: str = Field(primary_key=True, max_length=64)
    tool: str = Field(primary_key=True, max_length=256)
    description: str = Field(sa_column=Column(Text, nullable=False))
    schema_digest: str = Field(max_length=64)
    pin_time: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    pending_description: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    pending_digest: str | None = Field(default=None, max_length=64)
    change_time: datetime | None = _utc_or_none()
    accept_time: datetime | None = _utc_or_none()
    accepted_by: str = Field(default="", max_length=160)
