"""Indexes of ended token reservations and ended leases by end time: the budgets' expiry job and the leases' prune
delete the ended rows past their retention, and scanned the whole table to find them (a reservation per Consume and
Reserve, a lease per grant, each kept for a while after it ends, so the scan grew with the traffic, inside a write
transaction; issue 31's soak). Joins the budgets and leases branches.

Revision ID: 0141
Revises: 0041, 0071
"""

from __future__ import annotations

from alembic import op

revision = "0141"
down_revision = ("0041", "0071")  # the budgets branch (0005 made the table) and the leases branch (0070)
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_safeguard_reservations_ended", "safeguard_reservations", ["end_time"])
    op.create_index("ix_safeguard_leases_ended", "safeguard_leases", ["end_time"])


def downgrade() -> None:
    op.drop_index("ix_safeguard_leases_ended", table_name="safeguard_leases")
    op.drop_index("ix_safeguard_reservations_ended", table_name="safeguard_reservations")
