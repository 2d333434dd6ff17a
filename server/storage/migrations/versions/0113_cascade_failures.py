"""The cascade detector's window in the database: failures reported between agents, so related failures
reported to different sidecars of a fleet count together (before, each sidecar kept its own window).

Revision ID: 0113
Revises: 0112
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0113"
down_revision = "0112"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recovery_cascade_failures",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("from_agent", sa.String(128), nullable=False),
        sa.Column("to_agent", sa.String(128), nullable=False),
        sa.Column("detail", sa.String(1024), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("reporter", sa.String(256), nullable=False),
        sa.Column("failure_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cascade_id", sa.String(40), nullable=True),
    )
    op.create_index("ix_recovery_cascade_failures_time", "recovery_cascade_failures", ["failure_time"])


def downgrade() -> None:
    op.drop_index("ix_recovery_cascade_failures_time", table_name="recovery_cascade_failures")
    op.drop_table("recovery_cascade_failures")
