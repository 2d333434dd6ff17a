"""Server-side console sessions (`console_sessions`): signing out, a password change, disabling a user and
"sign out everywhere" delete rows, which ends those sessions at once in every console on the database.

Revision ID: 0030
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "console_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("user_name", sa.String(64), nullable=False),
        sa.Column("create_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expire_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client", sa.String(64), nullable=False),
    )
    op.create_index("ix_console_sessions_user_name", "console_sessions", ["user_name"])
    op.create_index("ix_console_sessions_expire_time", "console_sessions", ["expire_time"])


def downgrade() -> None:
    op.drop_table("console_sessions")
