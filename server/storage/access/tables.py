"""SQLModel tables of access: console reviewers and shared settings (0006), console sessions (0030); and,
re-exported from credential_tables, API tokens (0002) and revoked certificates (0010)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, DateTime, Text
from sqlmodel import Field, SQLModel

from server.storage.access.credential_tables import RevokedCertificateRow, TokenRow


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


class ConsoleSessionRow(SQLModel, table=True):
    """A signed-in console session (migration 0030). Only the SHA-256 of the session id is kept, so reading
    the table does not let anyone take a session over; deleting the row ends the session in every process."""

    __tablename__ = "console_sessions"

    id_hash: str = Field(primary_key=True, max_length=64)
    user_name: str = Field(index=True, max_length=64)
    create_time: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    expire_time: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False, index=True))
    client: str = Field(default="", max_length=64)


__all__ = ["ConsoleSessionRow", "RevokedCertificateRow", "SettingRow", "TokenRow", "UserRow"]
