"""Fleet: the fleet's one policy (`fleet_policy`) and the version each sidecar applied (`fleet_policy_applied`).

Revision ID: 0080
Revises: 0040
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0080"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fleet_policy",
        sa.Column("key", sa.String(16), primary_key=True),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("document", sa.JSON, nullable=False),
        sa.Column("path", sa.String(4096), nullable=False),
        sa.Column("host", sa.String(256), nullable=False),
        sa.Column("sidecar_id", sa.String(32), nullable=False),
        sa.Column("actor", sa.String(256), nullable=False),
        sa.Column("apply_time", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "fleet_policy_applied",
        sa.Column("sidecar_id", sa.String(32), primary_key=True),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("apply_time", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fleet_policy_applied")
    op.drop_table("fleet_policy")
