"""An index of the ended token reservations by end time: the budgets' expiry job deletes the ended reservations past
their retention every minute, and scanned the whole table to find them (it holds a reservation per Consume and
Reserve for `keep_ended`, so the scan grew with the traffic, inside a write transaction; issue 31's soak).

Revision ID: 0141
Revises: 0041
"""

from __future__ import annotations

from alembic import op

revision = "0141"
down_revision = "0041"  # the budgets branch (0005 made the table)
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_safeguard_reservations_ended", "safeguard_reservations", ["end_time"])


def downgrade() -> None:
    op.drop_index("ix_safeguard_reservations_ended", table_name="safeguard_reservations")
