"""SQLite's query plans of the statements a piece of code runs: a test proves a read or a prune goes through an
index, not a scan of a table that grows with the traffic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, event


def query_plans(engine: Engine, keep: Callable[[str], bool], run: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What `run()` returns, and the `EXPLAIN QUERY PLAN` of each statement it ran that `keep` selects (each
    parameter bound to a placeholder value: the plan does not depend on it)."""
    statements: list[str] = []

    def capture(conn: object, cursor: object, statement: str, *args: object) -> None:
        if keep(statement.lstrip()):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", capture)
    try:
        result = run()
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert statements, "no statement of the kind looked for ran"
    with engine.connect() as conn:
        plans = [
            " ".join(str(row[-1]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, ("x",) * sql.count("?")))
            for sql in statements
        ]
    return result, plans
