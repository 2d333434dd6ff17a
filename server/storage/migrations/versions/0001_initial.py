"""Agents, the guardrail chain, the policy state and the decision log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "agents",
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("group_name", sa.String(128), nullable=False),
        sa.Column("capabilities", sa.JSON, nullable=False),
        sa.Column("labels", sa.JSON, nullable=False),
        sa.Column("create_time", _UTC, nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )
    op.create_index("ix_agents_group_name", "agents", ["group_name"])
    op.create_table(
        "guardrails",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
    )
    op.create_index("ix_guardrails_position", "guardrails", ["position"])
    op.create_table(
        "policy_state",
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("path", sa.String(4096), nullable=False),
        sa.Column("apply_time", _UTC, nullable=False),
    )
    op.create_table(
        "decisions",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("decision_id", sa.String(64), nullable=False, unique=True),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("action", sa.String(1024), nullable=False),
        sa.Column("context_digest", sa.String(64), nullable=False),
        sa.Column("allowed", sa.Boolean, nullable=False),
        sa.Column("reason", sa.String, nullable=False),
        sa.Column("severity", sa.Integer, nullable=False),
        sa.Column("guardrail", sa.String(128), nullable=False),
        sa.Column("warnings", sa.JSON, nullable=False),
        sa.Column("latency_us", sa.Integer, nullable=False),
        sa.Column("create_time", _UTC, nullable=False),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.Column("trace_id", sa.String(32), nullable=False),
    )
    op.create_index("ix_decisions_action", "decisions", ["action"])
    op.create_index("ix_decisions_create_time", "decisions", ["create_time"])
    op.create_index("ix_decisions_agent_seq", "decisions", ["agent_id", "seq"])


def downgrade() -> None:
    for table in ("decisions", "policy_state", "guardrails", "agents"):
        op.drop_table(table)
