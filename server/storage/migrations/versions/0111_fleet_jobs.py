"""Periodic work done once fleet-wide: `fleet_jobs`, one row per job (its next due time and the sidecar
that claimed its last period) or per elected role (its holder and the lease's expiry).

Revision ID: 0111
Revises: 0040
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0111"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_jobs",
        sa.Column("job_id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(32), nullable=False, server_default=""),
        sa.Column("due_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_time", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("fleet_jobs")
