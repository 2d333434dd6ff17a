"""Fleet: `fleet_change_feed`, the changes the workers of `serve --workers` on one SQLite file read (SQLite has
no NOTIFY); server/storage/fleet/changes.py.

Revision ID: 0150
Revises: 0040
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0150"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_change_feed",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("topic", sa.String(64), nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("origin", sa.String(32), nullable=False),
        sa.Column("key", sa.String, nullable=False),
        sa.Column("create_time", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_fleet_change_feed_create_time", "fleet_change_feed", ["create_time"])


def downgrade() -> None:
    op.drop_index("ix_fleet_change_feed_create_time", "fleet_change_feed")
    op.drop_table("fleet_change_feed")
