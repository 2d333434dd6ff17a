"""Fleet: the `sidecars` sharing this database and the per-topic change counters (`fleet_changes`).

Revision ID: 0040
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0040"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sidecars",
        sa.Column("sidecar_id", sa.String(32), primary_key=True),
        sa.Column("host", sa.String(256), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("listen", sa.String(512), nullable=False),
        sa.Column("start_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stop_time", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "fleet_changes",
        sa.Column("topic", sa.String(64), primary_key=True),
        sa.Column("version", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fleet_changes")
    op.drop_table("sidecars")
