"""Circuit breakers for a fleet: the HALF_OPEN probes in flight are counted in the database, so
`half_open_max_calls` is the fleet's number.

Revision ID: 0070
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0070"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("safeguard_breakers") as batch:
        batch.add_column(sa.Column("probes", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("safeguard_breakers") as batch:
        batch.drop_column("probes")
