"""SQLModel tables of access: API tokens (migration 0002), console reviewers and shared settings (0006),
console sessions (0030)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, Column, DateTime, Text, false
from sqlmodel import Field, SQLModel

from server.storage.columns import utc_column as _utc_column


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


class TokenRow(SQLModel, table=True):
    """An API credential. Only the SHA-256 of the secret is kept."""

    __tablename__ = "tokens"

    token_id: str = Field(primary_key=True, max_length=32)
    kind: str = Field(max_length=16)  # "agent" or "operator"
    # An operator token that may also issue and revoke credentials (issued on the host only; 0010).
    admin: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    subject: str = Field(index=True, max_length=128)  # the agent id or operator name
    secret_hash: str = Field(unique=True, max_length=64)
    description: str = Field(default="", max_length=512)
    created_by: str = Field(default="", max_length=160)
    create_time: datetime = _utc_column()
    revoke_time: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class ConsoleSessionRow(SQLModel, table=True):
    """A signed-in console session (migration 0030). Only the SHA-256 of the session id is kept, so reading
    the table does not let anyone take a session over; deleting the row ends the session in every process."""

    __tablename__ = "console_sessions"

    id_hash: str = Field(primary_key=True, max_length=64)
    user_name: str = Field(index=True, max_length=64)
    create_time: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    expire_time: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False, index=True))
    client: str = Field(default="", max_length=64)


class RevokedCertificateRow(SQLModel, table=True):
    """An mTLS client certificate refused from now on, by the SHA-256 of its DER encoding (migration 0010)."""

    __tablename__ = "revoked_certificates"

    fingerprint: str = Field(primary_key=True, max_length=64)
    reason: str = Field(default="", max_length=512)
    actor: str = Field(default="", max_length=160)
    revoke_time: datetime = _utc_column()
