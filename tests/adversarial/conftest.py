"""Fixtures: a real sidecar on SQLite (or each database) over real gRPC on 127.0.0.1:0, on a clock the test
moves, with the operator token the harness issues and fresh agent tokens per attacker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeClock
from tests.integration.harness import RunningSidecar, make_config


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def s(tmp_path: Path, clock: FakeClock) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path), clock=clock) as sidecar:
        yield sidecar
