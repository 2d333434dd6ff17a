"""The fault suite: real sidecar processes on a PostgreSQL of the module's own, which the tests stop, start and
restart (its own data dir and port, so other tests running in parallel never see it go away)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REQUIRE_PG

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "postgres.sh"


class OwnPostgres:
    """One throwaway PostgreSQL server (scripts/postgres.sh), restarted on the same port."""

    def __init__(self) -> None:
        # Not under pytest's tmp_path: as root, postgres.sh runs the server as the `postgres` user, which
        # cannot enter pytest's private base directory. A fresh directory of our own, removed at the end.
        self.dir = Path(tempfile.mkdtemp(prefix="outrider-faults-pg-"))
        os.chmod(self.dir, 0o755)
        self.port = ""

    def _script(self, command: str) -> str:
        env = {k: v for k, v in os.environ.items() if k != "OUTRIDER_TEST_PG_PORT"}  # never another server's
        if self.port:
            env["OUTRIDER_TEST_PG_PORT"] = self.port  # a restart keeps the port the sidecars know
        r = subprocess.run(
            ["bash", str(SCRIPT), command, str(self.dir)], capture_output=True, text=True, timeout=300, env=env
        )
        assert r.returncode == 0, f"postgres.sh {command}: {r.stderr}"
        return r.stdout.strip()

    def start(self) -> None:
        self._script("start")
        self.port = (self.dir / "port").read_text().strip()

    def stop(self) -> None:
        self._script("stop")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://outrider@127.0.0.1:{self.port}/outrider"

    @property
    def dsn(self) -> str:
        return self.url.replace("postgresql+psycopg://", "postgresql://")

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def own_pg() -> Iterator[OwnPostgres]:
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        if REQUIRE_PG:
            pytest.fail("PostgreSQL is not installed but is required (run `make test`)")
        pytest.skip("no PostgreSQL binaries: run through `make test`, which installs them")
    pg = OwnPostgres()
    try:
        pg.start()
        yield pg
    finally:
        pg.close()


@pytest.fixture
def pg(own_pg: OwnPostgres) -> Iterator[OwnPostgres]:
    """The module's server, running (a test that failed with it stopped does not break the next one)."""
    own_pg.start()
    yield own_pg
    own_pg.start()


def fresh_database(pg: OwnPostgres) -> str:
    """A new, empty database on `pg` (each test's sidecars have their own audit key: their own database)."""
    import uuid

    import psycopg

    name = f"f_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return pg.url.rsplit("/", 1)[0] + f"/{name}"
