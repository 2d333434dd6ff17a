"""SQLModel tables of the console: reviewer accounts and shared settings (migration 0006, branch from 0002)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, DateTime, Text
from sqlmodel import Field, SQLModel


class UserRow(SQLModel, table=True):
    """A console reviewer. Only the argon2 hash of the password is kept."""

    __tablename__ = "users"

    name: str = Field(primary_key=True, max_length=64)
    role: str = Field(max_length=16)  # viewer, approver or admin
    groups: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    password_hash: str = Field(max_length=256)
    create_time: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    disabled: bool = Field(default=False)


class SettingRow(SQLModel, table=True):
    """Key/value settings every process sharing the database must agree on (the console's session secret)."""

    __tablename__ = "settings"

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(sa_column=Column(Text, nullable=False))
