"""server/storage/group_commit.py: concurrent writers share one transaction; a shared transaction that fails
commits nothing and each piece runs again alone, so one caller's failure never becomes another's."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from server.storage.group_commit import GroupCommit


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
