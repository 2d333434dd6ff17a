"""The `fleet_attachments` table: which sidecar holds each agent's control channel.

A sidecar counts as present when it has not stopped, its heartbeat is newer than `gone_before` and, on
PostgreSQL, its change listener's session is open (`pg_stat_activity`, by application name): a sidecar
that was SIGKILLed loses that session at once, so routing to it fails promptly instead of after the
heartbeat lapse. A listener reconnecting (for at most a few seconds) makes its sidecar briefly absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, String, and_, bindparam, column, delete, exists, literal, select, table, update
from sqlalchemy.dialects import postgresql
from sqlmodel import Session, col

from server.domain.fleet.attachments import Attachment
from server.storage.fleet.changes import listener_name
from server.storage.fleet.tables import AttachmentRow, SidecarRow
from server.storage.supervisor.repository import utc

_ACTIVITY = table("pg_stat_activity", column("application_name", String), schema="pg_catalog")


def _attachment(r: AttachmentRow) -> Attachment:
    return Attachment(r.agent_id, r.attachment_id, r.sidecar_id, utc(r.connect_time), utc(r.last_seen_time))


def present_clause(engine: Engine, sidecar_id: Any, gone_before: datetime) -> Any:
    """SQL truth of "sidecar `sidecar_id` (a column or a value) is present" (see the module docstring)."""
    sc = SidecarRow
    fresh = exists().where(
        col(sc.sidecar_id) == sidecar_id, col(sc.stop_time).is_(None), col(sc.heartbeat_time) >= gone_before
    )
    if engine.dialect.name != "postgresql":
        return fresh
    listening = exists().where(_ACTIVITY.c.application_name == literal(listener_name(""), String) + sidecar_id)
    return and_(fresh, listening)


class SqlAttachmentRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def attach(self, a: Attachment) -> None:
        """Record (or take over) the agent's attachment: the newest Attach stream wins."""
        values: dict[str, Any] = {
            "agent_id": a.agent_id,
            "attachment_id": a.attachment_id,
            "sidecar_id": a.sidecar_id,
            "connect_time": a.connect_time,
            "last_seen_time": a.last_seen_time,
        }
        with Session(self.engine) as s, s.begin():
            if self.engine.dialect.name == "postgresql":
                stmt = postgresql.insert(AttachmentRow).values(**values)
                s.execute(stmt.on_conflict_do_update(index_elements=["agent_id"], set_=values))
            else:
                s.execute(delete(AttachmentRow).where(col(AttachmentRow.agent_id) == a.agent_id))
                s.add(AttachmentRow(**values))

    def detach(self, agent_id: str, attachment_id: str) -> bool:
        """Forget the attachment if it is still this stream's (a newer stream elsewhere stays)."""
        r = AttachmentRow
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(r).where(col(r.agent_id) == agent_id, col(r.attachment_id) == attachment_id))
            return bool(res.rowcount)  # type: ignore[attr-defined]

    def seen(self, sidecar_id: str, last_seen: Mapping[str, datetime]) -> None:
        """Stamp the last sign of life of the agents attached to `sidecar_id` (one statement per batch)."""
        if not last_seen:
            return
        r = AttachmentRow
        stmt = (
            update(r)
            .where(col(r.agent_id) == bindparam("a"), col(r.sidecar_id) == sidecar_id)
            .values(last_seen_time=bindparam("t"))
            .execution_options(synchronize_session=False)
        )
        with self.engine.begin() as conn:
            conn.execute(stmt, [{"a": agent_id, "t": t} for agent_id, t in last_seen.items()])

    def reassert(self, held: Sequence[Attachment]) -> list[str]:
        """Each held stream's row stamped, or written again where it is missing (a sidecar that was paused
        past the timeout finds its rows released by the others); a row that names another stream (the
        agent attached again elsewhere since) is left alone and its agent returned."""
        if not held:
            return []
        r = AttachmentRow
        rows: list[dict[str, Any]] = [
            {
                "agent_id": a.agent_id,
                "attachment_id": a.attachment_id,
                "sidecar_id": a.sidecar_id,
                "connect_time": a.connect_time,
                "last_seen_time": a.last_seen_time,
            }
            for a in held
        ]
        with Session(self.engine) as s, s.begin():
            if self.engine.dialect.name == "postgresql":
                stmt = postgresql.insert(r)
                s.execute(
                    stmt.on_conflict_do_update(
                        index_elements=["agent_id"],
                        set_={"last_seen_time": stmt.excluded.last_seen_time, "sidecar_id": stmt.excluded.sidecar_id},
                        where=col(r.attachment_id) == stmt.excluded.attachment_id,
                    ),
                    rows,
                )
            else:
                present = {
                    row.agent_id: row.attachment_id
                    for row in s.execute(select(r).where(col(r.agent_id).in_([a.agent_id for a in held]))).scalars()
                }
                for values in rows:
                    if values["agent_id"] not in present:
                        s.add(AttachmentRow(**values))
                    elif present[values["agent_id"]] == values["attachment_id"]:
                        s.execute(
                            update(r)
                            .where(col(r.agent_id) == values["agent_id"])
                            .values(last_seen_time=values["last_seen_time"])
                        )
            ids = {a.agent_id: a.attachment_id for a in held}
            now = s.execute(select(col(r.agent_id), col(r.attachment_id)).where(col(r.agent_id).in_(list(ids))))
            return sorted(agent for agent, attachment in now if attachment != ids[agent])

    def owner(self, agent_id: str, gone_before: datetime) -> tuple[Attachment, bool] | None:
        """The agent's attachment and whether its sidecar is present; None when it is not attached."""
        r = AttachmentRow
        with Session(self.engine) as s:
            row = s.execute(
                select(r, present_clause(self.engine, col(r.sidecar_id), gone_before).label("present")).where(
                    col(r.agent_id) == agent_id
                )
            ).first()
        if row is None:
            return None
        return _attachment(row[0]), bool(row[1])

    def present(self, sidecar_id: str, gone_before: datetime) -> bool:
        with Session(self.engine) as s:
            return bool(s.execute(select(present_clause(self.engine, sidecar_id, gone_before))).scalar())

    def release_gone(self, gone_before: datetime, keep: str = "") -> int:
        """Forget the attachments of sidecars that stopped or fell silent (their streams died with them);
        never those of `keep` (the caller itself, which holds its streams)."""
        r, sc = AttachmentRow, SidecarRow
        alive = select(col(sc.sidecar_id)).where(col(sc.stop_time).is_(None), col(sc.heartbeat_time) >= gone_before)
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(r).where(col(r.sidecar_id).not_in(alive), col(r.sidecar_id) != keep))
            return int(res.rowcount)  # type: ignore[attr-defined]

    def release_sidecar(self, sidecar_id: str) -> int:
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(AttachmentRow).where(col(AttachmentRow.sidecar_id) == sidecar_id))
            return int(res.rowcount)  # type: ignore[attr-defined]

    def all(self) -> Sequence[Attachment]:
        with Session(self.engine) as s:
            rows = s.execute(select(AttachmentRow).order_by(col(AttachmentRow.agent_id))).scalars()
            return [_attachment(r) for r in rows]
