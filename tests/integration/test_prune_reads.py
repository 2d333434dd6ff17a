"""Retention jobs read what they delete through an index, not by scanning a table that grows with the traffic
(issue 31's hour-long soak listed the statements whose plan scans a table; one is a prune, run in a write
transaction every minute)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from server.storage.db import create_db_engine, migrate
from server.storage.fleet.changes import ChangeLog
from server.storage.safeguards.budgets import SqlBudgetLedger
from server.storage.safeguards.leases import SqlLeaseRepository
from tests.integration.query_plans import query_plans

T0 = datetime(2026, 12, 5, tzinfo=UTC)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'o.db'}")
    migrate(engine)
    yield engine
    engine.dispose()


def _plans(engine: Engine, table: str, run: Callable[[], object]) -> list[str]:
    return query_plans(engine, lambda sql: sql.upper().startswith("DELETE") and f"FROM {table}" in sql, run)[1]


def test_the_budget_expiry_prunes_ended_reservations_through_an_index(engine: Engine) -> None:
    ledger = SqlBudgetLedger(engine, ChangeLog(engine, "sc-test"))
    for plan in _plans(
        engine, "safeguard_reservations", lambda: ledger.expire(T0, timedelta(hours=1), lambda _agent, _budget: [])
    ):
        assert "USING INDEX ix_safeguard_reservations_ended" in plan, plan


def test_the_lease_prune_finds_ended_leases_through_an_index(engine: Engine) -> None:
    leases = SqlLeaseRepository(engine)
    for plan in _plans(engine, "safeguard_leases", lambda: leases.prune_leases(T0)):
        assert "USING INDEX ix_safeguard_leases_ended" in plan, plan
