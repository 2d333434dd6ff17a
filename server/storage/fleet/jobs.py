"""`fleet_jobs`: claims of periodic work and leases of elected roles, one conditional UPDATE each.

Under PostgreSQL's READ COMMITTED a concurrent UPDATE of the same row waits for the first one's commit
and then re-checks its WHERE clause against the new row, so of any number of sidecars claiming the same
period exactly one gets the row (the others find `due_time` already moved on). SQLite has one writer.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from server.domain.fleet.jobs import JobClaim
from server.storage.fleet.tables import FleetJobRow
from server.storage.supervisor.repository import utc

_NEVER = datetime(1970, 1, 1, tzinfo=UTC)


class SqlJobClaims:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
        self._known: set[str] = set()

    def _ensure(self, s: Session, job_id: str) -> None:
        if job_id in self._known:
            return
        stmt = self._insert(FleetJobRow).values(job_id=job_id, owner="", due_time=_NEVER).on_conflict_do_nothing()
        s.execute(stmt)
        self._known.add(job_id)

    def claim(self, job_id: str, owner: str, now: datetime, until: datetime, *, keep: bool = False) -> bool:
        c = FleetJobRow
        due = col(c.due_time) <= now
        with Session(self.engine) as s, s.begin():
            self._ensure(s, job_id)
            stmt = (
                update(c)
                .where(col(c.job_id) == job_id, or_(due, col(c.owner) == owner) if keep else due)
                .values(owner=owner, due_time=until, run_time=now)
            )
            return bool(s.execute(stmt).rowcount)  # type: ignore[attr-defined]

    def release(self, job_id: str, owner: str) -> None:
        c = FleetJobRow
        with Session(self.engine) as s, s.begin():
            s.execute(update(c).where(col(c.job_id) == job_id, col(c.owner) == owner).values(due_time=_NEVER))

    def all(self) -> list[JobClaim]:
        with Session(self.engine) as s:
            rows = s.exec(select(FleetJobRow).order_by(col(FleetJobRow.job_id))).all()
            return [JobClaim(r.job_id, r.owner, utc(r.due_time), utc(r.run_time) if r.run_time else None) for r in rows]
