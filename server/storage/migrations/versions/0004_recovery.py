"""Recovery: policies, agent state, history, health checks, events, kills, substitutes, settings.

Revision ID: 0004
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0002"
branch_labels = ("recovery",)
depends_on = None

_UTC = sa.DateTime(timezone=True)
_SEQ = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "recovery_policies",
        sa.Column("group_name", sa.String(128), primary_key=True),
        sa.Column("max_retries", sa.Integer, nullable=False),
        sa.Column("escalate_after", sa.Integer, nullable=False),
        sa.Column("cooldown", sa.Float, nullable=False),
        sa.Column("default_action", sa.String(16), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )
    op.create_table(
        "recovery_agent_state",
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("retry_count", sa.Integer, nullable=False),
        sa.Column("last_attempt_time", _UTC, nullable=True),
        sa.Column("last_recovery", sa.JSON, nullable=True),
    )
    op.create_table(
        "recovery_history",
        sa.Column("seq", _SEQ, primary_key=True, autoincrement=True),
        sa.Column("recovery_id", sa.String(64), nullable=False, unique=True),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("group_name", sa.String(128), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("attempt_time", _UTC, nullable=False),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
    )
    op.create_index("ix_recovery_history_agent_id", "recovery_history", ["agent_id"])
    op.create_index("ix_recovery_history_attempt_time", "recovery_history", ["attempt_time"])
    op.create_index("ix_recovery_history_request_id", "recovery_history", ["request_id"])
    op.create_table(
        "recovery_health_checks",
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("spec", sa.JSON, nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )
    op.create_table(
        "recovery_events",
        sa.Column("seq", _SEQ, primary_key=True, autoincrement=True),
        sa.Column("event_type", sa.String(32), nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("event_time", _UTC, nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
    )
    op.create_index("ix_recovery_events_event_type", "recovery_events", ["event_type"])
    op.create_index("ix_recovery_events_agent_id", "recovery_events", ["agent_id"])
    op.create_index("ix_recovery_events_event_time", "recovery_events", ["event_time"])
    op.create_table(
        "recovery_kills",
        sa.Column("seq", _SEQ, primary_key=True, autoincrement=True),
        sa.Column("kill_id", sa.String(16), nullable=False, unique=True),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("session_id", sa.String(128), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("kill_time", _UTC, nullable=False),
        sa.Column("complete_time", _UTC, nullable=True),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
    )
    op.create_index("ix_recovery_kills_agent_id", "recovery_kills", ["agent_id"])
    op.create_index("ix_recovery_kills_session_id", "recovery_kills", ["session_id"])
    op.create_index("ix_recovery_kills_kill_time", "recovery_kills", ["kill_time"])
    op.create_index("ix_recovery_kills_request_id", "recovery_kills", ["request_id"])
    op.create_table(
        "recovery_substitutes",
        sa.Column("id", _SEQ, primary_key=True, autoincrement=True),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("scope_id", sa.String(128), nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("register_time", _UTC, nullable=False),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.UniqueConstraint("scope", "scope_id", "agent_id", name="uq_recovery_substitutes_entry"),
    )
    op.create_index("ix_recovery_substitutes_agent_id", "recovery_substitutes", ["agent_id"])
    op.create_table(
        "recovery_settings",
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("value", sa.JSON, nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "recovery_settings",
        "recovery_substitutes",
        "recovery_kills",
        "recovery_events",
        "recovery_health_checks",
        "recovery_history",
        "recovery_agent_state",
        "recovery_policies",
    ):
        op.drop_table(table)
