"""One queue for a process's writers of a SQLite database: the write lock taken in the process, in turn.

SQLite lets one connection write at a time. A connection that finds the file locked polls for it: its busy
handler sleeps 1, 2, 5, ... then 100 ms between tries, and nothing makes the waiters take turns. Under load
a writer can lose the lock many times in a row, and the lock sits free while every waiter sleeps. Within
one process this module replaces that poll with a mutex taken just before a connection's first write of a
transaction (or its `BEGIN IMMEDIATE`) and released when the transaction ends: the next writer starts as
soon as the last one commits. Writers in other processes (`outrider tokens`, `audit`) still meet SQLite's
own lock and its busy handler, as before.

A read that means to write what it read (`with_for_update()`, which SQLite does not render) starts its
transaction with `BEGIN IMMEDIATE` (`lock_reads_for_update`): pysqlite would begin only at the first write,
after the read, and another process (a worker of `serve --workers`, `outrider tokens`) could change the row in
between. On PostgreSQL the row lock does that.

The mutex is held exactly while SQLite's write lock would be, so it adds no deadlock the database did not
have: a thread that writes on a second connection while its first holds a write waits `timeout` seconds and
then fails with "database is locked" (StorageUnavailable), as SQLite's busy timeout made it fail before.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

# The statements that take SQLite's write lock: pysqlite opens a transaction before the first INSERT, UPDATE,
# DELETE or REPLACE; our `BEGIN IMMEDIATE` takes the lock at once; DDL (migrations) writes in autocommit.
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE", "CREATE", "DROP", "ALTER")
_LONGEST = max(len(w) for w in _WRITES)

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def writes_lock(database: str) -> threading.Lock:
    """The one mutex of this process for the SQLite file `database` (every engine on it shares it)."""
    key = str(Path(database).resolve())
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def lock_reads_for_update(engine: Engine) -> None:
    """On this SQLite engine, a statement with `with_for_update()` that opens a transaction opens it with
    `BEGIN IMMEDIATE`: the write lock (and this process's turn) from the read on."""

    @event.listens_for(engine, "before_cursor_execute")
    def _for_update(conn: Any, cursor: Any, _sql: str, _params: Any, context: Any, _many: bool) -> None:
        compiled = getattr(context, "compiled", None)
        if compiled is None or getattr(compiled.statement, "_for_update_arg", None) is None:
            return
        if not conn.connection.dbapi_connection.in_transaction:
            cursor.execute("BEGIN IMMEDIATE")


def is_write(statement: str) -> bool:
    head = statement.lstrip()[: _LONGEST + 8].upper()
    return head.startswith(_WRITES)


class _WriteCursor(sqlite3.Cursor):
    def execute(self, sql: str, parameters: Any = (), /) -> _WriteCursor:
        return self._queued(super().execute, sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> _WriteCursor:
        return self._queued(super().executemany, sql, seq_of_parameters)

    def _queued(self, run: Callable[[str, Any], object], sql: str, parameters: Any) -> _WriteCursor:
        """`run` the statement in this process's turn when it writes (see QueuedWriteConnection)."""
        conn: QueuedWriteConnection = self.connection  # type: ignore[assignment]
        conn._before(sql)
        try:
            run(sql, parameters)
        finally:
            conn._after()
        return self


class QueuedWriteConnection(sqlite3.Connection):
    """A pysqlite connection (the `factory` of `sqlite3.connect`) that takes its database's process-wide
    write mutex before writing and gives it back when its transaction ends (commit, rollback, close, or a
    statement that ran in autocommit). Configure it with `queue_writes` before its first statement."""

    _mutex: threading.Lock | None = None
    _timeout: float = 30.0
    _holds = False

    def queue_writes(self, mutex: threading.Lock, timeout: float) -> None:
        self._mutex, self._timeout = mutex, timeout

    def cursor(self, factory: Any = _WriteCursor) -> Any:
        return super().cursor(factory)

    # sqlite3's own shortcuts make their cursor without `cursor()`: route them through it.
    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> Any:
        return self.cursor().executemany(sql, seq_of_parameters)

    def _before(self, sql: str) -> None:
        if self._holds or self._mutex is None or not is_write(sql):
            return
        if not self._mutex.acquire(timeout=self._timeout):
            # The text SQLite gives for its own busy timeout: the engine's handle_error makes it StorageUnavailable.
            raise sqlite3.OperationalError("database is locked")
        self._holds = True

    def _after(self) -> None:
        if self._holds and not self.in_transaction:
            self._release()

    def _release(self) -> None:
        self._holds = False
        assert self._mutex is not None
        self._mutex.release()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self._after()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._after()

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._holds:
                self._release()
