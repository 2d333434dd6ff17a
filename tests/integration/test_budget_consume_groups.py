"""Budget Consumes grouped into one transaction (server/storage/safeguards/budgets.py `consume_group`) on a real
database, SQLite and PostgreSQL: a group answers each Consume as the same Consumes one by one do (the
in-memory ledger is the reference, and the SQL ledger one call at a time), thresholds crossed inside a group
signal once; Consumes that arrive while a group is written go together into the next one; a group whose
transaction fails applies nothing and tells every one of its callers UNAVAILABLE; a retry whose first attempt
committed (its idempotency record stored) fails alone and changes nothing, its group is counted once."""

from __future__ import annotations

import contextvars
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine

from outrider.v1 import safeguard_service_pb2 as spb
from server.adapters.memory.fleet import MemoryBudgetLedger
from server.domain.errors import FailedPrecondition, StorageUnavailable
from server.domain.safeguards import budgets as rules
from server.domain.safeguards.budgets import Priority, SignalType
from server.services.idempotency import AlreadyRemembered, Guard, guarding
from server.services.safeguards.budgets import BudgetLedger, Change, Evaluate
from server.storage.db import create_db_engine
from server.storage.fleet.changes import ChangeLog
from server.storage.safeguards.budgets import ConsumeCall, SqlBudgetLedger
from tests.integration.harness import RunningSidecar, make_config

T0 = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
WALL = datetime(2026, 12, 5, 8, 1, tzinfo=UTC)
ALLOCATIONS = [("a1", 1_000), ("a2", 500), ("a3", 5_000)]
GLOBAL_TOTAL = 3_000
# Agent thresholds crossed mid-sequence (a1: SIGWARN at 900, SIGSTOP at 1,100; a2: both at 500), agents
# without an allocation between them, and the global budget's SIGWARN (2,701) and SIGSTOP (3,001).
SEQUENCE = [
    ("a1", 400),
    ("ghost", 5),
    ("a2", 100),
    ("a1", 500),
    ("a2", 400),
    ("a1", 200),
    ("ghost-2", 1),
    ("a2", 1),
    ("a3", 1_200),
    ("a3", 300),
    ("a1", 1),
]


def _evaluate(agent_id: str) -> Evaluate:
    return lambda a, g: rules.evaluate(a, g, agent_id, WALL)


def _now(i: int) -> datetime:
    return T0 + timedelta(seconds=1, microseconds=i)


def _set_up(ledger: BudgetLedger) -> None:
    ledger.init_global(GLOBAL_TOTAL, T0)
    for agent_id, tokens in ALLOCATIONS:
        ledger.allocate(agent_id, tokens, Priority.NORMAL, T0, _evaluate(agent_id))


def _outcome(x: Change | BaseException) -> Any:
    if isinstance(x, BaseException):
        assert isinstance(x, FailedPrecondition), x
        return ("refused", x.reason, x.field)
    return x


def _one_by_one(ledger: BudgetLedger) -> list[Any]:
    out = []
    for i, (agent_id, tokens) in enumerate(SEQUENCE):
        try:
            out.append(_outcome(ledger.consume(agent_id, tokens, _now(i), _evaluate(agent_id))))
        except FailedPrecondition as exc:
            out.append(_outcome(exc))
    return out


def _calls() -> list[ConsumeCall]:
    return [
        ConsumeCall(agent_id, tokens, _now(i), _evaluate(agent_id), contextvars.copy_context())
        for i, (agent_id, tokens) in enumerate(SEQUENCE)
    ]


def test_one_group_answers_each_consume_as_the_same_consumes_one_by_one(engine: Engine) -> None:
    reference = MemoryBudgetLedger()
    _set_up(reference)
    expected = _one_by_one(reference)
    ledger = SqlBudgetLedger(engine, ChangeLog(engine, "sc-group"))
    _set_up(ledger)

    got = [_outcome(x) for x in ledger.consume_group(_calls())]

    assert got == expected
    # The sequence is not trivial: refusals, both agents' thresholds and the global ones, once each.
    assert got[1] == ("refused", "NO_ALLOCATION", "agent_id")
    signals = [(s.type, s.is_global, s.agent_id) for x in got if isinstance(x, Change) for s in x.signals]
    assert signals == [
        (SignalType.SIGWARN, False, "a1"),
        (SignalType.SIGWARN, False, "a2"),
        (SignalType.SIGSTOP, False, "a2"),
        (SignalType.SIGSTOP, False, "a1"),
        (SignalType.SIGWARN, True, "a3"),
        (SignalType.SIGSTOP, True, "a3"),
    ]
    assert ledger.load() == reference.load()  # the stored rows: counts, flags, versions, update times


def test_the_sql_ledger_one_call_at_a_time_answers_the_same(engine: Engine) -> None:
    reference = MemoryBudgetLedger()
    _set_up(reference)
    ledger = SqlBudgetLedger(engine, ChangeLog(engine, "sc-alone"))
    _set_up(ledger)
    assert _one_by_one(ledger) == _one_by_one(reference)
    assert ledger.load() == reference.load()


class Hold:
    """Holds the global budget's row from another connection (PostgreSQL: FOR UPDATE; SQLite: the write lock),
    so a group waits inside its transaction while the next callers queue."""

    def __init__(self, engine: Engine) -> None:
        url = engine.url
        self.pg = url.get_backend_name() == "postgresql"
        if self.pg:
            dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
            self.conn: Any = psycopg.connect(dsn)
            self.conn.execute("SELECT used FROM safeguard_global_budget FOR UPDATE")
        else:
            self.conn = sqlite3.connect(str(url.database), timeout=30, isolation_level=None)
            self.conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        if self.pg:
            self.conn.rollback()
        else:
            self.conn.execute("ROLLBACK")
        self.conn.close()


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Callers:
    """Consume calls on threads of their own; each one's answer or error by index."""

    def __init__(self, ledger: SqlBudgetLedger) -> None:
        self.ledger = ledger
        self.answers: dict[int, Change | BaseException] = {}
        self.threads: list[threading.Thread] = []

    def start(self, i: int, agent_id: str, tokens: int, guard: Guard | None = None) -> None:
        def call() -> None:
            try:
                with guarding(guard) if guard is not None else nullcontext():
                    self.answers[i] = self.ledger.consume(agent_id, tokens, _now(i), _evaluate(agent_id))
            except Exception as exc:
                self.answers[i] = exc

        t = threading.Thread(target=call)
        self.threads.append(t)
        t.start()

    def join(self) -> None:
        for t in self.threads:
            t.join(60)
        assert not any(t.is_alive() for t in self.threads)


def test_consumes_that_arrive_while_a_group_is_written_share_the_next_one(engine: Engine) -> None:
    ledger = SqlBudgetLedger(engine, ChangeLog(engine, "sc-queue"))
    ledger.init_global(10**9, T0)
    ledger.allocate("q1", 1_000, Priority.NORMAL, T0, _evaluate("q1"))
    ledger.allocate("q2", 1_000, Priority.NORMAL, T0, _evaluate("q2"))
    callers = Callers(ledger)
    hold = Hold(engine)
    try:
        callers.start(0, "q1", 10)  # the first group, of one: it waits for the held row
        _until(lambda: ledger._consumes.pending() == 0 and ledger._consumes.writing(), "the first group")
        for i in range(1, 9):  # these queue behind it: the next group
            callers.start(i, ("q1", "q2", "nobody")[i % 3], 10 * i)
        _until(lambda: ledger._consumes.pending() == 8, "eight queued calls")
    finally:
        hold.release()
    callers.join()
    assert ledger._consumes.groups == 2 and ledger._consumes.grouped == 8
    a = callers.answers
    for i in (2, 5, 8):
        assert isinstance(a[i], FailedPrecondition) and a[i].reason == "NO_ALLOCATION"  # type: ignore[union-attr]
    changes = {i: c for i, c in a.items() if isinstance(c, Change)}
    # Each answer is the running total at its place in the group: all different, the last one the total.
    q1 = sorted(c.allocation.used for c in changes.values() if c.allocation and c.allocation.agent_id == "q1")
    q2 = sorted(c.allocation.used for c in changes.values() if c.allocation and c.allocation.agent_id == "q2")
    glob = sorted(c.global_budget.used for c in changes.values())
    assert len(set(q1)) == 3 and q1[-1] == 10 + 30 + 60  # calls 0, 3, 6
    assert len(set(q2)) == 3 and q2[-1] == 10 + 40 + 70  # calls 1, 4, 7
    assert len(set(glob)) == 6 and glob[-1] == q1[-1] + q2[-1]
    stored, allocations = ledger.load()
    assert stored is not None and stored.used == glob[-1]
    assert [(x.agent_id, x.used) for x in allocations] == [("q1", q1[-1]), ("q2", q2[-1])]


def test_a_group_whose_transaction_fails_applies_nothing_and_tells_every_caller(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("the failure is a PostgreSQL backend ended mid-transaction")
    ledger = SqlBudgetLedger(engine, ChangeLog(engine, "sc-fail"))
    ledger.init_global(10**9, T0)
    ledger.allocate("f1", 10**6, Priority.NORMAL, T0, _evaluate("f1"))
    acknowledged = ledger.consume("f1", 1, _now(0), _evaluate("f1")).allocation
    assert acknowledged is not None and acknowledged.used == 1
    dsn = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    ended: list[int] = []

    def waiting() -> list[int]:
        with psycopg.connect(dsn, autocommit=True) as admin:
            rows = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = %s",
                (engine.url.database,),
            ).fetchall()
        return [int(r[0]) for r in rows]

    def end_the_waiting_group() -> None:
        _until(lambda: len(waiting()) == 1, "a group waiting for the held row")
        (pid,) = waiting()
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        ended.append(pid)

    callers = Callers(ledger)
    hold = Hold(engine)
    try:
        callers.start(1, "f1", 10)  # a group of one, waiting for the held row
        _until(lambda: ledger._consumes.pending() == 0 and ledger._consumes.writing(), "the first group")
        for i in (2, 3, 4):
            callers.start(i, "f1", 100 * i)
        _until(lambda: ledger._consumes.pending() == 3, "three queued calls")
        end_the_waiting_group()  # the first group fails; the three queued ones become the next group
        _until(lambda: ledger._consumes.pending() == 0, "the next group")
        end_the_waiting_group()  # one backend ended: the whole group of three fails
        callers.join()
    finally:
        hold.release()
    assert len(ended) == 2
    assert all(isinstance(callers.answers[i], StorageUnavailable) for i in (1, 2, 3, 4)), callers.answers
    # Nothing of the failed groups was applied; what was acknowledged, before and after, is all there is.
    after = ledger.consume("f1", 5, _now(9), _evaluate("f1"))
    assert after.allocation is not None and (after.allocation.used, after.global_budget.used) == (6, 6)
    stored, allocations = ledger.load()
    assert stored is not None and stored.used == 6 and [a.used for a in allocations] == [6]


def _guard(request_id: str) -> Guard:
    """The idempotency guard of a Consume call with a request id (what the interceptor sets up)."""
    return Guard(
        key=f"consume-{request_id}".ljust(64, "0"),
        method="/outrider.v1.SafeguardService/Consume",
        caller="agent:g1",
        request_digest="0" * 64,
        when=T0,
        render=lambda change: f"used {change.allocation.used}".encode(),
    )


def test_a_retry_whose_first_attempt_committed_fails_alone_and_its_group_still_commits(engine: Engine) -> None:
    """A retried Consume whose record is stored already (its first attempt committed) rolls its group back;
    the group is then applied one call at a time: the retry gets AlreadyRemembered (the interceptor answers
    the stored reply) and changes nothing, the others are counted once."""
    ledger = SqlBudgetLedger(engine, ChangeLog(engine, "sc-retry"))
    ledger.init_global(10**9, T0)
    ledger.allocate("g1", 10**6, Priority.NORMAL, T0, _evaluate("g1"))
    first = _guard("r-1")
    with guarding(first):
        assert ledger.consume("g1", 5, _now(0), _evaluate("g1")).allocation.used == 5  # type: ignore[union-attr]
    assert first.written and first.answer == b"used 5"
    callers = Callers(ledger)
    hold = Hold(engine)
    try:
        callers.start(1, "g1", 10)  # a group of one, waiting for the held row
        _until(lambda: ledger._consumes.pending() == 0 and ledger._consumes.writing(), "the first group")
        callers.start(2, "g1", 100)
        callers.start(3, "g1", 5, _guard("r-1"))  # the retry
        callers.start(4, "g1", 1_000, later := _guard("r-2"))
        _until(lambda: ledger._consumes.pending() == 3, "three queued calls")
    finally:
        hold.release()
    callers.join()
    a = callers.answers
    assert isinstance(a[3], AlreadyRemembered)
    assert all(isinstance(a[i], Change) for i in (1, 2, 4))
    assert later.written and later.answer == f"used {a[4].allocation.used}".encode()  # type: ignore[union-attr]
    stored, allocations = ledger.load()
    assert stored is not None and stored.used == 5 + 10 + 100 + 1_000 and [x.used for x in allocations] == [1_115]


def test_concurrent_consume_calls_over_grpc_all_wait_in_the_next_group(tmp_path: Path, db_url: str) -> None:
    """Over gRPC, each Consume waits for its group on a thread of the Consume pool, not of the event loop's
    default executor (cpu_count + 4 threads, 6 on two cores): twenty calls that arrive while a group is
    being written are all in the next one, so twenty Consumes cost two transactions."""
    with RunningSidecar(make_config(tmp_path, db_url=db_url)) as s:
        s.safeguard.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=10**9))
        s.safeguard.Allocate(spb.AllocateRequest(agent_id="grpc-1", tokens=10**6))
        calls = s.services.budgets.ledger._consumes
        groups = calls.groups
        engine = create_db_engine(db_url)
        hold = Hold(engine)
        with ThreadPoolExecutor(20) as pool:
            try:
                answers = [pool.submit(s.safeguard.Consume, spb.ConsumeRequest(agent_id="grpc-1", tokens=1))]
                _until(lambda: calls.pending() == 0 and calls.writing(), "the first group")
                answers += [
                    pool.submit(s.safeguard.Consume, spb.ConsumeRequest(agent_id="grpc-1", tokens=1)) for _ in range(19)
                ]
                _until(lambda: calls.pending() == 19, "nineteen calls queued behind it")
            finally:
                hold.release()
            used = sorted(f.result(60).allocation.used for f in answers)
        engine.dispose()
        assert used == list(range(1, 21)) and calls.groups - groups == 2
