"""SQL storage of the fleet's `rate_limit` windows (scope: fleet): one short transaction per slice."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlmodel import Session

from server.storage.fleet.tables import RateWindowRow
from server.storage.rows import lock_row


class SqlRateWindowRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def take(self, key: str, agent_id: str, index: int, want: int, cap: int) -> tuple[int, int]:
        now = datetime.now(UTC)
        with Session(self.engine) as s, s.begin():
            # Created at 0 if missing, then locked: two sidecars' first slices of an agent cannot both see
            # an empty window (a FOR UPDATE of a missing row locks nothing).
            row, _ = lock_row(
                s,
                RateWindowRow,
                (key, agent_id),
                guardrail_key=key,
                agent_id=agent_id,
                window_index=index,
                taken=0,
                update_time=now,
            )
            if row.window_index > index:  # the fleet is in a later window already: this caller's clock lags
                return 0, cap
            if row.window_index < index:
                row.window_index, row.taken = index, 0
            taken = max(0, min(want, cap - row.taken))
            row.taken += taken
            row.update_time = now
            s.add(row)
            return taken, row.taken
