"""SQL storage of remembered answers to mutating RPCs (migration 0012)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.services.idempotency import AlreadyRemembered, Remembered, current_guard
from server.storage.supervisor.tables import IdempotencyRow


class SqlIdempotencyRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, key: str) -> Remembered | None:
        with Session(self.engine) as s:
            row = s.get(IdempotencyRow, key)
            return Remembered(row.request_digest, bytes(row.response)) if row else None

    def put(self, key: str, method: str, caller: str, remembered: Remembered, when: datetime) -> bool:
        try:
            with Session(self.engine) as s, s.begin():
                s.add(
                    IdempotencyRow(
                        key=key,
                        method=method[:160],
                        caller=caller[:160],
                        request_digest=remembered.request_digest,
                        response=remembered.response,
                        create_time=when,
                    )
                )
        except IntegrityError:
            return False
        return True

    def prune(self, older_than: datetime) -> int:
        with Session(self.engine) as s, s.begin():
            result = s.execute(delete(IdempotencyRow).where(col(IdempotencyRow.create_time) < older_than))
            return int(result.rowcount)  # type: ignore[attr-defined]


def remember_in_transaction(conn: Connection, result: Any) -> None:
    """Add the current call's idempotency record (services/idempotency.py `Guard`) to the transaction of
    the change it guards; AlreadyRemembered (the whole transaction rolls back) when an earlier attempt stored it."""
    guard = current_guard()
    if guard is None:
        return
    assert guard.render is not None
    try:
        conn.execute(
            insert(IdempotencyRow.__table__),  # type: ignore[attr-defined]
            {
                "key": guard.key,
                "method": guard.method[:160],
                "caller": guard.caller[:160],
                "request_digest": guard.request_digest,
                "response": guard.render(result),
                "create_time": guard.when,
            },
        )
    except IntegrityError:
        raise AlreadyRemembered(guard.key) from None
    guard.written = True
