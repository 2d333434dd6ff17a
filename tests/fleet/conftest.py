"""The fleet suite: several real sidecar processes on the PostgreSQL that `make test` runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PG_URL, REQUIRE_PG, _drop_pg_database, _fresh_pg_database

from .harness import Fleet


def _pg() -> Iterator[str]:
    if not PG_URL:
        if REQUIRE_PG:
            pytest.fail("OUTRIDER_TEST_PG_URL is not set but PostgreSQL is required (run `make test`)")
        pytest.skip("no PostgreSQL: run through `make test`, which starts one")
    url, name = _fresh_pg_database()
    try:
        yield url
    finally:
        _drop_pg_database(name)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database (the fleet suite needs one; `make test` starts the server)."""
    yield from _pg()


FAST_FAILOVER = "fleet:\n  heartbeat_interval: 250ms\n  sidecar_timeout: 3s\n"


def fast_failover_fleet(tmp_path_factory: pytest.TempPathFactory, name: str, sqlite: bool = False) -> Iterator[Fleet]:
    """A module's sidecars A, B and C with a 250 ms heartbeat and a 3 s sidecar timeout (a dead sidecar is
    seen as gone quickly), for the routing, attachment and kill-effect tests; on a fresh PostgreSQL database,
    or with `sqlite` as workers sharing one SQLite file (tests/fleet/test_sqlite_workers.py)."""
    tmp = tmp_path_factory.mktemp(name)
    (tmp / "outrider.yaml").write_text(FAST_FAILOVER)
    for url in [f"sqlite:///{tmp / 'outrider.db'}"] if sqlite else _pg():
        f = Fleet(tmp, url, config=tmp / "outrider.yaml")
        try:
            yield f
        finally:
            f.close()


@pytest.fixture(scope="module")
def shared_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """Sidecars A, B and C shared by a module's tests (starting three processes is the slow part): each
    test uses its own agent ids and keys."""
    for url in _pg():
        f = Fleet(tmp_path_factory.mktemp("fleet"), url)
        try:
            yield f
        finally:
            f.close()


@pytest.fixture
def fleet(tmp_path: Path, pg_url: str) -> Iterator[Fleet]:
    """Sidecars A, B and C on one database."""
    f = Fleet(tmp_path, pg_url)
    try:
        yield f
    finally:
        f.close()
