"""Race-free row primitives the repositories share: a counter bump in one statement, and "lock this row,
creating it first if it does not exist yet" for compare-and-set on a row that may be missing.

Why: under READ COMMITTED (PostgreSQL's default) `SELECT ... FOR UPDATE` of a row that does not exist locks
nothing. Two writers both saw "no counter yet, version 0", and the second one, whose later statements ran
after the first had committed, deleted the first one's chain and bumped the counter the first had just
created: an acknowledged change was lost (issue 15). So a row that a compare-and-set reads is made to exist
first (`INSERT ... ON CONFLICT DO NOTHING`: a concurrent inserter waits for the other's commit, then does
nothing), and only then locked and read.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import select
from sqlmodel import Session, SQLModel, col

from server.storage.shared_tables import CounterRow

M = TypeVar("M", bound=SQLModel)


def _insert(s: Session) -> Any:
    # Imported here: a command on SQLite (`outrider tokens issue`) need not load the PostgreSQL dialect.
    if s.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


def insert_absent(s: Session, model: type[SQLModel], **values: Any) -> bool:
    """Insert a row unless one with its primary key exists, in the caller's transaction; True when this
    call inserted it. A concurrent insert of the same key makes this wait for that transaction's end."""
    # RETURNING, not rowcount: the drivers do not all report how many rows an INSERT inserted.
    keys = list(model.__table__.primary_key.columns)  # type: ignore[attr-defined]
    stmt = _insert(s)(model).values(**values).on_conflict_do_nothing().returning(*keys)
    return s.connection().execute(stmt).first() is not None


def lock_row(s: Session, model: type[M], key: Any, **values: Any) -> tuple[M, bool]:
    """The row with primary key `key`, locked until the caller's transaction ends: inserted from `values`
    (which include the key columns) when missing. Returns (row, True when this call created it). Two
    sidecars creating the same row at once: one inserts, the other waits and then locks that row."""
    created = insert_absent(s, model, **values)
    row = s.get(model, key, with_for_update=True, populate_existing=True)
    assert row is not None, f"{model.__name__} {key!r} vanished inside its own transaction"
    return row, created


def lock_counter(s: Session, name: str) -> int:
    """The counter's value, its row locked until the caller's transaction ends (created at 0 if missing),
    so a compare-and-set on it has one writer at a time even for the very first change."""
    insert_absent(s, CounterRow, name=name, value=0)
    stmt = select(col(CounterRow.value)).where(col(CounterRow.name) == name).with_for_update()
    return int(s.execute(stmt).scalar_one())


def bump_counter(s: Session, name: str) -> int:
    """Add one to a change counter inside the caller's transaction, in one statement (the first bump
    creates the row; two first bumps cannot collide); returns the new value."""
    stmt = (
        _insert(s)(CounterRow)
        .values(name=name, value=1)
        .on_conflict_do_update(index_elements=["name"], set_={"value": CounterRow.value + 1})
        .returning(col(CounterRow.value))
    )
    return int(s.execute(stmt).scalar_one())
