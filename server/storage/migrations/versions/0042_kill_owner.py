"""Kills in a fleet: at most one running kill per agent (a partial unique index, SQLite and PostgreSQL),
and the sidecar that owns each running kill (only a kill whose owner is gone is resumed elsewhere).

Revision ID: 0042
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0042"
down_revision = "0004"
branch_labels = None
depends_on = None

_RUNNING = sa.text("complete_time IS NULL")


def upgrade() -> None:
    with op.batch_alter_table("recovery_kills") as batch:
        batch.add_column(sa.Column("owner_sidecar", sa.String(32), nullable=False, server_default=""))
    # Duplicates the old per-sidecar check let through: the oldest running kill of an agent stays running
    # (it is resumed and completed as before); the later ones are closed so the index can hold.
    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT seq, agent_id FROM recovery_kills WHERE complete_time IS NULL ORDER BY agent_id, seq")
    ).fetchall()
    seen: set[str] = set()
    for seq, agent_id in rows:
        if agent_id in seen:
            conn.execute(sa.text("UPDATE recovery_kills SET complete_time = kill_time WHERE seq = :s"), {"s": seq})
        seen.add(agent_id)
    op.create_index(
        "uq_recovery_kills_running",
        "recovery_kills",
        ["agent_id"],
        unique=True,
        sqlite_where=_RUNNING,
        postgresql_where=_RUNNING,
    )


def downgrade() -> None:
    op.drop_index("uq_recovery_kills_running", table_name="recovery_kills")
    with op.batch_alter_table("recovery_kills") as batch:
        batch.drop_column("owner_sidecar")
