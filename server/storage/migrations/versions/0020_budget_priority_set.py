"""Token budgets: remember whether an allocation's priority was set explicitly (the floors apply only then).

Revision ID: 0020
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("safeguard_allocations") as batch:
        batch.add_column(sa.Column("priority_set", sa.Boolean, nullable=False, server_default=sa.false()))
    # A priority other than NORMAL was certainly chosen; NORMAL is what an unset priority became, so those
    # rows keep the source's rule (no floor) until the agent is allocated again with a priority.
    op.execute("UPDATE safeguard_allocations SET priority_set = TRUE WHERE priority <> 2")


def downgrade() -> None:
    with op.batch_alter_table("safeguard_allocations") as batch:
        batch.drop_column("priority_set")
