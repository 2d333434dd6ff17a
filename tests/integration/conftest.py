"""Integration fixtures: a running sidecar over real gRPC, on SQLite or PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    """A sidecar on SQLite with an empty chain (most rule tests need no second database)."""
    with RunningSidecar(make_config(tmp_path)) as s:
        yield s


@pytest.fixture
def sidecar_any_db(tmp_path: Path, db_url: str) -> Iterator[RunningSidecar]:
    """The same, once on SQLite and once on the real PostgreSQL."""
    with RunningSidecar(make_config(tmp_path, db_url=db_url)) as s:
        yield s


@pytest.fixture
def clock() -> FakeClock:
    """A clock the test moves by hand (timeouts without sleeping)."""
    return FakeClock()


@pytest.fixture
def s(tmp_path: Path, clock: FakeClock) -> Iterator[RunningSidecar]:
    """A sidecar on SQLite running on `clock`."""
    with RunningSidecar(make_config(tmp_path), clock=clock) as sidecar:
        yield sidecar
