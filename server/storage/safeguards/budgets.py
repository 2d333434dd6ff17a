"""Token budgets in the database, the fleet's one truth: every change is a delta in one statement
(`used = used + :n ... RETURNING`), a reservation is a conditional update that cannot overspend, and
reservations live in the database (settled or expired by any sidecar).

Each operation is one transaction that locks rows in one order (reservations, then allocations by agent
id, then the global budget, then the change counter), so concurrent sidecars never deadlock. The
warned/stopped flags are decided inside that transaction, while the changed rows are still locked: the
transaction that crosses a threshold is the one that flips the flag, so each signal fires once
fleet-wide. Every change bumps the `budgets` topic (key: the agent id, or `global`) so the other
sidecars' caches reload it.

Consumes are grouped (server/storage/grouped_calls.py): the calls that arrive while a group is
being written share the next transaction, which updates each allocation and the global budget once by the
group's total (same lock order), replays the calls in arrival order to answer each as it would have been
answered alone, bumps each agent's key once and commits once. Without it every Consume in the fleet held
the global budget's row for a transaction of its own.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Row, bindparam, case, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError
from sqlmodel import col

from server.domain.errors import FailedPrecondition, NotFound, PermissionDenied, Unavailable
from server.domain.safeguards.budgets import (
    Allocation,
    BudgetSignal,
    GlobalBudget,
    Priority,
    Reservation,
    ReservationState,
)
from server.services.safeguards.budgets import Change, Evaluate, ReserveOutcome
from server.storage.fleet.changes import ChangeLog
from server.storage.grouped_calls import GroupedCalls
from server.storage.idempotency import remember_in_transaction
from server.storage.safeguards.tables import AllocationRow, GlobalBudgetRow, ReservationRow
from server.storage.supervisor.repository import utc

TOPIC = "budgets"
GLOBAL_KEY = "global"
_EXPIRE_BATCH = 500
_PRUNE_EVERY = timedelta(seconds=60)

A, G, R = AllocationRow, GlobalBudgetRow, ReservationRow
_A_COLS = (
    col(A.agent_id),
    col(A.allocated),
    col(A.priority),
    col(A.allocate_time),
    col(A.update_time),
    col(A.used),
    col(A.reserved),
    col(A.warned),
    col(A.stopped),
    col(A.priority_set),
    col(A.version),
)
_G_COLS = (
    col(G.total),
    col(G.update_time),
    col(G.used),
    col(G.reserved),
    col(G.warned),
    col(G.stopped),
    col(G.source),
    col(G.version),
)
_R_COLS = (
    col(R.reservation_id),
    col(R.agent_id),
    col(R.tokens),
    col(R.create_time),
    col(R.expire_time),
    col(R.request_id),
    col(R.state),
    col(R.actual),
    col(R.end_time),
)


def _alloc(r: Row[Any]) -> Allocation:
    return Allocation(
        r.agent_id,
        int(r.allocated),
        Priority(r.priority),
        utc(r.allocate_time),
        utc(r.update_time),
        int(r.used),
        int(r.reserved),
        bool(r.warned),
        bool(r.stopped),
        bool(r.priority_set),
        int(r.version),
    )


def _glob(r: Row[Any]) -> GlobalBudget:
    return GlobalBudget(
        int(r.total),
        utc(r.update_time),
        int(r.used),
        int(r.reserved),
        bool(r.warned),
        bool(r.stopped),
        r.source,
        int(r.version),
    )


def _reservation(r: Row[Any]) -> Reservation:
    return Reservation(
        r.reservation_id,
        r.agent_id,
        int(r.tokens),
        utc(r.create_time),
        utc(r.expire_time),
        0.0,
        r.request_id,
        ReservationState(r.state),
        None if r.actual is None else int(r.actual),
        utc(r.end_time) if r.end_time else None,
    )


def _minus(column: Any, n: Any) -> Any:
    """`max(0, column - n)` in both dialects (`n` a number or a bind parameter)."""
    return case((column >= n, column - n), else_=0)


# The statements of Consume, Reserve, Settle and expiry, built once: building an UPDATE ... RETURNING and its
# cache key costs more CPU than executing it (Consume went from 6.3 to 1.6 ms of CPU on the bench machine).
_AGENT_DELTA = (
    update(A)
    .where(col(A.agent_id) == bindparam("b_agent"))
    .values(
        used=col(A.used) + bindparam("b_used"),
        reserved=_minus(col(A.reserved), bindparam("b_released")),
        update_time=bindparam("b_now"),
        version=col(A.version) + 1,
    )
    .returning(*_A_COLS)
)
_GLOBAL_DELTA = (
    update(G)
    .where(col(G.name) == GLOBAL_KEY)
    .values(
        used=col(G.used) + bindparam("b_used"),
        reserved=_minus(col(G.reserved), bindparam("b_released")),
        update_time=bindparam("b_now"),
        version=col(G.version) + 1,
    )
    .returning(*_G_COLS)
)
# A group of Consumes: each row once, by the group's total and its number of calls (each call is one version).
_AGENT_ADD = (
    update(A)
    .where(col(A.agent_id) == bindparam("b_agent"))
    .values(
        used=col(A.used) + bindparam("b_used"),
        update_time=bindparam("b_now"),
        version=col(A.version) + bindparam("b_count"),
    )
    .returning(*_A_COLS)
)
_GLOBAL_ADD = (
    update(G)
    .where(col(G.name) == GLOBAL_KEY)
    .values(
        used=col(G.used) + bindparam("b_used"),
        update_time=bindparam("b_now"),
        version=col(G.version) + bindparam("b_count"),
    )
    .returning(*_G_COLS)
)
_READ_AGENT = select(*_A_COLS).where(col(A.agent_id) == bindparam("b_agent"))
_READ_GLOBAL = select(*_G_COLS).where(col(G.name) == GLOBAL_KEY)
# Reserve: hold n when the agent has room, then when the pool has room (or, within a floor, without).
_RESERVE_AGENT = (
    update(A)
    .where(
        col(A.agent_id) == bindparam("b_agent"),
        col(A.allocated) - col(A.used) - col(A.reserved) >= bindparam("b_n"),
    )
    .values(reserved=col(A.reserved) + bindparam("b_n"), update_time=bindparam("b_now"), version=col(A.version) + 1)
    .returning(*_A_COLS)
)
_RESERVE_GLOBAL_ANY = (
    update(G)
    .where(col(G.name) == GLOBAL_KEY)
    .values(reserved=col(G.reserved) + bindparam("b_n"), update_time=bindparam("b_now"), version=col(G.version) + 1)
    .returning(*_G_COLS)
)
_RESERVE_GLOBAL = _RESERVE_GLOBAL_ANY.where(col(G.total) - col(G.used) - col(G.reserved) >= bindparam("b_n"))


@dataclass(frozen=True, slots=True)
class ConsumeCall:
    """One Consume call waiting for its group: what it adds, when, and the caller's context (its idempotency
    guard is a context variable, and the group may be written by another caller's thread)."""

    agent_id: str
    tokens: int
    now: datetime
    evaluate: Evaluate
    context: contextvars.Context


class _Refused(Exception):
    """Leaves a transaction that must not commit (the conditional update found no room)."""


class SqlBudgetLedger:
    def __init__(self, engine: Engine, changes: ChangeLog) -> None:
        self.engine = engine
        self.changes = changes
        self._insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
        self._next_prune = datetime.min.replace(tzinfo=UTC)
        # Consumes that arrive while a group is being written go into the next group: one transaction, each
        # row locked and written once. Storage failing fails the whole group (nothing of it committed).
        self._consumes: GroupedCalls[ConsumeCall, Change] = GroupedCalls(self.consume_group, (Unavailable,))

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as conn:
                yield conn
        except DBAPIError as exc:
            raise Unavailable("token budgets: the database is not available; nothing changed") from exc

    # ---- reads -----------------------------------------------------------------------------

    def load(self) -> tuple[GlobalBudget | None, list[Allocation]]:
        with self._tx() as conn:
            g = conn.execute(select(*_G_COLS).where(col(G.name) == GLOBAL_KEY)).first()
            rows = conn.execute(select(*_A_COLS).order_by(col(A.agent_id))).all()
        return (_glob(g) if g else None), [_alloc(r) for r in rows]

    def read(self, agent_id: str) -> tuple[Allocation | None, GlobalBudget | None]:
        """Both rows (every other sidecar reads them once per change notification)."""
        with self._tx() as conn:
            a = conn.execute(_READ_AGENT, {"b_agent": agent_id}).first()
            g = conn.execute(_READ_GLOBAL).first()
        return (_alloc(a) if a else None), (_glob(g) if g else None)

    def reservation(self, reservation_id: str) -> Reservation | None:
        with self._tx() as conn:
            r = conn.execute(select(*_R_COLS).where(col(R.reservation_id) == reservation_id)).first()
        return _reservation(r) if r else None

    # ---- the global budget -------------------------------------------------------------------

    def init_global(self, total: int, now: datetime) -> GlobalBudget:
        """The file's total, unless SetGlobalBudget set one at runtime (kept across restarts)."""
        with self._tx() as conn:
            conn.execute(
                self._insert(G)
                .values(
                    name=GLOBAL_KEY,
                    total=total,
                    used=0,
                    reserved=0,
                    warned=False,
                    stopped=False,
                    source="config",
                    update_time=now,
                    version=1,
                )
                .on_conflict_do_nothing(index_elements=["name"])
            )
            moved = conn.execute(
                update(G)
                .where(col(G.name) == GLOBAL_KEY, col(G.source) == "config", col(G.total) != total)
                .values(total=total, update_time=now, version=col(G.version) + 1)
                .returning(*_G_COLS)
            ).first()
            if moved is not None:
                self.changes.bump(conn, TOPIC, GLOBAL_KEY)
            g = conn.execute(select(*_G_COLS).where(col(G.name) == GLOBAL_KEY)).one()
        return _glob(g)

    def set_global(self, total: int, now: datetime, evaluate: Evaluate) -> Change:
        with self._tx() as conn:
            row = conn.execute(
                update(G)
                .where(col(G.name) == GLOBAL_KEY)
                .values(total=total, source="runtime", update_time=now, version=col(G.version) + 1)
                .returning(*_G_COLS)
            ).one()
            g = _glob(row)
            signals = evaluate(None, g)
            self._flags(conn, None, None, row, g)
            self.changes.bump(conn, TOPIC, GLOBAL_KEY)
            change = Change(None, g, tuple(signals))
            # A retried SetGlobalBudget gets this answer and never sets the total again over a newer one.
            remember_in_transaction(conn, change, "SetGlobalBudget")
        return change

    # ---- allocations and consumption ------------------------------------------------------------

    def allocate(
        self,
        agent_id: str,
        tokens: int,
        priority: Priority,
        now: datetime,
        evaluate: Evaluate,
        priority_set: bool = False,
    ) -> Change:
        """Set or replace the allocation: its count restarts from zero, its open reservations end
        (CANCELLED) and their tokens return to the pool; the warned/stopped flags carry over."""
        with self._tx() as conn:
            cancelled = conn.execute(
                update(R)
                .where(col(R.agent_id) == agent_id, col(R.state) == ReservationState.OPEN.value)
                .values(state=ReservationState.CANCELLED.value, end_time=now)
                .returning(col(R.tokens))
            ).all()
            held = sum(int(t) for (t,) in cancelled)
            stmt = self._insert(A).values(
                agent_id=agent_id,
                allocated=tokens,
                used=0,
                reserved=0,
                priority=int(priority),
                priority_set=priority_set,
                warned=False,
                stopped=False,
                allocate_time=now,
                update_time=now,
                version=1,
            )
            stmt = stmt.on_conflict_do_update(
                index_elements=["agent_id"],
                set_={
                    "allocated": tokens,
                    "used": 0,
                    "reserved": 0,
                    "priority": int(priority),
                    "priority_set": priority_set,
                    "allocate_time": now,
                    "update_time": now,
                    "version": col(A.version) + 1,
                },
            )
            a_row = conn.execute(stmt.returning(*_A_COLS)).one()
            g_row = conn.execute(
                update(G)
                .where(col(G.name) == GLOBAL_KEY)
                .values(reserved=_minus(col(G.reserved), held), update_time=now, version=col(G.version) + 1)
                .returning(*_G_COLS)
            ).one()
            change = self._settle_flags(conn, agent_id, a_row, g_row, evaluate)
            remember_in_transaction(conn, change)  # a retried Allocate never restarts the count again
            return change

    def consume(self, agent_id: str, tokens: int, now: datetime, evaluate: Evaluate) -> Change:
        """Answered once the group it joined has committed; the answer is what this call alone would have
        got, in the group's arrival order."""
        return self._consumes.run(ConsumeCall(agent_id, tokens, now, evaluate, contextvars.copy_context()))

    def consume_group(self, group: list[ConsumeCall]) -> list[Change | BaseException]:
        """A group of Consumes in one transaction: each call's Change, or the error it alone gets. Each
        allocation (by agent id, the one lock order of every sidecar) then the global budget is updated once
        by the group's total; the calls are then replayed in arrival order from the rows as they were before
        the group, so each call's answer (the counts after it, its signals, its versions) is the one it
        would have had alone, and a threshold crossed inside the group signals once, for the call that
        crossed it. An agent without an allocation gets NO_ALLOCATION and changes nothing; the others
        commit around it."""
        with self._tx() as conn:
            return self._consume_in(conn, group)

    def _consume_in(self, conn: Connection, group: list[ConsumeCall]) -> list[Change | BaseException]:
        calls: dict[str, list[ConsumeCall]] = {}
        for c in group:
            calls.setdefault(c.agent_id, []).append(c)
        rows: dict[str, Row[Any]] = {}
        for agent_id in sorted(calls):
            mine = calls[agent_id]
            params = {"b_agent": agent_id, "b_used": sum(c.tokens for c in mine), "b_count": len(mine)}
            row = conn.execute(_AGENT_ADD, {**params, "b_now": mine[-1].now}).first()
            if row is not None:
                rows[agent_id] = row
        counted = [c for c in group if c.agent_id in rows]
        if not counted:
            return [_no_allocation(c.agent_id) for c in group]
        total = sum(c.tokens for c in counted)
        g_row = conn.execute(_GLOBAL_ADD, {"b_used": total, "b_count": len(counted), "b_now": counted[-1].now}).one()
        # The rows before the group (its updates were deltas on locked rows, so nothing else moved them).
        allocations: dict[str, Allocation] = {}
        for agent_id, row in rows.items():
            before = allocations[agent_id] = _alloc(row)
            before.used -= sum(c.tokens for c in calls[agent_id])
            before.version -= len(calls[agent_id])
        g = _glob(g_row)
        g.used -= total
        g.version -= len(counted)
        out: list[Change | BaseException] = []
        for c in group:
            if (a := allocations.get(c.agent_id)) is None:
                out.append(_no_allocation(c.agent_id))
                continue
            a.used, a.version, a.update_time = a.used + c.tokens, a.version + 1, c.now
            g.used, g.version, g.update_time = g.used + c.tokens, g.version + 1, c.now
            signals = c.evaluate(a, g)  # flips the flags of the running rows, as it would the stored ones
            out.append(Change(a.copy(), g.copy(), tuple(signals)))
        for agent_id in sorted(rows):  # the flags where the group moved them: each row written once more at most
            self._flags(conn, rows[agent_id], allocations[agent_id], None, None)
        self._flags(conn, None, None, g_row, g)
        for agent_id in sorted(rows):
            self.changes.bump(conn, TOPIC, agent_id)
        for c, change in zip(group, out, strict=True):
            if isinstance(change, Change):  # the retry of a lost answer finds it: counted once
                c.context.run(remember_in_transaction, conn, change)
        return out

    # ---- reservations ----------------------------------------------------------------------

    def reserve(
        self,
        reservation: Reservation,
        min_context: Mapping[Priority, int],
        now: datetime,
        evaluate: Evaluate,
    ) -> ReserveOutcome:
        """Hold `reservation.tokens` when both budgets have room (or only the pool is short and the
        amount is within the floor of a priority the agent set explicitly): two conditional updates, no
        overspend possible."""
        n, agent_id = reservation.tokens, reservation.agent_id
        try:
            with self._tx() as conn:
                params = {"b_agent": agent_id, "b_n": n, "b_now": now}
                a_row = conn.execute(_RESERVE_AGENT, params).first()
                if a_row is None:
                    raise _Refused("agent")
                floor = min_context.get(Priority(a_row.priority), 0) if a_row.priority_set else 0
                # beyond the floor (none for an unset priority): the pool must have room
                g_row = conn.execute(_RESERVE_GLOBAL if n > floor else _RESERVE_GLOBAL_ANY, params).first()
                if g_row is None:
                    raise _Refused("global")
                floor_applied = int(g_row.total) - int(g_row.used) - (int(g_row.reserved) - n) < n
                conn.execute(
                    insert(R).values(
                        reservation_id=reservation.reservation_id,
                        agent_id=agent_id,
                        tokens=n,
                        state=ReservationState.OPEN.value,
                        actual=None,
                        request_id=reservation.request_id,
                        create_time=reservation.create_time,
                        expire_time=reservation.expire_time,
                        end_time=None,
                    )
                )
                change = self._settle_flags(conn, agent_id, a_row, g_row, evaluate)
                granted = ReserveOutcome(
                    change, reservation, "", floor_applied, change.allocation, change.global_budget
                )
                remember_in_transaction(conn, granted)  # a retried Reserve holds the tokens once
        except _Refused as refused:
            a, g = self.read(agent_id)
            if a is None:
                raise _no_allocation(agent_id) from None
            return ReserveOutcome(None, None, str(refused), False, a, g)
        return granted

    def settle(
        self, reservation_id: str, actual: int, caller: str | None, now: datetime, evaluate: Evaluate
    ) -> tuple[Change, bool]:
        """End the reservation and consume `actual`; (change, repeated): a repeat with the same actual
        changes nothing."""
        with self._tx() as conn:
            r = conn.execute(select(*_R_COLS).where(col(R.reservation_id) == reservation_id).with_for_update()).first()
            if r is None:
                raise NotFound(f"no reservation has id {reservation_id!r}", field="reservation_id")
            if caller is not None and r.agent_id != caller:
                raise PermissionDenied(
                    f"agent credential {caller!r} may only settle its own reservations",
                    reason="NOT_YOUR_AGENT",
                    field="reservation_id",
                )
            if r.actual is not None:
                if int(r.actual) != actual:
                    raise FailedPrecondition(
                        f"reservation {reservation_id!r} was already settled with actual {r.actual}",
                        reason="ALREADY_SETTLED",
                    )
                a = conn.execute(select(*_A_COLS).where(col(A.agent_id) == r.agent_id)).first()
                g = conn.execute(select(*_G_COLS).where(col(G.name) == GLOBAL_KEY)).one()
                if a is None:
                    raise _no_allocation(r.agent_id)
                return Change(_alloc(a), _glob(g), ()), True
            held = int(r.tokens) if r.state == ReservationState.OPEN.value else 0
            state = ReservationState.SETTLED.value if held else r.state
            conn.execute(
                update(R)
                .where(col(R.reservation_id) == reservation_id)
                .values(state=state, actual=actual, end_time=r.end_time or now)
            )
            a_row = self._agent_delta(conn, r.agent_id, now, used=actual, released=held)
            if a_row is None:
                raise _no_allocation(r.agent_id)
            g_row = self._global_delta(conn, now, used=actual, released=held)
            change = self._settle_flags(conn, r.agent_id, a_row, g_row, evaluate)
            remember_in_transaction(conn, change, "Settle")  # a retried Settle gets this answer
            return change, False

    def expire(self, now: datetime, keep_ended: timedelta, evaluate: Evaluate) -> tuple[int, list[BudgetSignal]]:
        """Open reservations past their time give their tokens back (claimed with SKIP LOCKED, so
        several sidecars' schedulers expire each one once); ended ones older than `keep_ended` go."""
        signals: list[BudgetSignal] = []
        with self._tx() as conn:
            due = conn.execute(
                select(col(R.reservation_id), col(R.agent_id), col(R.tokens))
                .where(col(R.state) == ReservationState.OPEN.value, col(R.expire_time) <= now)
                .order_by(col(R.reservation_id))
                .limit(_EXPIRE_BATCH)
                .with_for_update(skip_locked=True)
            ).all()
            if due:
                conn.execute(
                    update(R)
                    .where(col(R.reservation_id).in_([d.reservation_id for d in due]))
                    .values(state=ReservationState.EXPIRED.value, end_time=now)
                )
                per_agent: dict[str, int] = {}
                for d in due:
                    per_agent[d.agent_id] = per_agent.get(d.agent_id, 0) + int(d.tokens)
                # Every allocation (by agent id), then the global budget once: the lock order of a Consume
                # group, which holds several allocations while it waits for the global budget.
                a_rows = []
                for agent_id in sorted(per_agent):
                    a_row = self._agent_delta(conn, agent_id, now, released=per_agent[agent_id])
                    if a_row is not None:
                        a_rows.append((agent_id, a_row))
                g_row = self._global_delta(conn, now, released=sum(per_agent.values()))
                g = _glob(g_row)
                for agent_id, a_row in a_rows:
                    a = _alloc(a_row)
                    signals += evaluate(a, g)  # a global edge is crossed (and signalled) once, with the first
                    self._flags(conn, a_row, a, None, None)
                    self.changes.bump(conn, TOPIC, agent_id)
                self._flags(conn, None, None, g_row, g)
            if now >= self._next_prune:  # ended reservations are kept for Settle repeats, then go
                self._next_prune = now + _PRUNE_EVERY
                ended = col(R.state) != ReservationState.OPEN.value
                conn.execute(delete(R).where(ended, col(R.end_time) < now - keep_ended))
        return len(due), signals

    # ---- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _agent_delta(
        conn: Connection, agent_id: str, now: datetime, *, used: int = 0, released: int = 0
    ) -> Row[Any] | None:
        params = {"b_agent": agent_id, "b_used": used, "b_released": released, "b_now": now}
        return conn.execute(_AGENT_DELTA, params).first()

    @staticmethod
    def _global_delta(conn: Connection, now: datetime, *, used: int = 0, released: int = 0) -> Row[Any]:
        return conn.execute(_GLOBAL_DELTA, {"b_used": used, "b_released": released, "b_now": now}).one()

    def _settle_flags(
        self, conn: Connection, agent_id: str, a_row: Row[Any], g_row: Row[Any], evaluate: Evaluate
    ) -> Change:
        a, g = _alloc(a_row), _glob(g_row)
        signals = evaluate(a, g)
        self._flags(conn, a_row, a, g_row, g)
        self.changes.bump(conn, TOPIC, agent_id)
        return Change(a, g, tuple(signals))

    @staticmethod
    def _flags(
        conn: Connection,
        a_row: Row[Any] | None,
        a: Allocation | None,
        g_row: Row[Any] | None,
        g: GlobalBudget | None,
    ) -> None:
        """Write the flags `evaluate` changed; the rows are still locked by this transaction."""
        if a_row is not None and a is not None and (bool(a_row.warned), bool(a_row.stopped)) != (a.warned, a.stopped):
            conn.execute(update(A).where(col(A.agent_id) == a.agent_id).values(warned=a.warned, stopped=a.stopped))
        if g_row is not None and g is not None and (bool(g_row.warned), bool(g_row.stopped)) != (g.warned, g.stopped):
            conn.execute(update(G).where(col(G.name) == GLOBAL_KEY).values(warned=g.warned, stopped=g.stopped))


def _no_allocation(agent_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"agent {agent_id!r} has no token allocation; Allocate first", reason="NO_ALLOCATION", field="agent_id"
    )
