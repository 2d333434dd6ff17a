"""The pinned tools in SQL: one row per (upstream, tool), written first-come (INSERT ... ON CONFLICT DO
NOTHING), so every gateway on one database compares against the same pin.

A listing that differs is recorded as pending with a compare-and-set (only when it is not already the
recorded one), and the outbox rows that tell operators are written in that same transaction: one
notification per change across the fleet, however many gateways see it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, and_, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col

from server.domain.notifications.delivery import Notification
from server.storage.gateway.tables import ToolPinRow
from server.storage.notifications.repository import add_to_outbox
from server.storage.supervisor.repository import utc


@dataclass(frozen=True, slots=True)
class Listed:
    tool: str
    description: str
    schema_digest: str


@dataclass(frozen=True, slots=True)
class ToolPin:
    upstream: str
    tool: str
    description: str
    schema_digest: str
    pin_time: datetime
    pending_description: str | None = None
    pending_digest: str | None = None
    change_time: datetime | None = None
    accept_time: datetime | None = None
    accepted_by: str = ""

    @property
    def changed(self) -> bool:
        return self.pending_digest is not None


# (upstream, the newly recorded changes) -> outbox rows to write with them
Announce = Callable[[str, Sequence[ToolPin]], Sequence[Notification]]


class SqlToolPins:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def compare(self, upstream: str, listed: Sequence[Listed], now: datetime, announce: Announce) -> set[str]:
        """Pin what is new, compare the rest: the tools whose listing differs from their pin."""
        if not listed:
            return set()
        with Session(self.engine) as s, s.begin():
            insert = pg_insert if s.get_bind().dialect.name == "postgresql" else sqlite_insert
            values = [
                {"upstream": upstream, "tool": t.tool, "description": t.description, "schema_digest": t.schema_digest}
                | {"pin_time": now, "accepted_by": ""}
                for t in listed
            ]
            s.execute(insert(ToolPinRow.__table__).values(values).on_conflict_do_nothing())  # type: ignore[attr-defined]
            names = [t.tool for t in listed]
            rows = {
                r.tool: r
                for r in s.execute(
                    select(ToolPinRow).where(col(ToolPinRow.upstream) == upstream, col(ToolPinRow.tool).in_(names))
                ).scalars()
            }
            changed: set[str] = set()
            recorded: list[ToolPin] = []
            for t in listed:
                row = rows[t.tool]
                same = row.description == t.description and row.schema_digest == t.schema_digest
                where = and_(col(ToolPinRow.upstream) == upstream, col(ToolPinRow.tool) == t.tool)
                if same:
                    if row.pending_digest is not None:  # back to what was pinned: nothing is waiting any more
                        s.execute(update(ToolPinRow).where(where).values(pending_description=None, pending_digest=None))
                    continue
                changed.add(t.tool)
                news = or_(
                    col(ToolPinRow.pending_digest).is_(None),
                    col(ToolPinRow.pending_digest) != t.schema_digest,
                    col(ToolPinRow.pending_description) != t.description,
                )
                done = s.execute(
                    update(ToolPinRow)
                    .where(where, news)
                    .values(pending_description=t.description, pending_digest=t.schema_digest, change_time=now)
                )
                if done.rowcount:  # type: ignore[attr-defined]
                    recorded.append(
                        _pin(row, pending_description=t.description, pending_digest=t.schema_digest, change_time=now)
                    )
            if recorded:
                add_to_outbox(s, announce(upstream, recorded))
            return changed

    def pending(self, upstream: str, tool: str) -> bool:
        with Session(self.engine) as s:
            digest = s.execute(
                select(col(ToolPinRow.pending_digest)).where(
                    col(ToolPinRow.upstream) == upstream, col(ToolPinRow.tool) == tool
                )
            ).scalar()
            return digest is not None

    def pins(self, upstream: str = "", changed_only: bool = False) -> list[ToolPin]:
        query = select(ToolPinRow).order_by(col(ToolPinRow.upstream), col(ToolPinRow.tool))
        if upstream:
            query = query.where(col(ToolPinRow.upstream) == upstream)
        if changed_only:
            query = query.where(col(ToolPinRow.pending_digest).is_not(None))
        with Session(self.engine) as s:
            return [_pin(r) for r in s.execute(query).scalars()]

    def accept(self, upstream: str, tool: str, actor: str, now: datetime) -> list[ToolPin]:
        """Make the pending listing the pin: of one tool, or of every changed tool of `upstream` (tool "").
        Compare-and-set on the pending digest, so a newer change recorded meanwhile is not accepted unseen."""
        accepted: list[ToolPin] = []
        for pin in self.pins(upstream, changed_only=True):
            if tool and pin.tool != tool:
                continue
            with Session(self.engine) as s, s.begin():
                done = s.execute(
                    update(ToolPinRow)
                    .where(
                        col(ToolPinRow.upstream) == pin.upstream,
                        col(ToolPinRow.tool) == pin.tool,
                        col(ToolPinRow.pending_digest) == pin.pending_digest,
                        col(ToolPinRow.pending_description) == pin.pending_description,
                    )
                    .values(
                        description=pin.pending_description,
                        schema_digest=pin.pending_digest,
                        pin_time=now,
                        pending_description=None,
                        pending_digest=None,
                        accept_time=now,
                        accepted_by=actor[:160],
                    )
                )
                if done.rowcount:  # type: ignore[attr-defined]
                    accepted.append(pin)
        return accepted


def _pin(row: ToolPinRow, **changes: object) -> ToolPin:
    values = {
        "upstream": row.upstream,
        "tool": row.tool,
        "description": row.description,
        "schema_digest": row.schema_digest,
        "pin_time": utc(row.pin_time),
        "pending_description": row.pending_description,
        "pending_digest": row.pending_digest,
        "change_time": utc(row.change_time) if row.change_time else None,
        "accept_time": utc(row.accept_time) if row.accept_time else None,
        "accepted_by": row.accepted_by,
    } | changes
    return ToolPin(**values)  # type: ignore[arg-type]
