"""SQL storage of remembered answers to mutating RPCs (migration 0012)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.services.idempotency import AlreadyRemembered, Record, Remembered, current_guard
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


def remember_in_transaction(conn: Connection, result: Any, *methods: str) -> None:
    """Add the current call's idempotency record (services/idempotency.py `Guard`) to the transaction of
    the change it guards; AlreadyRemembered (the whole transaction rolls back) when an earlier attempt stored it.

    `methods` (RPC names, e.g. "ForceOpen"): only a call of one of them records here. A write that another
    call causes on the way (a forced-open breaker reporting a cascade failure, in the caller's context) then
    never takes that call's record. (`written` is not consulted: an attempt whose COMMIT failed is run
    again by the storage wait, and must write the record again.)"""
    guard = current_guard()
    if guard is None:
        return
    if methods and guard.method.rsplit("/", 1)[-1] not in methods:
        return
    try:
        conn.execute(insert(IdempotencyRow.__table__), _row(guard.record(result)))  # type: ignore[attr-defined]
    except IntegrityError:
        raise AlreadyRemembered(guard.key) from None
    guard.written = True


def remember_group_in_transaction(conn: Connection, records: Sequence[Record]) -> None:
    """The idempotency records of the calls a group commit (services/safeguards/journal.py) writes, in its
    transaction. A key already stored is left as it is: the interceptor looked it up before the call, so
    only two attempts of one request racing on two sidecars meet here, and the first answer stands."""
    if not records:
        return
    insert_ = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    conn.execute(
        insert_(IdempotencyRow.__table__).on_conflict_do_nothing(index_elements=["key"]),  # type: ignore[attr-defined]
        [_row(r) for r in records],
    )


def _row(r: Record) -> dict[str, Any]:
    return {
        "key": r.key,
        "method": r.method[:160],
        "caller": r.caller[:160],
        "request_digest": r.request_digest,
        "response": r.response,
        "create_time": r.when,
    }
