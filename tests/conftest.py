"""Shared fixtures and the suite's tiers.

Databases: a SQLite file and the real PostgreSQL that `make test` starts, both copied from a template that is
migrated once per run (migrating per test was most of a sidecar's start-up). Tiers: every test gets markers
from where it lives (`unit`, `integration`, `fleet`, `faults`) and what it uses (`browser`, `postgres`,
`slow`), so `make test-fast` can pick the inner loop without anyone tagging tests by hand. Under
pytest-xdist (`--dist loadfile`), a module's tests stay on one worker, so its module-scoped sidecars start
once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from sqlalchemy import Engine

PG_URL = os.environ.get("OUTRIDER_TEST_PG_URL", "")
REQUIRE_PG = os.environ.get("OUTRIDER_REQUIRE_PG") == "1"

_TESTS = Path(__file__).resolve().parent
_MIGRATIONS = _TESTS.parent / "server" / "storage" / "migrations"

# Directory -> tier. Adversarial and fuzz cases talk to in-process sidecars like the integration tests.
_TIER_OF_DIR = {
    "unit": "unit",
    "integration": "integration",
    "adversarial": "integration",
    "fuzz": "integration",
    "conformance": "integration",
    "fleet": "fleet",
    "faults": "faults",
}
# Fixtures that mean "this test needs the real PostgreSQL".
_PG_FIXTURES = {"pg_url", "fleet", "shared_fleet"}
# Fixtures that mean "this test runs sidecar processes or the real clock for seconds".
_SLOW_FIXTURES = {"fleet", "shared_fleet", "jaeger", "page", "browser", "console_browser"}
# Modules whose tests start `outrider serve`, the gateway, examples or writer processes of their own (or SIGKILL
# and restart them): `make test` runs them, the inner loop (`make test-fast`) does not.
SLOW_MODULES = {
    "adversarial/test_audit_concurrency.py",
    "integration/test_approvals_durable.py",
    "integration/test_cli_frontdoor.py",
    "integration/test_console_process.py",
    "integration/test_examples.py",
    "integration/test_integration_examples.py",
    "integration/test_mcp_gateway.py",
    "integration/test_notifications_sidecar.py",
    "integration/test_process.py",
    "integration/test_readme.py",
    "integration/test_sqlite_single_sidecar.py",
}


def _module_key(item: pytest.Item) -> str:
    return Path(str(item.fspath)).resolve().relative_to(_TESTS).as_posix()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        rel = _module_key(item)
        top = rel.split("/", 1)[0]
        tier = _TIER_OF_DIR.get(top, "integration")
        item.add_marker(tier)
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        uses_pg = bool(names & _PG_FIXTURES) or tier in ("fleet", "faults")
        if callspec is not None and callspec.params.get("db_url") == "postgres":
            uses_pg = True
        if uses_pg:
            item.add_marker("postgres")
        browser = "browser" in rel.rsplit("/", 1)[-1] or "chromium" in item.name or "browser" in names
        if browser:
            item.add_marker("browser")
        if browser or tier in ("fleet", "faults") or names & _SLOW_FIXTURES or rel in SLOW_MODULES:
            item.add_marker("slow")


# ---- databases ---------------------------------------------------------------------------------------


def _migrations_digest() -> str:
    """Changes whenever a migration does, so a stale template is never used."""
    h = hashlib.sha256()
    for path in sorted(_MIGRATIONS.rglob("*.py")):
        h.update(path.relative_to(_MIGRATIONS).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _admin_url() -> str:
    return PG_URL.replace("postgresql+psycopg://", "postgresql://")


def _pg_template() -> str:
    """The name of a database on the test server migrated to head: made once per server and migration set.

    Workers race to make it: an advisory lock orders them, and the winner marks it a template only when
    it is complete, so a loser never copies half a schema."""
    import psycopg
    from sqlalchemy import create_engine

    from server.storage.db import migrate

    name = f"tmpl_{_migrations_digest()}"
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(7140132)")
        try:
            row = conn.execute("SELECT datistemplate FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if row is not None and row[0]:
                return name
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
            base, _, _ = PG_URL.rpartition("/")
            engine = create_engine(f"{base}/{name}")
            try:
                migrate(engine)
            finally:
                engine.dispose()
            conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false')
            return name
        finally:
            conn.execute("SELECT pg_advisory_unlock(7140132)")


_template_name: str | None = None


def _fresh_pg_database(*, empty: bool = False) -> tuple[str, str]:
    """A new database on the test server, migrated to head (copied from the template) unless `empty`;
    returns (url, name)."""
    import psycopg

    global _template_name
    name = f"t_{uuid.uuid4().hex[:12]}"
    template = ""
    if not empty:
        if _template_name is None:
            _template_name = _pg_template()
        template = f' TEMPLATE "{_template_name}"'
    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{template}')
    base, _, _ = PG_URL.rpartition("/")
    return f"{base}/{name}", name


def _drop_pg_database(name: str) -> None:
    import psycopg

    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _need_pg() -> None:
    if not PG_URL:
        if REQUIRE_PG:
            pytest.fail("OUTRIDER_TEST_PG_URL is not set but PostgreSQL is required (run `make test`)")
        pytest.skip("no PostgreSQL: run through `make test`, which starts one")


_sqlite_template: Path | None = None


def sqlite_template() -> Path:
    """A SQLite database migrated to head once per process (each xdist worker has its own); tests and
    sidecars copy it instead of migrating."""
    global _sqlite_template
    if _sqlite_template is None:
        import tempfile

        from server.storage.db import create_db_engine, migrate

        path = Path(tempfile.mkdtemp(prefix="outrider-template-")) / "outrider.db"
        engine = create_db_engine(f"sqlite:///{path}")
        try:
            migrate(engine)
            with engine.connect() as conn:  # fold the WAL into the file so one copy is the whole database
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            engine.dispose()
        _sqlite_template = path
    return _sqlite_template


def copy_sqlite_template(data_dir: Path) -> None:
    """Put a migrated database where a sidecar with `data_dir` looks for it (unless one is there)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    target = data_dir / "outrider.db"
    if not target.exists():
        shutil.copyfile(sqlite_template(), target)


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database of each kind, migrated to head. PostgreSQL is required under `make test`."""
    if request.param == "sqlite":
        shutil.copyfile(sqlite_template(), tmp_path / "outrider.db")
        yield f"sqlite:///{tmp_path / 'outrider.db'}"
        return
    _need_pg()
    url, name = _fresh_pg_database()
    try:
        yield url
    finally:
        _drop_pg_database(name)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on `db_url` (a fresh database migrated to head, of each kind), disposed after the test."""
    from server.storage.db import create_db_engine

    e = create_db_engine(db_url)
    try:
        yield e
    finally:
        e.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each kind: for the tests of migrating itself."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'outrider.db'}"
        return
    _need_pg()
    url, name = _fresh_pg_database(empty=True)
    try:
        yield url
    finally:
        _drop_pg_database(name)
