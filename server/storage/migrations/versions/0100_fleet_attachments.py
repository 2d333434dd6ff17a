"""Fleet attachments: which sidecar holds each agent's control channel (`fleet_attachments`).

Revision ID: 0100
Revises: 0040
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0100"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_attachments",
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("attachment_id", sa.String(64), nullable=False),
        sa.Column("sidecar_id", sa.String(32), nullable=False),
        sa.Column("connect_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_time", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_fleet_attachments_sidecar_id", "fleet_attachments", ["sidecar_id"])


def downgrade() -> None:
    op.drop_index("ix_fleet_attachments_sidecar_id", "fleet_attachments")
    op.drop_table("fleet_attachments")
