"""The MCP gateway's pinned tools: each upstream tool's first listing (description, schema digest), and a
differing later listing waiting for an operator to accept it.

Revision ID: 0130
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0130"
down_revision = "0002"
branch_labels = ("gateway",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gateway_tool_pins",
        sa.Column("upstream", sa.String(64), primary_key=True),
        sa.Column("tool", sa.String(256), primary_key=True),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("schema_digest", sa.String(64), nullable=False),
        sa.Column("pin_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("pending_description", sa.Text(), nullable=True),
        sa.Column("pending_digest", sa.String(64), nullable=True),
        sa.Column("change_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("accept_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("accepted_by", sa.String(160), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gateway_tool_pins")
