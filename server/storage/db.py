"""Engine creation (SQLite WAL by default, PostgreSQL by URL) and schema migrations at start-up."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import Engine, create_engine, event, text

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).parent / "migrations"
# Any fixed number: every sidecar sharing a PostgreSQL database takes this lock to migrate one at a time.
_MIGRATION_LOCK = 7_140_131


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(data_dir / 'outrider.db').resolve()}"


def create_db_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            # WAL lets readers run beside the writer; FULL fsyncs each commit so an acknowledged
            # change survives even a power cut, not only a SIGKILL.
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision of every branch (idempotent).

    Features add their tables on their own branch from 0002, so `heads`, not `head`.
    """
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "heads")
    log.debug("schema migrated to head")
