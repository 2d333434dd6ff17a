"""An index of the running kills only (`complete_time IS NULL`), in `seq` order: the kill take-over job reads
them on every sidecar every heartbeat, and read the whole kill history to find them (kills are never pruned,
so the job's read grew with every kill ever made; issue 31).

Revision ID: 0140
Revises: 0113
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0140"
down_revision = "0113"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_recovery_kills_running",
        "recovery_kills",
        ["seq"],
        sqlite_where=sa.text("complete_time IS NULL"),
        postgresql_where=sa.text("complete_time IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_recovery_kills_running", table_name="recovery_kills")
