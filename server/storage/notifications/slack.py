"""SQL storage of the Slack messages posted for approvals (table `slack_messages`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from server.storage.notifications.tables import SlackMessageRow


class SqlSlackMessages:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, approval_id: str, channel: str, slack_channel: str, ts: str, now: datetime) -> None:
        insert = pg_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
        row = {
            "approval_id": approval_id[:64],
            "channel": channel[:64],
            "slack_channel": slack_channel[:64],
            "ts": ts[:32],
            "create_time": now,
        }
        stmt = insert(SlackMessageRow.__table__).values([row])  # type: ignore[attr-defined]
        with Session(self.engine) as s, s.begin():
            s.execute(stmt.on_conflict_do_nothing(index_elements=["slack_channel", "ts"]))

    def find(self, approval_id: str, channel: str) -> list[tuple[str, str]]:
        c = SlackMessageRow
        query = (
            select(col(c.slack_channel), col(c.ts))
            .where(col(c.approval_id) == approval_id, col(c.channel) == channel)
            .order_by(col(c.seq))
        )
        with Session(self.engine) as s:
            return [(str(a), str(b)) for a, b in s.execute(query).all()]

    def prune(self, before: datetime) -> int:
        c = SlackMessageRow
        with Session(self.engine) as s, s.begin():
            return int(s.execute(delete(c).where(col(c.create_time) < before)).rowcount)  # type: ignore[attr-defined]
