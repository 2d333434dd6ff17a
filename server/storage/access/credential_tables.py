"""SQLModel tables of credentials: API tokens (migration 0002) and revoked mTLS certificates (0010), apart
from the console's tables so `outrider tokens` builds only the mappings it uses."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Column, DateTime, false
from sqlmodel import Field, SQLModel

from server.storage.columns import utc_column as _utc_column


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


class RevokedCertificateRow(SQLModel, table=True):
    """An mTLS client certificate refused from now on, by the SHA-256 of its DER encoding (migration 0010)."""

    __tablename__ = "revoked_certificates"

    fingerprint: str = Field(primary_key=True, max_length=64)
    reason: str = Field(default="", max_length=512)
    actor: str = Field(default="", max_length=160)
    revoke_time: datetime = _utc_column()
