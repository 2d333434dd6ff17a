"""The `sidecars` table: who shares this database, and their heartbeats."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Engine, delete, select, update
from sqlmodel import Session, col

from server.domain.fleet.sidecars import Sidecar
from server.storage.fleet.tables import SidecarRow
from server.storage.supervisor.repository import utc


class SqlSidecarRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def register(self, sidecar: Sidecar) -> None:
        with Session(self.engine) as s, s.begin():
            s.add(
                SidecarRow(
                    sidecar_id=sidecar.sidecar_id,
                    host=sidecar.host,
                    pid=sidecar.pid,
                    version=sidecar.version,
                    listen=sidecar.listen,
                    start_time=sidecar.start_time,
                    heartbeat_time=sidecar.heartbeat_time,
                )
            )

    def heartbeat(self, sidecar_id: str, now: datetime) -> datetime | None:
        """Stamp the heartbeat; returns the one it replaced (the row locked meanwhile), None when the row is
        gone (forgotten by `prune`)."""
        r = SidecarRow
        with Session(self.engine) as s, s.begin():
            before = s.execute(
                select(col(r.heartbeat_time)).where(col(r.sidecar_id) == sidecar_id).with_for_update()
            ).scalar()
            if before is None:
                return None
            s.execute(update(r).where(col(r.sidecar_id) == sidecar_id).values(heartbeat_time=now))
            return utc(before)

    def stopped(self, sidecar_id: str, now: datetime) -> None:
        with Session(self.engine) as s, s.begin():
            s.execute(
                update(SidecarRow)
                .where(col(SidecarRow.sidecar_id) == sidecar_id)
                .values(stop_time=now, heartbeat_time=now)
            )

    def all(self) -> Sequence[Sidecar]:
        with Session(self.engine) as s:
            rows = list(s.execute(select(SidecarRow).order_by(col(SidecarRow.start_time))).scalars())
        return [
            Sidecar(
                r.sidecar_id,
                r.host,
                r.pid,
                r.version,
                r.listen,
                utc(r.start_time),
                utc(r.heartbeat_time),
                utc(r.stop_time) if r.stop_time else None,
            )
            for r in rows
        ]

    def prune(self, stopped_before: datetime) -> int:
        """Forget sidecars that stopped, or fell silent, before `stopped_before`."""
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(SidecarRow).where(col(SidecarRow.heartbeat_time) < stopped_before))
            return int(res.rowcount)  # type: ignore[attr-defined]
