"""An approval grants one action: `attempt` numbers the requests `on_reuse: ask_again` opens after a used one,
and a unique index makes concurrent identical requests (agent, request id, digest) one request.

Revision ID: 0011
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0003"
branch_labels = None
depends_on = None

_WHERE = sa.text("request_id != ''")


def upgrade() -> None:
    with op.batch_alter_table("approvals") as batch:
        batch.add_column(sa.Column("attempt", sa.Integer, nullable=False, server_default="0"))
    # Duplicates the old check-then-insert let through become attempts 1, 2, ... of their first request.
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT approval_id, agent_id, request_id, digest FROM approvals WHERE request_id != '' "
            "ORDER BY agent_id, request_id, digest, create_time, approval_id"
        )
    ).fetchall()
    seen: dict[tuple[str, str, str], int] = {}
    for approval_id, agent_id, request_id, digest in rows:
        key = (agent_id, request_id, digest)
        attempt = seen.get(key, -1) + 1
        seen[key] = attempt
        if attempt:
            conn.execute(
                sa.text("UPDATE approvals SET attempt = :a WHERE approval_id = :i"), {"a": attempt, "i": approval_id}
            )
    op.drop_index("ix_approvals_attach", table_name="approvals")
    op.create_index(
        "uq_approvals_attach",
        "approvals",
        ["agent_id", "request_id", "digest", "attempt"],
        unique=True,
        sqlite_where=_WHERE,
        postgresql_where=_WHERE,
    )


def downgrade() -> None:
    op.drop_index("uq_approvals_attach", table_name="approvals")
    op.create_index("ix_approvals_attach", "approvals", ["agent_id", "request_id", "digest"])
    with op.batch_alter_table("approvals") as batch:
        batch.drop_column("attempt")
