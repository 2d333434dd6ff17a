"""Compare-and-set and first-row races in the SQL repositories, made deterministic: a second writer (its
own engine, like another sidecar) runs at a chosen statement of the first writer's transaction.

The lost update of issue 15: under READ COMMITTED a `SELECT ... FOR UPDATE` of a counter row that does
not exist yet locks nothing, so two "first" chain changes both won and one acknowledged change vanished.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, event

from server.domain.agents import Agent
from server.domain.guardrails import GuardrailSpec
from server.storage.db import create_db_engine, migrate
from server.storage.supervisor.repository import SqlAgentRepository, SqlGuardrailRepository
from tests.conftest import PG_URL, REQUIRE_PG, _drop_pg_database, _fresh_pg_database


@pytest.fixture
def engines() -> Iterator[tuple[Engine, Engine, str]]:
    """Two engines (two sidecars' pools) on one fresh PostgreSQL database, and its psycopg URL."""
    if not PG_URL:
        if REQUIRE_PG:
            pytest.fail("OUTRIDER_TEST_PG_URL is not set but PostgreSQL is required (run `make test`)")
        pytest.skip("no PostgreSQL: run through `make test`, which starts one")
    url, name = _fresh_pg_database()
    a, b = create_db_engine(url), create_db_engine(url)
    try:
        migrate(a)
        yield a, b, url.replace("postgresql+psycopg://", "postgresql://")
    finally:
        a.dispose()
        b.dispose()
        _drop_pg_database(name)


def _run_other_writer_at(engine: Engine, prefix: str, other: Callable[[], Any], dsn: str) -> dict[str, Any]:
    """The first time `engine` is about to execute a statement starting with `prefix`, run `other` in a
    thread until it finishes or waits for a lock the paused transaction holds (seen in pg_locks)."""
    out: dict[str, Any] = {}

    def before(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "result" in out or "error" in out or not statement.lstrip().upper().startswith(prefix):
            return

        def run() -> None:
            try:
                out["result"] = other()
            except Exception as exc:  # the assertion below names it
                out["error"] = exc

        t = threading.Thread(target=run)
        t.start()
        with psycopg.connect(dsn, autocommit=True) as watch:
            while t.is_alive():
                waiting = watch.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()
                if waiting is not None and waiting[0]:
                    out["waited"] = True
                    break
                t.join(0.01)
        out["thread"] = t

    event.listen(engine, "before_cursor_execute", before)
    return out


def test_two_first_chain_changes_on_an_empty_counter_do_not_both_win(engines: tuple[Engine, Engine, str]) -> None:
    a_engine, b_engine, dsn = engines
    a, b = SqlGuardrailRepository(a_engine), SqlGuardrailRepository(b_engine)
    b_spec = [GuardrailSpec("from-b", "cost_cap", {"max": 1}, "runtime")]
    a_spec = [GuardrailSpec("from-a", "cost_cap", {"max": 1}, "runtime")]
    # B's whole first change runs when A has read the (missing) counter and is about to write the chain.
    other = _run_other_writer_at(a_engine, "DELETE FROM GUARDRAILS", lambda: b.replace_if(b_spec, 0), dsn)
    a_version = a.replace_if(a_spec, 0)
    other["thread"].join(10)
    assert "error" not in other, other.get("error")
    b_version = other["result"]
    # Exactly one of the two compare-and-sets on version 0 is acknowledged, and its chain is the stored one.
    assert [a_version, b_version].count(None) == 1, (a_version, b_version)
    specs, _ = a.load()
    assert specs == (a_spec if a_version is not None else b_spec)
    assert a.version() == 1


def test_two_sidecars_registering_one_new_agent_at_once_both_succeed_one_creates(
    engines: tuple[Engine, Engine, str],
) -> None:
    a_engine, b_engine, dsn = engines
    a, b = SqlAgentRepository(a_engine), SqlAgentRepository(b_engine)
    other = _run_other_writer_at(a_engine, "INSERT INTO AGENTS", lambda: b.upsert(Agent("twin", group="from-b")), dsn)
    stored, created_a = a.upsert(Agent("twin", group="from-a"))
    other["thread"].join(10)
    assert "error" not in other, other.get("error")  # before the fix: IntegrityError (INTERNAL) on one
    _, created_b = other["result"]
    assert sorted([created_a, created_b]) == [False, True]
    assert a.ever_registered("twin")
    assert stored.group == "from-a"  # A wrote last
