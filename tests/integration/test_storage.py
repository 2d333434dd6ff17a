"""Storage: migrations build exactly the SQLModel schema, on SQLite and PostgreSQL, idempotently."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

import server.storage.tables  # noqa: F401
from server.storage.db import create_db_engine, migrate


def test_migrations_match_the_models_and_rerun_cleanly(empty_db_url: str) -> None:
    engine = create_db_engine(empty_db_url)
    try:
        migrate(engine)
        migrate(engine)  # a second start finds nothing to do
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
        assert diff == [], f"models and migrations differ; add a migration: {diff}"
        assert {"agents", "guardrails", "policy_state", "decisions", "alembic_version"} <= set(
            inspect(engine).get_table_names()
        )
    finally:
        engine.dispose()


def test_sqlite_runs_in_wal_mode(tmp_path: object) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path}/x.db")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    finally:
        engine.dispose()
