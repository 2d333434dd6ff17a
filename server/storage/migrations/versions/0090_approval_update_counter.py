"""The `approvals.updates` change counter: moved by every change to an existing approval request (decisions,
votes, cancels, expiries), not by new requests, so a waiting call's poll stays quiet during a burst of new
requests. Created here so concurrent first updates in a fleet never race to insert it.

Revision ID: 0090
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0090"
down_revision = "0011"
branch_labels = None
depends_on = None

_NAME = "approvals.updates"


def upgrade() -> None:
    conn = op.get_bind()
    if conn.execute(sa.text("SELECT 1 FROM counters WHERE name = :n"), {"n": _NAME}).first() is None:
        conn.execute(sa.text("INSERT INTO counters (name, value) VALUES (:n, 0)"), {"n": _NAME})


def downgrade() -> None:
    op.get_bind().execute(sa.text("DELETE FROM counters WHERE name = :n"), {"n": _NAME})
