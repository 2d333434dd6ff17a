"""Fleet rate windows: the slices of a `rate_limit` window's allowance the sidecars have taken (scope: fleet).

Revision ID: 0013
Revises: 0040
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_rate_windows",
        sa.Column("guardrail_key", sa.String(32), primary_key=True),
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("window_index", sa.BigInteger, nullable=False),
        sa.Column("taken", sa.BigInteger, nullable=False),
        sa.Column("update_time", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fleet_rate_windows")
