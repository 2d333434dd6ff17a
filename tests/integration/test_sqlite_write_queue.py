"""A process's SQLite writers take turns on one mutex (server/storage/sqlite_writes.py): held from the first
write of a transaction to its end, shared by every engine on the file, given back however the transaction
ends, and a writer that waits past its timeout fails as StorageUnavailable. A read `with_for_update()` starts
the transaction with BEGIN IMMEDIATE, so two read-then-write transactions never lose an update. Real SQLite
files."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy import column as sa_column
from sqlalchemy import table as sa_table
from sqlalchemy.exc import IntegrityError

from server.domain.errors import StorageUnavailable
from server.storage import sqlite_writes
from server.storage.db import create_db_engine
from server.storage.sqlite_writes import QueuedWriteConnection, is_write, writes_lock

WAIT = 30.0  # generous: a condition, never a duration


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    engine = create_db_engine(url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"))
    engine.dispose()
    return url


def _mutex(url: str) -> threading.Lock:
    return writes_lock(url.split(":///", 1)[1])


def test_the_write_statements_are_recognised() -> None:
    writes = ("INSERT INTO t VALUES (1)", "  update t set v=1", "DELETE FROM t", "BEGIN IMMEDIATE", "CREATE TABLE x")
    for sql in writes:
        assert is_write(sql), sql
    for sql in ("SELECT 1", "PRAGMA busy_timeout=1", "BEGIN", "SAVEPOINT sa_1", "WITH x AS (SELECT 1) SELECT * FROM x"):
        assert not is_write(sql), sql


def test_held_from_the_first_write_to_the_commit(url: str) -> None:
    engine = create_db_engine(url)
    mutex = _mutex(url)
    with engine.connect() as conn:
        conn.execute(text("SELECT * FROM t")).all()
        assert not mutex.locked()  # a read takes nothing
        conn.execute(text("INSERT INTO t VALUES (1, 'a')"))
        assert mutex.locked()
        conn.execute(text("UPDATE t SET v = 'b' WHERE k = 1"))  # the same transaction: held once
        conn.commit()
        assert not mutex.locked()
        conn.execute(text("INSERT INTO t VALUES (2, 'a')"))
        assert mutex.locked()
        conn.rollback()
        assert not mutex.locked()
    with engine.connect() as conn:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        assert mutex.locked()
        conn.rollback()
        assert not mutex.locked()
    engine.dispose()


def test_given_back_when_the_write_fails_or_the_connection_goes(url: str) -> None:
    engine = create_db_engine(url)
    mutex = _mutex(url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, 'a')"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, 'again')"))
    assert not mutex.locked()
    with engine.connect() as conn:  # returned to the pool without a commit: the pool's rollback ends it
        conn.execute(text("INSERT INTO t VALUES (3, 'a')"))
        assert mutex.locked()
    assert not mutex.locked()
    raw = sqlite3.connect(url.split(":///", 1)[1], factory=QueuedWriteConnection)
    raw.queue_writes(mutex, 1.0)
    raw.execute("INSERT INTO t VALUES (4, 'a')")
    assert mutex.locked()
    raw.close()
    assert not mutex.locked()
    engine.dispose()


def test_writers_take_turns_across_threads_and_engines(url: str) -> None:
    """A second engine on the same file shares the mutex: its writer waits for the first's commit, then
    goes at once (no busy-handler sleep), and both writes land."""
    first, second = create_db_engine(url), create_db_engine(url)
    started, done = threading.Event(), threading.Event()

    def other() -> None:
        started.set()
        with second.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (2, 'second')"))
        done.set()

    with first.connect() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, 'first')"))
        thread = threading.Thread(target=other)
        thread.start()
        assert started.wait(WAIT)
        assert not done.wait(0.2)  # it waits for our commit
        conn.commit()
    assert done.wait(WAIT)
    thread.join(WAIT)
    with first.connect() as conn:
        assert conn.execute(text("SELECT k, v FROM t ORDER BY k")).all() == [(1, "first"), (2, "second")]
    first.dispose()
    second.dispose()


def test_a_writer_that_waits_past_its_timeout_is_storage_unavailable(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.storage.db._BUSY_SECONDS", 0.2)
    engine = create_db_engine(url)
    mutex = _mutex(url)
    assert mutex.acquire(timeout=WAIT)  # another writer of this process holds its turn
    try:
        with pytest.raises(StorageUnavailable), engine.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (9, 'late')"))
    finally:
        mutex.release()
    with engine.begin() as conn:  # nothing stuck: the next write goes
        conn.execute(text("INSERT INTO t VALUES (9, 'now')"))
    assert not mutex.locked()
    engine.dispose()


def test_one_mutex_per_file(tmp_path: Path) -> None:
    a = writes_lock(str(tmp_path / "a.db"))
    assert writes_lock(str(tmp_path / "." / "a.db")) is a
    assert writes_lock(str(tmp_path / "b.db")) is not a
    assert str((tmp_path / "a.db").resolve()) in sqlite_writes._locks


def test_a_read_for_update_takes_the_write_lock_from_the_read_on(url: str) -> None:
    engine = create_db_engine(url)
    mutex = _mutex(url)
    table = sa_table("t", sa_column("k"), sa_column("v"))
    with engine.connect() as conn:
        conn.execute(select(table.c.v).where(table.c.k == 1)).all()
        assert not mutex.locked()  # a plain read takes nothing
        conn.execute(select(table.c.v).where(table.c.k == 1).with_for_update()).all()
        assert mutex.locked() and conn.connection.dbapi_connection.in_transaction  # type: ignore[union-attr]
        conn.rollback()
    assert not mutex.locked()
    engine.dispose()


def test_two_read_then_write_transactions_never_lose_an_update(url: str) -> None:
    """Each reads the counter FOR UPDATE, then writes it plus one: the second waits for the first's commit
    and reads its value. (Without BEGIN IMMEDIATE both read 0 and the result was 1.)"""
    first, second = create_db_engine(url), create_db_engine(url)
    with first.begin() as conn:
        conn.execute(text("INSERT INTO t VALUES (1, '0')"))
    table = sa_table("t", sa_column("k"), sa_column("v"))
    read = select(table.c.v).where(table.c.k == 1).with_for_update()
    started, done = threading.Event(), threading.Event()

    def increment(engine: Engine) -> None:
        with engine.begin() as conn:
            value = int(conn.execute(read).scalar_one())
            conn.execute(text("UPDATE t SET v = :v WHERE k = 1"), {"v": str(value + 1)})

    def other() -> None:
        started.set()
        increment(second)
        done.set()

    with first.begin() as conn:
        value = int(conn.execute(read).scalar_one())
        thread = threading.Thread(target=other)
        thread.start()
        assert started.wait(WAIT)
        assert not done.wait(0.2)  # its read waits for our commit
        conn.execute(text("UPDATE t SET v = :v WHERE k = 1"), {"v": str(value + 1)})
    assert done.wait(WAIT)
    thread.join(WAIT)
    with first.connect() as conn:
        assert conn.execute(text("SELECT v FROM t WHERE k = 1")).scalar_one() == "2"
    first.dispose()
    second.dispose()
