"""Containment: each agent id's standing (active, terminated by a kill, quarantined by EJECT) and whether it
was ever registered (for `agents.self_registration: first_time`); admin tokens; revoked client certificates.

Revision ID: 0010
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0006"
branch_labels = None
depends_on = None

_UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "agent_containment",
        sa.Column("agent_id", sa.String(128), primary_key=True),
        sa.Column("standing", sa.String(16), nullable=False),
        sa.Column("kill_id", sa.String(16), nullable=False),
        sa.Column("detail", sa.String(1024), nullable=False),
        sa.Column("actor", sa.String(160), nullable=False),
        sa.Column("update_time", _UTC, nullable=False),
        sa.Column("first_register_time", _UTC, nullable=True),
    )
    # Every agent registered so far counts as registered once.
    op.execute(
        "INSERT INTO agent_containment (agent_id, standing, kill_id, detail, actor, update_time, first_register_time) "
        "SELECT agent_id, 'active', '', '', 'migration', create_time, create_time FROM agents"
    )
    op.create_table(
        "revoked_certificates",
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("reason", sa.String(512), nullable=False),
        sa.Column("actor", sa.String(160), nullable=False),
        sa.Column("revoke_time", _UTC, nullable=False),
    )
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("admin", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("admin")
    op.drop_table("revoked_certificates")
    op.drop_table("agent_containment")
