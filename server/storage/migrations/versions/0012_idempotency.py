"""Durable idempotency: the first answer to each mutating RPC's request id, kept for a retention.

Revision ID: 0012
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("method", sa.String(160), nullable=False),
        sa.Column("caller", sa.String(160), nullable=False),
        sa.Column("request_digest", sa.String(64), nullable=False),
        sa.Column("response", sa.LargeBinary, nullable=False),
        sa.Column("create_time", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_idempotency_keys_create_time", "idempotency_keys", ["create_time"])


def downgrade() -> None:
    op.drop_table("idempotency_keys")
