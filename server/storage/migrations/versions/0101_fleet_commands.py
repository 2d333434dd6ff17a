"""Fleet commands: control commands routed to the sidecar holding the agent's channel (`fleet_commands`).

Revision ID: 0101
Revises: 0100
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0101"
down_revision = "0100"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_commands",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("command_id", sa.String(40), nullable=False, unique=True),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(1024), nullable=False),
        sa.Column("payload", sa.JSON, nullable=True),
        sa.Column("issuer_sidecar", sa.String(32), nullable=False),
        sa.Column("target_sidecar", sa.String(32), nullable=False),
        sa.Column("issue_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expire_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("delivery", sa.String(16), nullable=False, server_default=""),
        sa.Column("outcome", sa.Integer, nullable=False, server_default="0"),
        sa.Column("detail", sa.String(1024), nullable=False, server_default=""),
        sa.Column("claim_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("settle_time", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_fleet_commands_target", "fleet_commands", ["target_sidecar", "state"])


def downgrade() -> None:
    op.drop_index("ix_fleet_commands_target", "fleet_commands")
    op.drop_table("fleet_commands")
