"""Engine creation (SQLite WAL by default, PostgreSQL by URL) and schema migrations at start-up."""

from __future__ import annotations

import ast
import fcntl
import logging
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import SQLAlchemyError

from server.domain.errors import StorageUnavailable
from server.storage.sqlite_writes import QueuedWriteConnection, lock_reads_for_update, writes_lock

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).parent / "migrations"
# Any fixed number: every sidecar sharing a PostgreSQL database takes this lock to migrate one at a time.
_MIGRATION_LOCK = 7_140_131


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(data_dir / 'outrider.db').resolve()}"


# PostgreSQL SQLSTATEs that mean "the server cannot serve now", not "this statement is wrong": connection
# exceptions (class 08), shutdowns (57P01-57P03: admin shutdown, crash shutdown, cannot connect now) and
# too many connections (53300).
_UNAVAILABLE_STATES = ("57P01", "57P02", "57P03", "53300")
# SQLite's equivalents: the file is locked past busy_timeout, the disk fails, the file cannot be opened.
_SQLITE_UNAVAILABLE = ("database is locked", "disk i/o error", "unable to open database")
_LOG_EVERY = 5.0  # seconds: one line per burst of failures, with the count of those not logged


class _Quiet:
    last = 0.0
    skipped = 0


def storage_unavailable(ctx: ExceptionContext) -> StorageUnavailable | None:
    """The `handle_error` hook of every engine: a driver error that means the database cannot be reached
    becomes StorageUnavailable (one fixed message for callers); the driver's text is logged here only."""
    if ctx.is_pre_ping:  # the pool's own liveness probe: it reconnects by itself
        return None
    orig = ctx.original_exception
    state = str(getattr(orig, "sqlstate", "") or "")
    text_ = str(orig).lower()
    unavailable = (
        ctx.is_disconnect
        or ctx.connection is None  # connecting failed
        or state.startswith("08")
        or state in _UNAVAILABLE_STATES
        or (ctx.dialect is not None and ctx.dialect.name == "sqlite" and any(m in text_ for m in _SQLITE_UNAVAILABLE))
    )
    if not unavailable:
        return None
    now = time.monotonic()
    if now - _Quiet.last >= _LOG_EVERY:
        log.warning(
            "storage unavailable: %s: %s (%d more since the last line)",
            type(orig).__name__,
            str(orig).strip()[:500],
            _Quiet.skipped,
        )
        _Quiet.last, _Quiet.skipped = now, 0
    else:
        _Quiet.skipped += 1
    return StorageUnavailable()


# A transaction of ours never idles between two statements for seconds unless its process is frozen (SIGSTOP,
# a VM freeze, a swap storm). Such a transaction keeps its locks (the audit chain's advisory lock, a breaker's
# row, a change counter) and every other sidecar's write waits behind it for as long as the freeze lasts:
# PostgreSQL ends its session after this long instead, and the frozen process finds its transaction rolled
# back when it resumes (nothing of it was acknowledged).
IDLE_IN_TRANSACTION_SECONDS = 10.0


# How long a SQLite writer waits for the write lock (another process's, or its turn in this one) before
# the write fails as StorageUnavailable.
_BUSY_SECONDS = 30.0


def create_db_engine(url: str, *, idle_in_transaction: float = IDLE_IN_TRANSACTION_SECONDS) -> Engine:
    engine = _create_db_engine(url, idle_in_transaction)
    event.listen(engine, "handle_error", storage_unavailable)
    return engine


def _create_db_engine(url: str, idle_in_transaction: float = IDLE_IN_TRANSACTION_SECONDS) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": _BUSY_SECONDS, "factory": QueuedWriteConnection}
        )
        database = engine.url.database or ""
        mutex = writes_lock(database) if database not in ("", ":memory:") else None

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            if mutex is not None:  # this process's writers take turns (server/storage/sqlite_writes.py)
                dbapi_conn.queue_writes(mutex, _BUSY_SECONDS)
            cur = dbapi_conn.cursor()
            # WAL lets readers run beside the writer; FULL fsyncs each commit so an acknowledged
            # change survives even a power cut, not only a SIGKILL.
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute(f"PRAGMA busy_timeout={int(_BUSY_SECONDS * 1000)}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        lock_reads_for_update(engine)
        return engine
    engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)

    @event.listens_for(engine, "connect")
    def _session(dbapi_conn: Any, _record: Any) -> None:
        with dbapi_conn.cursor() as cur:  # a SET, not a startup option: a session-mode pooler passes it on
            cur.execute(f"SET idle_in_transaction_session_timeout = {int(idle_in_transaction * 1000)}")
        dbapi_conn.commit()

    return engine


_REVISION = re.compile(r"^(down_revision|revision)\s*(?::[^=]*)?=\s*(.+?)\s*(?:#.*)?$", re.M)


def script_heads(directory: Path = MIGRATIONS / "versions") -> frozenset[str]:
    """The revisions no other revision builds on, read from the migration files' text (no import, no
    Alembic): what `alembic heads` says, for the fast path of `migrate`."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in directory.glob("*.py"):
        found = dict((k, ast.literal_eval(v)) for k, v in _REVISION.findall(path.read_text(encoding="utf-8")))
        if isinstance(found.get("revision"), str):
            revisions.add(found["revision"])
        down = found.get("down_revision")
        parents.update([down] if isinstance(down, str) else list(down or ()))
    return frozenset(revisions - parents)


def _at_heads(engine: Engine) -> bool:
    try:
        with engine.connect() as conn:
            current = frozenset(str(r[0]) for r in conn.execute(text("SELECT version_num FROM alembic_version")))
    except SQLAlchemyError:
        return False  # a new database: Alembic creates it
    try:
        return bool(current) and current == script_heads()
    except (OSError, ValueError, SyntaxError):
        return False  # files it cannot read this way: let Alembic decide


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision of every branch (idempotent).

    Features add their tables on their own branch from 0002, so `heads`, not `head`. A database already at
    every head is left alone without loading Alembic (most of a CLI command's start-up otherwise).
    """
    if _at_heads(engine):
        log.debug("schema already at head")
        return
    from alembic import command
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
        elif conn.dialect.name == "sqlite":  # the workers of `serve --workers` start together: one migrates
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "heads")
    log.debug("schema migrated to head")


class DatabaseInUse(OSError):
    """Another `outrider serve` holds this SQLite database."""


def open_migrated(url: str, data_dir: Path | None = None) -> Engine:
    """An engine on `url`, migrated to head (the commands that work straight on the database); `data_dir`, the
    SQLite file's folder, is created first. The caller disposes of the engine."""
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_db_engine(url)
    try:
        migrate(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def lock_sqlite_for_serving(url: str, *, worker: bool = False) -> Callable[[], None]:
    """Hold an exclusive lock beside a SQLite database for as long as this sidecar serves; returns the
    release. SQLite is for one sidecar: its state is cached in the process, and several sidecars on one
    file would each believe their own cache. The lock is the kernel's (flock), so it goes away with the
    process, however it ends; `outrider console`, `tokens` and `audit` do not take it.

    `outrider serve --workers N` takes it in the parent, whose workers then share the file (their caches
    follow each other's changes: server/storage/fleet/changes.py). A `worker` (`--worker I`) finds the lock
    held and serves only when its holder is its own parent."""
    if not url.startswith("sqlite"):
        return lambda: None
    db_path = Path(url.split(":///", 1)[1]) if ":///" in url else None
    if db_path is None or str(db_path) in ("", ":memory:"):
        return lambda: None
    lock_path = db_path.with_name(db_path.name + ".serve.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        if worker and holder == str(os.getppid()):
            return lambda: None  # our `serve --workers` parent holds it for its workers
        raise DatabaseInUse(
            f"another `outrider serve` (pid {holder}) already serves the SQLite database {db_path}. "
            "SQLite is for one sidecar (or the workers of one `outrider serve --workers N`); to run several "
            "sidecars, give them one PostgreSQL database (storage.db_url, --db-url): see docs/fleet.md"
        ) from None
    if worker:  # a worker must be started by `serve --workers`, which holds the lock for it
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        raise DatabaseInUse(
            f"`outrider serve --worker` on the SQLite database {db_path} serves only under its `serve --workers` "
            "parent (which locks the database for its workers); run `outrider serve --workers N`"
        )
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)

    def release() -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    return release
