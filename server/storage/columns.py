"""Column helpers the feature tables share."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, DateTime
from sqlmodel import Field


def utc_column(**kw: Any) -> Any:
    """A timezone-aware timestamp column, NOT NULL."""
    return Field(sa_column=Column(DateTime(timezone=True), nullable=False, **kw))
