"""Budgets in the database for a fleet: a change count on each allocation and on the global budget, so
every sidecar's cache keeps the newest state it has seen.

Revision ID: 0041
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0041"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("safeguard_allocations", "safeguard_global_budget"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("version", sa.BigInteger, nullable=False, server_default="0"))
    op.create_index("ix_safeguard_reservations_open", "safeguard_reservations", ["state", "expire_time"])


def downgrade() -> None:
    op.drop_index("ix_safeguard_reservations_open", "safeguard_reservations")
    for table in ("safeguard_allocations", "safeguard_global_budget"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("version")
