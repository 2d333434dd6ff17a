"""The latest result of each agent's health check, stored with its spec: every sidecar of a fleet reports
the result of the check whichever sidecar ran it (GetAgentRecoveryStatus, the choice of a substitute, the
cascade detector).

Revision ID: 0112
Revises: 0110
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0112"
down_revision = "0110"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("recovery_health_checks", sa.Column("last_status", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("recovery_health_checks") as batch:
        batch.drop_column("last_status")
