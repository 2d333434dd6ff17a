"""The notification outbox (`notifications`): one row per event and channel, claimed by a worker.

Revision ID: 0060
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0060"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notifications",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("notification_id", sa.String(40), nullable=False, unique=True),
        sa.Column("event_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("subject", sa.String(160), nullable=False),
        sa.Column("document", sa.JSON, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("create_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deliver_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String, nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=False),
        sa.UniqueConstraint("event_id", "channel", name="uq_notifications_event_channel"),
    )
    op.create_index("ix_notifications_due", "notifications", ["state", "next_attempt_time"])


def downgrade() -> None:
    op.drop_index("ix_notifications_due", table_name="notifications")
    op.drop_table("notifications")
