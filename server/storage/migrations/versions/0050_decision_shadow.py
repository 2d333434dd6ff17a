"""Shadow mode: a decision records what a shadow guardrail would have answered (its name, reason, and whether it
would have asked a human). Empty `shadow_guardrail`: no shadow guardrail would have changed the answer.

Revision ID: 0050
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0050"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("shadow_guardrail", sa.String(128), nullable=False, server_default=""))
        batch.add_column(sa.Column("shadow_reason", sa.String(), nullable=False, server_default=""))
        batch.add_column(sa.Column("shadow_needs_approval", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_decisions_shadow_guardrail", "decisions", ["shadow_guardrail"])


def downgrade() -> None:
    op.drop_index("ix_decisions_shadow_guardrail", table_name="decisions")
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("shadow_needs_approval")
        batch.drop_column("shadow_reason")
        batch.drop_column("shadow_guardrail")
