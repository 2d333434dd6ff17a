"""Integration fixtures: a running sidecar over real gRPC, on SQLite or PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from server.bootstrap import build_services
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore

from .harness import RunningSidecar, make_config

if TYPE_CHECKING:
    from playwright.sync_api import Browser


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


@pytest.fixture
def memory_store() -> MemoryStore:
    """The in-memory "database" under `memory_sidecar` (a test may look into it or build on it again)."""
    return MemoryStore()


@pytest.fixture
def memory_sidecar(tmp_path: Path, clock: FakeClock, memory_store: MemoryStore) -> Iterator[RunningSidecar]:
    """A sidecar over real gRPC whose services run on the in-memory repositories and `clock`, built by the
    composition root: for tests about a rule, not about storage."""
    config = make_config(tmp_path)
    services = build_services(config, repos=memory_store.repositories(), clock=clock)
    with RunningSidecar(config, services=services) as sidecar:
        yield sidecar


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless Chromium through Playwright, one per module (tests/integration/browserkit.py)."""
    from playwright.sync_api import sync_playwright

    from .browserkit import ARGS, CHROMIUM, require_chromium

    require_chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield b
        finally:
            b.close()
