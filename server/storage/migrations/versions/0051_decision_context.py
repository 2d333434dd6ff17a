"""Context capture for replay (`decision_log.capture: masked`): a decision's masked, size-bounded context (NULL
when not captured) and whether it was truncated to `decision_log.capture_max_bytes`. Pruned with its row by the
decision log's retention.

Revision ID: 0051
Revises: 0050
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0051"
down_revision = "0050"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("context", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("context_truncated", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("context_truncated")
        batch.drop_column("context")
