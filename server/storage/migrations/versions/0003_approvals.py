"""Human approval requests.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = ("approvals",)
depends_on = None

_UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "approvals",
        sa.Column("approval_id", sa.String(40), primary_key=True),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("action", sa.String(1024), nullable=False),
        sa.Column("context", sa.JSON, nullable=False),
        sa.Column("guardrail", sa.String(128), nullable=False),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.Column("trace_id", sa.String(32), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("create_time", _UTC, nullable=False),
        sa.Column("expire_time", _UTC, nullable=True),
        sa.Column("decide_time", _UTC, nullable=True),
        sa.Column("consume_time", _UTC, nullable=True),
        sa.Column("decided_by", sa.String(512), nullable=False),
        sa.Column("comment", sa.String, nullable=False),
        sa.Column("votes", sa.JSON, nullable=False),
        sa.Column("warnings", sa.JSON, nullable=False),
        sa.Column("edited_context", sa.JSON, nullable=True),
        sa.Column("policy", sa.JSON, nullable=False),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("approvers", sa.JSON, nullable=False),
        sa.Column("stage", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("ix_approvals_create_time", "approvals", ["create_time"])
    op.create_index("ix_approvals_attach", "approvals", ["agent_id", "request_id", "digest"])
    op.create_index("ix_approvals_state_expire", "approvals", ["state", "expire_time"])


def downgrade() -> None:
    op.drop_table("approvals")
