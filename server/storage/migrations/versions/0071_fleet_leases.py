"""Execution leases for a fleet: the waiters of every sidecar in one FIFO per key.

Revision ID: 0071
Revises: 0070
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0071"
down_revision = "0070"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "safeguard_lease_waiters",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("waiter_id", sa.String(32), nullable=False, unique=True),
        sa.Column("key", sa.String(300), nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("killed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("create_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("poll_time", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_safeguard_lease_waiters_key", "safeguard_lease_waiters", ["key", "seq"])
    op.create_index("ix_safeguard_lease_waiters_agent_id", "safeguard_lease_waiters", ["agent_id"])
    op.create_index("ix_safeguard_leases_active", "safeguard_leases", ["key_scope", "key_id", "state"])


def downgrade() -> None:
    op.drop_index("ix_safeguard_leases_active", "safeguard_leases")
    op.drop_table("safeguard_lease_waiters")
