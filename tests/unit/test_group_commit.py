"""server/storage/group_commit.py: concurrent writers share one transaction; a shared transaction that fails
commits nothing and each piece runs again alone, so one caller's failure never becomes another's."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from server.storage.group_commit import GroupCommit, GroupedCalls


class Store:
    """A transaction that applies its writes only when it commits."""

    def __init__(self) -> None:
        self.rows: list[str] = []
        self.commits = 0
        self.gate = threading.Event()
        self.gate.set()

    @contextmanager
    def transaction(self) -> Iterator[list[str]]:
        pending: list[str] = []
        yield pending  # type: ignore[misc]
        self.gate.wait(10)
        self.rows.extend(pending)
        self.commits += 1


def write(row: str, fail: bool = False) -> Any:
    def fn(tx: list[str]) -> str:
        if fail:
            raise RuntimeError(f"cannot write {row}")
        tx.append(row)
        return row.upper()

    return fn


def test_callers_that_arrive_while_a_commit_runs_share_the_next_transaction() -> None:
    store = Store()
    group = GroupCommit(store.transaction)  # type: ignore[arg-type]
    store.gate.clear()  # the first commit is held, so the others queue behind it
    first = threading.Thread(target=group.run, args=(write("a"),))
    first.start()
    while store.commits == 0 and not group._write_lock.locked():
        pass
    answers: dict[str, str] = {}
    others = [threading.Thread(target=lambda r=r: answers.__setitem__(r, group.run(write(r)))) for r in "bcdef"]
    for t in others:
        t.start()
    while len(group._queue) < 5:
        pass
    store.gate.set()
    first.join(10)
    for t in others:
        t.join(10)
    assert sorted(store.rows) == list("abcdef")
    assert answers == {r: r.upper() for r in "bcdef"}
    assert store.commits == 2 and group.batches == 1  # a, then b..f together


def test_a_failing_piece_fails_only_its_caller() -> None:
    store = Store()
    group = GroupCommit(store.transaction)  # type: ignore[arg-type]
    store.gate.clear()
    holder = threading.Thread(target=group.run, args=(write("a"),))
    holder.start()
    while not group._write_lock.locked():
        pass
    results: dict[str, Any] = {}

    def call(row: str, fail: bool) -> None:
        try:
            results[row] = group.run(write(row, fail))
        except RuntimeError as exc:
            results[row] = exc

    threads = [threading.Thread(target=call, args=(r, r == "c")) for r in "bcd"]
    for t in threads:
        t.start()
    while len(group._queue) < 3:
        pass
    store.gate.set()
    holder.join(10)
    for t in threads:
        t.join(10)
    assert results["b"] == "B" and results["d"] == "D"
    assert isinstance(results["c"], RuntimeError)
    assert sorted(store.rows) == ["a", "b", "d"]  # the shared attempt committed nothing; b and d alone did


def test_one_caller_alone_gets_its_own_error() -> None:
    group = GroupCommit(Store().transaction)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="cannot write x"):
        group.run(write("x", fail=True))


def test_each_piece_runs_in_its_own_callers_context() -> None:
    """Storage reads the call's idempotency guard from a context variable: a batch run by another caller's
    thread must still see each caller's own."""
    import contextvars

    who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")
    store = Store()
    group = GroupCommit(store.transaction)  # type: ignore[arg-type]
    store.gate.clear()
    seen: dict[str, str] = {}

    def call(name: str) -> None:
        who.set(name)

        def fn(tx: list[str]) -> str:
            seen[name] = who.get()
            return name

        group.run(fn)

    threads = [threading.Thread(target=call, args=(n,)) for n in ("first", "b", "c", "d")]
    threads[0].start()
    while not group._write_lock.locked():
        pass
    for t in threads[1:]:
        t.start()
    while len(group._queue) < 3:
        pass
    store.gate.set()
    for t in threads:
        t.join(10)
    assert seen == {"first": "first", "b": "b", "c": "c", "d": "d"}
    assert group.batches == 1


# ---- GroupedCalls: the whole group to one function --------------------------------------------------------


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.001)


class Ledger:
    """A group writer that commits only when the whole group went through: `apply` adds each item to the
    stored total and answers the running total, refuses negative items alone, and can be held or failed."""

    def __init__(self) -> None:
        self.total = 0
        self.groups: list[list[int]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.fail_with: BaseException | None = None

    def apply(self, items: list[int]) -> list[int | BaseException]:
        self.entered.set()
        self.gate.wait(30)
        if self.fail_with is not None and len(items) > 1:
            raise self.fail_with
        running, out = self.total, []
        for n in items:
            if n < 0:
                out.append(ValueError(f"negative {n}"))
                continue
            running += n
            out.append(running)
        self.total = running  # the commit
        self.groups.append(items)
        return out  # type: ignore[return-value]


class Shared(Exception):
    """Stands for storage being unavailable (nothing committed; every caller of the group is told)."""


def _grouped_run(ledger: Ledger, items: list[int]) -> tuple[GroupedCalls[int, int], dict[int, Any]]:
    """Hold a first group of one (item 0) while `items` queue behind it, then let both go."""
    calls: GroupedCalls[int, int] = GroupedCalls(ledger.apply, (Shared,))
    answers: dict[int, Any] = {}

    def call(i: int, n: int) -> None:
        try:
            answers[i] = calls.run(n)
        except Exception as exc:
            answers[i] = exc

    ledger.gate.clear()
    first = threading.Thread(target=call, args=(-100, 0))
    first.start()
    _until(ledger.entered.is_set, "the first group")
    threads = [threading.Thread(target=call, args=(i, n)) for i, n in enumerate(items)]
    for t in threads:
        t.start()
    _until(lambda: calls.pending() == len(items), "the next group to queue")
    ledger.gate.set()
    for t in [first, *threads]:
        t.join(30)
    return calls, answers


def test_grouped_calls_that_arrive_while_a_group_is_written_go_into_the_next_group() -> None:
    ledger = Ledger()
    calls, answers = _grouped_run(ledger, [5, 7, -1, 11])
    assert len(ledger.groups) == 2 and len(ledger.groups[1]) == 4  # item 0, then the four together
    in_order = ledger.groups[1]  # arrival order is the queue's: each answer is the running total at its place
    running, expected = 0, {}
    for n in in_order:
        if n >= 0:
            running += n
            expected[n] = running
    for i, n in enumerate([5, 7, -1, 11]):
        if n < 0:
            assert isinstance(answers[i], ValueError)  # refused alone; the others committed around it
        else:
            assert answers[i] == expected[n]
    assert ledger.total == 23 and calls.grouped == 4 and calls.groups == 2


def test_a_group_that_fails_with_a_shared_failure_tells_every_caller_and_commits_nothing() -> None:
    ledger = Ledger()
    ledger.fail_with = Shared("storage unavailable")
    calls, answers = _grouped_run(ledger, [1, 2, 3])
    assert [type(answers[i]) for i in range(3)] == [Shared, Shared, Shared]
    assert ledger.total == 0 and ledger.groups == [[0]]  # only the first group (of one) committed
    assert calls.grouped == 0


def test_a_group_that_fails_otherwise_is_applied_again_one_by_one() -> None:
    ledger = Ledger()
    ledger.fail_with = RuntimeError("a record an earlier attempt stored")
    _, answers = _grouped_run(ledger, [1, 2, -3])
    assert all(len(g) == 1 for g in ledger.groups)  # the shared attempt committed nothing; each went alone
    assert sorted(g[0] for g in ledger.groups) == [-3, 0, 1, 2]
    assert isinstance(answers[2], ValueError)  # one caller's refusal stays its own
    assert ledger.total == 3 and sorted([answers[0], answers[1]]) in ([1, 3], [2, 3])
