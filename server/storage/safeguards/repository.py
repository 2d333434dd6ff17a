"""SQL storage of the safeguards: snapshots written through by the services, read back at start-up
(token budgets live in the database itself: server/storage/safeguards/budgets.py).

Each `save_*` applies one group of journal changes (server/services/safeguards/journal.py) in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, select
from sqlmodel import Session, col

from server.domain.safeguards.episodes import Episode
from server.storage.idempotency import remember_group_in_transaction
from server.storage.safeguards.tables import (
    EpisodeRow,
)
from server.storage.supervisor.repository import utc

Change = tuple[str, str, Any]


def _utc_or_none(value: datetime | None) -> datetime | None:
    return utc(value) if value is not None else None


class SqlSafeguardRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ---- episodes --------------------------------------------------------------------------

    def load_episodes(self, limit: int) -> list[Episode]:
        with Session(self.engine) as s, s.begin():
            rows = list(
                s.execute(select(EpisodeRow).order_by(col(EpisodeRow.episode_id).desc()).limit(limit)).scalars()
            )
            if rows:  # a smaller max_episodes than before: the oldest go
                s.execute(delete(EpisodeRow).where(col(EpisodeRow.episode_id) < rows[-1].episode_id))
            return [
                Episode(
                    r.episode_id,
                    r.task_id,
                    r.agent_id,
                    r.task_type,
                    r.outcome,
                    dict(r.episode_metadata),
                    utc(r.episode_time),
                )
                for r in reversed(rows)
            ]

    def save_episodes(self, changes: Sequence[Change]) -> None:
        records = [r for kind, _key, r in changes if kind == "remembered" and r is not None]
        changes = [c for c in changes if c[0] != "remembered"]
        gone = [int(key) for _kind, key, e in changes if e is None]
        with Session(self.engine) as s, s.begin():
            remember_group_in_transaction(s.connection(), records)
            if gone:
                s.execute(delete(EpisodeRow).where(col(EpisodeRow.episode_id).in_(gone)))
            for _kind, _key, e in changes:
                if e is not None:
                    s.merge(
                        EpisodeRow(
                            episode_id=e.episode_id,
                            task_id=e.task_id,
                            agent_id=e.agent_id,
                            task_type=e.task_type,
                            outcome=e.outcome,
                            episode_metadata=dict(e.metadata),
                            episode_time=e.episode_time,
                        )
                    )
