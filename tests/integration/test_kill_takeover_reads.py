"""The kill take-over job (every sidecar, every heartbeat) reads the running kills only, through an index, not
the whole kill history, which is never pruned and grows with every kill (issue 31), on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from server.domain.recovery.kill import KillReason, KillResult
from server.storage.recovery.repository import SqlKillRepository
from tests.integration.query_plans import query_plans

T0 = datetime(2026, 12, 5, tzinfo=UTC)


def kill(i: int, complete: bool) -> KillResult:
    return KillResult(
        f"kill_{i}",
        f"takeover-agent-{i}",
        f"s-{i}",
        KillReason.MANUAL,
        (),
        T0 + timedelta(seconds=i),
        requested_by="operator:ops",
        complete_time=T0 + timedelta(seconds=i + 1) if complete else None,
    )


def test_the_take_over_claims_only_the_running_kills_of_other_owners(engine: Engine) -> None:
    gone = SqlKillRepository(engine, owner="sc-gone")
    for i in range(50):
        assert gone.insert(kill(i, complete=i not in (7, 31)))
    mine = SqlKillRepository(engine, owner="sc-here")
    assert mine.insert(kill(99, complete=False))  # this sidecar's own running kill is not an orphan

    claimed = mine.claim_orphaned(T0 + timedelta(days=1))

    assert [k.kill_id for k in claimed] == ["kill_7", "kill_31"]
    assert mine.claim_orphaned(T0 + timedelta(days=1)) == []  # claimed: owned by this sidecar now


def test_the_take_over_read_searches_the_running_kills_index(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("EXPLAIN QUERY PLAN is SQLite's")
    gone = SqlKillRepository(engine, owner="sc-gone")
    for i in range(200):
        gone.insert(kill(i, complete=i != 150))
    claimed, plans = query_plans(
        engine,
        lambda sql: sql.upper().startswith("SELECT") and "FROM recovery_kills" in sql,
        lambda: SqlKillRepository(engine, owner="sc-here").claim_orphaned(T0 + timedelta(days=1)),
    )
    assert [k.kill_id for k in claimed] == ["kill_150"]
    for plan in plans:
        assert "USING INDEX ix_recovery_kills_running" in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # already in seq order: no sort of the running kills


def test_a_sidecar_whose_kill_was_taken_over_writes_nothing_of_it(engine: Engine) -> None:
    """A sidecar resumed from a pause may run its kill on (its callback timeout passed) before its heartbeat
    finds it was declared gone: its writes are refused, so the sidecar that took the kill over records the one
    outcome (before, the late owner's completion overwrote it)."""
    paused = SqlKillRepository(engine, owner="sc-paused")
    running = kill(1, complete=False)
    assert paused.insert(running)
    assert paused.update(running)  # still its own
    taker = SqlKillRepository(engine, owner="sc-taker")
    [claimed] = taker.claim_orphaned(T0 + timedelta(days=1))
    done = replace(claimed, complete_time=T0 + timedelta(minutes=1), detail="taken over")
    assert not paused.update(replace(running, complete_time=T0, detail="late"))
    assert taker.update(done)
    assert not taker.update(done)  # complete: written once
    stored = taker.get(running.kill_id)
    assert stored is not None and stored.detail == "taken over"
