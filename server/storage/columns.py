"""Column helpers the feature tables share."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, DateTime
from sqlmodel import Field


def utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything we store is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_column(**kw: Any) -> Any:
    """A timezone-aware timestamp column, NOT NULL."""
    return Field(sa_column=Column(DateTime(timezone=True), nullable=False, **kw))
