"""The one walk of the chain (server/services/supervisor/walk.py): replay drives it without an event loop."""

from __future__ import annotations

import asyncio

import pytest

from server.services.supervisor.walk import run_sync


async def _answers() -> int:
    return 42


async def _waits() -> int:
    await asyncio.sleep(0)
    return 1


def test_a_walk_that_never_waits_runs_to_its_end_without_a_loop() -> None:
    assert run_sync(_answers()) == 42


def test_a_walk_that_waits_is_refused_rather_than_left_half_done() -> None:
    with pytest.raises(RuntimeError, match="event loop"):
        run_sync(_waits())
