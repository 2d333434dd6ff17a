"""SQL outbox: writing rows inside another feature's transaction, claiming due rows, recording outcomes.

A claim is a compare-and-set (`state = PENDING AND next_attempt_time <= now`), preceded on PostgreSQL by
`SELECT ... FOR UPDATE SKIP LOCKED`, so several sidecars polling the same table each take different rows
and exactly one delivers each; SQLite is one process, where the compare-and-set alone is enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col

from server.domain import pages as pagination
from server.domain.errors import InvalidArgument
from server.domain.notifications.delivery import DeliveryState, Notification, NotificationFilter
from server.services.ports import Page
from server.storage.notifications.tables import NotificationRow
from server.storage.supervisor.repository import utc


def _notification(r: NotificationRow) -> Notification:
    return Notification(
        notification_id=r.notification_id,
        event_id=r.event_id,
        kind=r.kind,
        channel=r.channel,
        agent_id=r.agent_id,
        subject=r.subject,
        document=dict(r.document),
        create_time=utc(r.create_time),
        next_attempt_time=utc(r.next_attempt_time),
        state=DeliveryState(r.state),
        attempts=r.attempts,
        last_error=r.last_error,
        deliver_time=utc(r.deliver_time) if r.deliver_time else None,
        claimed_by=r.claimed_by,
    )


def _values(n: Notification) -> dict[str, Any]:
    return {
        "notification_id": n.notification_id,
        "event_id": n.event_id,
        "kind": n.kind,
        "channel": n.channel,
        "agent_id": n.agent_id[:128],
        "subject": n.subject[:160],
        "document": dict(n.document),
        "state": n.state.value,
        "attempts": n.attempts,
        "create_time": n.create_time,
        "next_attempt_time": n.next_attempt_time,
        "deliver_time": n.deliver_time,
        "last_error": n.last_error,
        "claimed_by": n.claimed_by,
    }


def add_to_outbox(session: OrmSession, items: Sequence[Notification]) -> None:
    """Inside the caller's transaction: one row per (event, channel); a repeat of either adds nothing."""
    if not items:
        return
    rows = [_values(n) for n in items]
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    stmt = insert(NotificationRow.__table__).values(rows)  # type: ignore[attr-defined]
    session.execute(stmt.on_conflict_do_nothing(index_elements=["event_id", "channel"]))


class SqlNotificationRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, items: Sequence[Notification]) -> None:
        with Session(self.engine) as s, s.begin():
            add_to_outbox(s, items)

    def claim(self, now: datetime, until: datetime, worker: str, limit: int) -> list[Notification]:
        """Up to `limit` due rows, now ours until `until` (their next attempt time while we send)."""
        c = NotificationRow
        due = (
            select(col(c.seq))
            .where(col(c.state) == DeliveryState.PENDING.value, col(c.next_attempt_time) <= now)
            .order_by(col(c.next_attempt_time))
            .limit(limit)
        )
        with Session(self.engine) as s, s.begin():
            if s.get_bind().dialect.name == "postgresql":
                due = due.with_for_update(skip_locked=True)
            seqs = list(s.execute(due).scalars())
            if not seqs:
                return []
            s.execute(
                update(c)
                .where(col(c.seq).in_(seqs))
                .where(col(c.state) == DeliveryState.PENDING.value, col(c.next_attempt_time) <= now)
                .values(attempts=col(c.attempts) + 1, next_attempt_time=until, claimed_by=worker)
            )
            rows = s.execute(
                select(c).where(col(c.seq).in_(seqs), col(c.claimed_by) == worker, col(c.next_attempt_time) == until)
            ).scalars()
            return [_notification(r) for r in rows]

    def finish(self, n: Notification, worker: str) -> bool:
        """Record an attempt's outcome, only if the row is still ours (an expired claim lost it)."""
        c = NotificationRow
        with Session(self.engine) as s, s.begin():
            result = s.execute(
                update(c)
                .where(col(c.notification_id) == n.notification_id, col(c.claimed_by) == worker)
                .where(col(c.attempts) == n.attempts, col(c.state) == DeliveryState.PENDING.value)
                .values(
                    state=n.state.value,
                    next_attempt_time=n.next_attempt_time,
                    deliver_time=n.deliver_time,
                    last_error=n.last_error,
                    claimed_by=n.claimed_by,
                )
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def release_claims(self, now: datetime) -> int:
        """Make every claimed PENDING row due now: only for a single-process database at start-up."""
        c = NotificationRow
        with Session(self.engine) as s, s.begin():
            result = s.execute(
                update(c)
                .where(col(c.state) == DeliveryState.PENDING.value, col(c.claimed_by) != "")
                .values(next_attempt_time=now, claimed_by="")
            )
            return int(result.rowcount)  # type: ignore[attr-defined]

    def retry(self, notification_id: str, now: datetime) -> Notification | None:
        """A FAILED row back to PENDING, due now (an admin's "retry")."""
        c = NotificationRow
        with Session(self.engine) as s, s.begin():
            s.execute(
                update(c)
                .where(col(c.notification_id) == notification_id, col(c.state) == DeliveryState.FAILED.value)
                .values(state=DeliveryState.PENDING.value, next_attempt_time=now, claimed_by="")
            )
            row = s.execute(select(c).where(col(c.notification_id) == notification_id)).scalar()
            return _notification(row) if row else None

    def prune(self, before: datetime) -> int:
        c = NotificationRow
        with Session(self.engine) as s, s.begin():
            result = s.execute(
                delete(c).where(col(c.state) != DeliveryState.PENDING.value, col(c.create_time) < before)
            )
            return int(result.rowcount)  # type: ignore[attr-defined]

    def get(self, notification_id: str) -> Notification | None:
        with Session(self.engine) as s:
            row = s.execute(select(NotificationRow).where(col(NotificationRow.notification_id) == notification_id))
            found = row.scalar()
            return _notification(found) if found else None

    def counts(self) -> dict[DeliveryState, int]:
        c = NotificationRow
        with Session(self.engine) as s:
            rows = s.execute(select(col(c.state), func.count()).group_by(col(c.state))).all()
        out = dict.fromkeys(DeliveryState, 0)
        for state, count in rows:
            out[DeliveryState(state)] = int(count)
        return out

    def list(self, flt: NotificationFilter, page_size: int, page_token: str) -> Page[Notification]:
        size = pagination.page_size(page_size)
        before = pagination.decode(page_token)
        if before is not None and (not isinstance(before, int) or isinstance(before, bool)):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        c = NotificationRow
        stmt = select(c).order_by(col(c.seq).desc()).limit(size + 1)
        if before is not None:
            stmt = stmt.where(col(c.seq) < before)
        if flt.state is not None:
            stmt = stmt.where(col(c.state) == flt.state.value)
        if flt.channel:
            stmt = stmt.where(col(c.channel) == flt.channel)
        if flt.kind:
            stmt = stmt.where(col(c.kind) == flt.kind)
        with Session(self.engine) as s:
            rows = list(s.execute(stmt).scalars())
        more = len(rows) > size
        rows = rows[:size]
        last = rows[-1].seq if more and rows else None
        return Page([_notification(r) for r in rows], pagination.encode(last) if last is not None else "")
