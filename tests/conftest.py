"""Shared fixtures: databases (SQLite file and the real PostgreSQL that `make test` starts)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_URL = os.environ.get("OUTRIDER_TEST_PG_URL", "")
REQUIRE_PG = os.environ.get("OUTRIDER_REQUIRE_PG") == "1"


def _fresh_pg_database() -> tuple[str, str]:
    """Create an empty database on the test server; returns (url, name)."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = PG_URL.rpartition("/")
    return f"{base}/{name}", name


def _drop_pg_database(name: str) -> None:
    import psycopg

    admin = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each kind. PostgreSQL is required under `make test`."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'outrider.db'}"
        return
    if not PG_URL:
        if REQUIRE_PG:
            pytest.fail("OUTRIDER_TEST_PG_URL is not set but PostgreSQL is required (run `make test`)")
        pytest.skip("no PostgreSQL: run through `make test`, which starts one")
    url, name = _fresh_pg_database()
    try:
        yield url
    finally:
        _drop_pg_database(name)
