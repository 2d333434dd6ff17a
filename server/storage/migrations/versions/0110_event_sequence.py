"""One fleet-wide event stream: the `recovery_events` change counter becomes the event sequence.

From now on an event's sequence is taken from the counter row (locked until the appending transaction
commits, see SqlRecoveryEventRepository), so the counter starts at the newest stored sequence.

Revision ID: 0110
Revises: 0042
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0110"
down_revision = "0042"
branch_labels = None
depends_on = ("0040",)  # fleet_changes


def upgrade() -> None:
    conn = op.get_bind()
    newest = conn.execute(sa.text("SELECT COALESCE(MAX(seq), 0) FROM recovery_events")).scalar_one()
    current = conn.execute(sa.text("SELECT version FROM fleet_changes WHERE topic = 'recovery_events'")).scalar()
    if current is None:
        conn.execute(
            sa.text("INSERT INTO fleet_changes (topic, version) VALUES ('recovery_events', :v)"), {"v": int(newest)}
        )
    elif int(current) < int(newest):
        conn.execute(
            sa.text("UPDATE fleet_changes SET version = :v WHERE topic = 'recovery_events'"), {"v": int(newest)}
        )


def downgrade() -> None:
    op.get_bind().execute(sa.text("DELETE FROM fleet_changes WHERE topic = 'recovery_events'"))
