"""Safeguards: circuit breakers, token budgets and reservations, episodic memory, execution leases.

Revision ID: 0005
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0002"
branch_labels = ("safeguard",)
depends_on = None

_UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "safeguard_breakers",
        sa.Column("key", sa.String(256), primary_key=True),
        sa.Column("state", sa.Integer, nullable=False),
        sa.Column("failure_count", sa.Integer, nullable=False),
        sa.Column("generation", sa.BigInteger, nullable=False),
        sa.Column("forced", sa.Boolean, nullable=False),
        sa.Column("runtime_config", sa.JSON, nullable=False),
        sa.Column("has_cached", sa.Boolean, nullable=False),
        sa.Column("cached", sa.JSON, nullable=True),
        sa.Column("open_time", _UTC, nullable=True),
        sa.Column("last_failure_time", _UTC, nullable=True),
        sa.Column("last_success_time", _UTC, nullable=True),
        sa.Column("create_time", _UTC, nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )
    op.create_table(
        "safeguard_global_budget",
        sa.Column("name", sa.String(16), primary_key=True),
        sa.Column("total", sa.BigInteger, nullable=False),
        sa.Column("used", sa.BigInteger, nullable=False),
        sa.Column("reserved", sa.BigInteger, nullable=False),
        sa.Column("warned", sa.Boolean, nullable=False),
        sa.Column("stopped", sa.Boolean, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )
    op.create_table(
        "safeguard_allocations",
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("allocated", sa.BigInteger, nullable=False),
        sa.Column("used", sa.BigInteger, nullable=False),
        sa.Column("reserved", sa.BigInteger, nullable=False),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("warned", sa.Boolean, nullable=False),
        sa.Column("stopped", sa.Boolean, nullable=False),
        sa.Column("allocate_time", _UTC, nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
    )
    op.create_table(
        "safeguard_reservations",
        sa.Column("reservation_id", sa.String(32), primary_key=True),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("tokens", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("actual", sa.BigInteger, nullable=True),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.Column("create_time", _UTC, nullable=False),
        sa.Column("expire_time", _UTC, nullable=False),
        sa.Column("end_time", _UTC, nullable=True),
    )
    op.create_index("ix_safeguard_reservations_agent_id", "safeguard_reservations", ["agent_id"])
    op.create_table(
        "safeguard_episodes",
        sa.Column(
            "episode_id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=False
        ),
        sa.Column("task_id", sa.String(256), nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("task_type", sa.String(256), nullable=False),
        sa.Column("outcome", sa.String(256), nullable=False),
        sa.Column("episode_metadata", sa.JSON, nullable=False),
        sa.Column("episode_time", _UTC, nullable=False),
    )
    op.create_index("ix_safeguard_episodes_agent_id", "safeguard_episodes", ["agent_id"])
    op.create_table(
        "safeguard_leases",
        sa.Column("lease_id", sa.String(32), primary_key=True),
        sa.Column("key_scope", sa.Integer, nullable=False),
        sa.Column("key_id", sa.String(256), nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=False),
        sa.Column("fencing_token", sa.BigInteger, nullable=False),
        sa.Column("state", sa.Integer, nullable=False),
        sa.Column("ttl", sa.Float, nullable=False),
        sa.Column("request_id", sa.String(256), nullable=False),
        sa.Column("acquire_time", _UTC, nullable=False),
        sa.Column("expire_time", _UTC, nullable=False),
        sa.Column("end_time", _UTC, nullable=True),
    )
    op.create_index("ix_safeguard_leases_key", "safeguard_leases", ["key_scope", "key_id"])
    op.create_index("ix_safeguard_leases_agent_id", "safeguard_leases", ["agent_id"])
    op.create_index("ix_safeguard_leases_state", "safeguard_leases", ["state"])
    op.create_index("ix_safeguard_leases_acquire_time", "safeguard_leases", ["acquire_time"])
    op.create_table(
        "safeguard_lease_keys",
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("fencing_token", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "safeguard_lease_keys",
        "safeguard_leases",
        "safeguard_episodes",
        "safeguard_reservations",
        "safeguard_allocations",
        "safeguard_global_budget",
        "safeguard_breakers",
    ):
        op.drop_table(table)
