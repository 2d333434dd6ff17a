"""`abandoned_at`: when the last call waiting on a pending approval request went away (a cancelled or broken
CheckAction or CheckActions stream). A re-attach clears it; a request abandoned for longer than
`approvals.abandoned_after` is cancelled (ApprovalService.cancel_abandoned). Indexed: every sidecar's job
looks for the old marks.

Revision ID: 0131
Revises: 0090
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0131"
down_revision = "0090"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("approvals") as batch:
        batch.add_column(sa.Column("abandoned_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_approvals_abandoned_at", "approvals", ["abandoned_at"])


def downgrade() -> None:
    op.drop_index("ix_approvals_abandoned_at", table_name="approvals")
    with op.batch_alter_table("approvals") as batch:
        batch.drop_column("abandoned_at")
