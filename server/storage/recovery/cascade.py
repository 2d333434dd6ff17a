"""The `recovery_cascade_failures` table: the cascade detector's window, one for the whole fleet.

A record is one transaction, serialised fleet-wide (a transaction-level advisory lock on PostgreSQL; the
write lock on SQLite, where one sidecar runs): forget what left the window, insert the failure, read the
failures still in it, and when `threshold` related ones are there mark them with the cascade's id. So three
related failures reported to three sidecars form one cascade, detected by the sidecar whose record
completed it, and no failure counts in two cascades. Times are the sidecars' clocks (keep them on NTP).
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, func, select, text, update
from sqlmodel import Session, col

from server.domain.recovery.cascade import MAX_WINDOW_EVENTS, AgentFailure, related
from server.storage.idempotency import remember_in_transaction
from server.storage.recovery.tables import CascadeFailureRow
from server.storage.supervisor.repository import utc

_CASCADE_LOCK = 7_140_133  # the advisory lock key (the audit chain and the migrations use 7_140_131/2)


def _failure(r: CascadeFailureRow) -> AgentFailure:
    return AgentFailure(r.from_agent, r.to_agent, r.detail, r.source, utc(r.failure_time), r.reporter)


class SqlCascadeWindow:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()  # this process's records one at a time (SQLite's reads see the last)

    def record(
        self, failure: AgentFailure, window: float, threshold: int, cascade_id: str
    ) -> tuple[AgentFailure, ...] | None:
        r = CascadeFailureRow
        horizon = failure.failure_time - timedelta(seconds=window)
        with self._lock, Session(self.engine) as s, s.begin():
            if self.engine.dialect.name == "postgresql":
                s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _CASCADE_LOCK})
            s.execute(delete(r).where(col(r.failure_time) <= horizon))
            s.add(
                CascadeFailureRow(
                    from_agent=failure.from_agent,
                    to_agent=failure.to_agent,
                    detail=failure.detail,
                    source=failure.source,
                    reporter=failure.reporter,
                    failure_time=failure.failure_time,
                )
            )
            s.flush()
            rows = list(
                s.execute(
                    select(r)
                    .where(col(r.cascade_id).is_(None), col(r.failure_time) > horizon)
                    .order_by(col(r.seq).desc())
                    .limit(MAX_WINDOW_EVENTS)
                ).scalars()
            )
            rows.reverse()
            failures = [_failure(row) for row in rows]
            members = related(failures[-1], failures)
            if len(members) < threshold:
                # ReportFailure: a retry of a report whose answer was lost adds no second failure. (A report
                # that completes a cascade is remembered after its actions ran, as before.)
                remember_in_transaction(s.connection(), failure, "ReportFailure")
                return None
            chosen = {id(f) for f in members}
            seqs = [row.seq for row, f in zip(rows, failures, strict=True) if id(f) in chosen]
            s.execute(
                update(r)
                .where(col(r.seq).in_(seqs))
                .values(cascade_id=cascade_id)
                .execution_options(synchronize_session=False)
            )
            return members

    def size(self, window: float, now: datetime) -> int:
        r = CascadeFailureRow
        horizon = now - timedelta(seconds=window)
        with Session(self.engine) as s:
            stmt = select(func.count()).where(col(r.cascade_id).is_(None), col(r.failure_time) > horizon)
            return int(s.execute(stmt).scalar_one())
