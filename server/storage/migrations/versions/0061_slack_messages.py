"""Where each approval's Slack messages were posted (`slack_messages`), so chat.update can change them
when the request is decided anywhere.

Revision ID: 0061
Revises: 0060
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0061"
down_revision = "0060"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "slack_messages",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("approval_id", sa.String(64), nullable=False),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("slack_channel", sa.String(64), nullable=False),
        sa.Column("ts", sa.String(32), nullable=False),
        sa.Column("create_time", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("slack_channel", "ts", name="uq_slack_messages_message"),
    )
    op.create_index("ix_slack_messages_approval", "slack_messages", ["approval_id", "channel"])


def downgrade() -> None:
    op.drop_index("ix_slack_messages_approval", table_name="slack_messages")
    op.drop_table("slack_messages")
