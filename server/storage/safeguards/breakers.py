"""Circuit breakers in the database, the fleet's one truth (server/services/safeguards/breakers.py).

Every write is one statement or one short transaction, and every state change is a compare-and-set on
the generation (`UPDATE ... WHERE key = :key AND generation = :expected`): of several sidecars racing for
one transition exactly one updates a row. Failures are deltas (`failure_count = failure_count + n`)
applied only while the stored generation is the one the outcomes belong to, so counts from every
sidecar add up. The threshold decision is taken in the transaction that added the failures, while the
row is locked. HALF_OPEN probes in flight are a counter (`probes < :limit`), the fleet's
`half_open_max_calls`. Each write that others must see calls `ChangeLog.bump(conn, "breakers", key)` in its
transaction (the change counter and NOTIFY; a no-op on SQLite, one sidecar per file).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Row, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col

from server.domain.safeguards.breakers import Breaker, BreakerChange, BreakerConfig, BreakerState, Outcome
from server.services.safeguards.breakers import TOPIC, Decide, OutcomeBatch
from server.storage.fleet.changes import ChangeLog
from server.storage.idempotency import remember_in_transaction
from server.storage.safeguards.tables import BreakerRow
from server.storage.supervisor.repository import utc

B = BreakerRow
_COLS = (
    col(B.key),
    col(B.state),
    col(B.failure_count),
    col(B.generation),
    col(B.forced),
    col(B.runtime_config),
    col(B.has_cached),
    col(B.cached),
    col(B.probes),
    col(B.open_time),
    col(B.last_failure_time),
    col(B.last_success_time),
    col(B.create_time),
    col(B.update_time),
)


def _breaker(r: Row[Any]) -> Breaker:
    return Breaker(
        key=r.key,
        config=BreakerConfig(),  # the service applies the effective settings
        create_time=utc(r.create_time),
        update_time=utc(r.update_time),
        runtime_config=dict(r.runtime_config or {}),
        state=BreakerState(r.state),
        failure_count=int(r.failure_count),
        generation=int(r.generation),
        forced=bool(r.forced),
        open_time=utc(r.open_time) if r.open_time else None,
        last_failure_time=utc(r.last_failure_time) if r.last_failure_time else None,
        last_success_time=utc(r.last_success_time) if r.last_success_time else None,
        has_cached=bool(r.has_cached),
        cached=r.cached,
        probes=int(r.probes),
    )


def _values(b: Breaker) -> dict[str, Any]:
    """Everything a transition writes (runtime settings and the cached value have their own writes)."""
    return {
        "state": int(b.state),
        "failure_count": b.failure_count,
        "generation": b.generation,
        "forced": b.forced,
        "probes": b.probes,
        "has_cached": b.has_cached,
        "cached": b.cached,
        "open_time": b.open_time,
        "last_failure_time": b.last_failure_time,
        "last_success_time": b.last_success_time,
        "update_time": b.update_time,
    }


class SqlBreakerRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes
        self._insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    def _announce(self, conn: Connection, key: str) -> None:
        if self.changes is not None:
            self.changes.bump(conn, TOPIC, key)

    # ---- reads -----------------------------------------------------------------------------

    def load_breakers(self) -> list[Breaker]:
        with self.engine.connect() as conn:
            return [_breaker(r) for r in conn.execute(select(*_COLS))]

    def get_breaker(self, key: str) -> Breaker | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(*_COLS).where(col(B.key) == key)).first()
        return _breaker(row) if row is not None else None

    # ---- writes ----------------------------------------------------------------------------

    def _create(self, conn: Connection, b: Breaker) -> bool:
        stmt = (
            self._insert(B)
            .values(
                key=b.key,
                runtime_config=dict(b.runtime_config),
                create_time=b.create_time,
                **_values(b),
            )
            .on_conflict_do_nothing(index_elements=["key"])
            .returning(col(B.key))
        )
        # RETURNING, not rowcount: for an INSERT ... ON CONFLICT built this way the driver reports -1 on
        # PostgreSQL, which read as "created" and announced a change that never happened.
        return conn.execute(stmt).first() is not None

    def create_breakers(self, breakers: Sequence[Breaker]) -> None:
        with self._tx() as conn:
            for b in sorted(breakers, key=lambda b: b.key):  # one lock order across sidecars
                if self._create(conn, b):
                    self._announce(conn, b.key)

    def add_outcomes(
        self, batches: Sequence[OutcomeBatch], decide: Decide
    ) -> list[tuple[Breaker | None, list[BreakerChange]]]:
        results: dict[int, tuple[Breaker | None, list[BreakerChange]]] = {}
        order = sorted(range(len(batches)), key=lambda i: (batches[i].key, batches[i].generation))
        with self._tx() as conn:
            for i in order:
                batch = batches[i]
                if batch.generation == 1:
                    wall = batch.events[0].time
                    self._create(conn, Breaker(batch.key, BreakerConfig(), wall, wall))
                failures = batch.failures()
                values: dict[str, Any] = {
                    "failure_count": failures if batch.reset() else col(B.failure_count) + failures,
                    "update_time": max(e.time for e in batch.events),
                }
                if (t := batch.last_time(Outcome.FAILURE)) is not None:
                    values["last_failure_time"] = t
                if (t := batch.last_time(Outcome.SUCCESS)) is not None:
                    values["last_success_time"] = t
                if (cached := batch.cached()) is not None:
                    values["has_cached"], values["cached"] = True, cached[0]
                row = conn.execute(
                    update(B)
                    .where(
                        col(B.key) == batch.key,
                        col(B.generation) == batch.generation,
                        col(B.state) == int(BreakerState.CLOSED),
                    )
                    .values(**values)
                    .returning(*_COLS)
                ).first()
                if row is None:
                    results[i] = (None, [])
                    continue
                stored = _breaker(row)
                changes = decide(stored, batch)
                if changes:
                    moved = conn.execute(
                        update(B)
                        .where(col(B.key) == batch.key, col(B.generation) == batch.generation)
                        .values(**_values(stored))
                    ).rowcount
                    if not moved:  # cannot happen while the row is locked; never report a change not made
                        raise RuntimeError(f"breaker {batch.key!r} changed under its row lock")
                self._announce(conn, batch.key)
                results[i] = (stored, changes)
        return [results[i] for i in range(len(batches))]

    def transition(self, b: Breaker, expected_generation: int, remember: bool = False) -> bool:
        with self._tx() as conn:
            moved = conn.execute(
                update(B).where(col(B.key) == b.key, col(B.generation) == expected_generation).values(**_values(b))
            ).rowcount
            if moved:
                self._announce(conn, b.key)
                if remember:  # a retried ForceOpen/ForceClose/ResetBreaker gets this answer, moves nothing
                    remember_in_transaction(conn, b, "ForceOpen", "ForceClose", "ResetBreaker")
            return bool(moved)

    def take_probe(self, key: str, generation: int, limit: int) -> bool:
        with self._tx() as conn:
            taken = conn.execute(
                update(B)
                .where(
                    col(B.key) == key,
                    col(B.generation) == generation,
                    col(B.state) == int(BreakerState.HALF_OPEN),
                    col(B.probes) < limit,
                )
                .values(probes=col(B.probes) + 1)
            ).rowcount
            return bool(taken)

    def return_probe(self, key: str, generation: int) -> None:
        with self._tx() as conn:
            conn.execute(
                update(B)
                .where(col(B.key) == key, col(B.generation) == generation, col(B.probes) > 0)
                .values(probes=col(B.probes) - 1)
            )

    def set_runtime_config(self, key: str, runtime: Mapping[str, Any], now: datetime) -> None:
        with self._tx() as conn:
            row = conn.execute(
                update(B)
                .where(col(B.key) == key)
                .values(runtime_config=dict(runtime), update_time=now)
                .returning(*_COLS)
            ).first()
            self._announce(conn, key)
            if row is not None:  # a retried SetBreakerConfig gets this answer (the breaker as stored here)
                remember_in_transaction(conn, _breaker(row), "SetBreakerConfig")
