"""The `fleet_commands` table: control commands routed to the sidecar holding the agent's channel.

Every state change bumps the `commands` topic in its transaction, keyed `to:<holder> <command id>` (a
command for the holder to claim) or `re:<issuer> <command id>` (an outcome for the issuer): the NOTIFY
wakes the one sidecar concerned, and the change counter lets a listener that missed one resynchronise.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, delete, select, update
from sqlmodel import Session, col

from server.domain.fleet.commands import RoutedCommand, RoutedState
from server.services.fleet.ports import COMMANDS_TOPIC
from server.storage.fleet.attachments import present_clause
from server.storage.fleet.changes import ChangeLog
from server.storage.fleet.tables import RoutedCommandRow
from server.storage.supervisor.repository import utc


def _command(r: RoutedCommandRow) -> RoutedCommand:
    return RoutedCommand(
        r.command_id,
        r.agent_id,
        r.kind,
        r.reason,
        r.payload,
        r.issuer_sidecar,
        r.target_sidecar,
        utc(r.issue_time),
        utc(r.expire_time),
        RoutedState(r.state),
        r.delivery,
        r.outcome,
        r.detail,
        utc(r.settle_time) if r.settle_time else None,
    )


class SqlCommandRepository:
    def __init__(self, engine: Engine, changes: ChangeLog) -> None:
        self.engine = engine
        self.changes = changes

    def _bump(self, s: Session, key: str) -> None:
        self.changes.bump(s.connection(), COMMANDS_TOPIC, key)

    def insert(self, c: RoutedCommand) -> None:
        with Session(self.engine) as s, s.begin():
            s.add(
                RoutedCommandRow(
                    command_id=c.command_id,
                    agent_id=c.agent_id,
                    kind=c.kind,
                    reason=c.reason[:1024],
                    payload=c.payload,
                    issuer_sidecar=c.issuer,
                    target_sidecar=c.target,
                    issue_time=c.issue_time,
                    expire_time=c.expire_time,
                    state=RoutedState.PENDING.value,
                )
            )
            self._bump(s, f"to:{c.target} {c.command_id}")

    def claim(self, target: str, now: datetime) -> list[RoutedCommand]:
        """The pending commands addressed to `target`, now DELIVERED: row locks taken with SKIP LOCKED, so a
        command is claimed (and sent to its agent) once even if two claims of this sidecar overlap."""
        r = RoutedCommandRow
        stmt = (
            select(r)
            .where(col(r.target_sidecar) == target, col(r.state) == RoutedState.PENDING.value)
            .order_by(col(r.seq))
            .with_for_update(skip_locked=True)
        )
        with Session(self.engine) as s, s.begin():
            rows = list(s.execute(stmt).scalars())
            for row in rows:
                row.state, row.claim_time = RoutedState.DELIVERED.value, now
                s.add(row)
            return [_command(row) for row in rows]

    def settle(self, command_id: str, delivery: str, outcome: int, detail: str, now: datetime) -> RoutedCommand:
        """Record the outcome unless one is recorded already; returns the recorded one (the first wins)."""
        r = RoutedCommandRow
        with Session(self.engine) as s, s.begin():
            res = s.execute(
                update(r)
                .where(col(r.command_id) == command_id, col(r.settle_time).is_(None))
                .values(
                    state=RoutedState.SETTLED.value,
                    delivery=delivery,
                    outcome=outcome,
                    detail=detail[:1024],
                    settle_time=now,
                )
                .execution_options(synchronize_session=False)
            )
            row = s.execute(select(r).where(col(r.command_id) == command_id)).scalar_one()
            if res.rowcount:  # type: ignore[attr-defined]
                self._bump(s, f"re:{row.issuer_sidecar} {command_id}")
            return _command(row)

    def reroute(self, command_id: str, target: str) -> bool:
        """Address a command nobody claimed yet to another sidecar (the agent attached there meanwhile)."""
        r = RoutedCommandRow
        with Session(self.engine) as s, s.begin():
            res = s.execute(
                update(r)
                .where(col(r.command_id) == command_id, col(r.state) == RoutedState.PENDING.value)
                .values(target_sidecar=target)
                .execution_options(synchronize_session=False)
            )
            if not res.rowcount:  # type: ignore[attr-defined]
                return False
            self._bump(s, f"to:{target} {command_id}")
            return True

    def look(self, command_id: str, gone_before: datetime) -> tuple[RoutedCommand, bool] | None:
        """The command and whether the sidecar it is addressed to is present."""
        r = RoutedCommandRow
        with Session(self.engine) as s:
            row = s.execute(
                select(r, present_clause(self.engine, col(r.target_sidecar), gone_before)).where(
                    col(r.command_id) == command_id
                )
            ).first()
        return None if row is None else (_command(row[0]), bool(row[1]))

    def prune(self, settled_before: datetime) -> int:
        r = RoutedCommandRow
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(r).where(col(r.settle_time).is_not(None), col(r.settle_time) < settled_before))
            return int(res.rowcount)  # type: ignore[attr-defined]
