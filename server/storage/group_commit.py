"""Concurrent writers share one transaction (a group commit): each caller queues its work, the first to take the
write lock runs every queued piece in order in one transaction and commits once, and each caller gets its own
result. On SQLite with `synchronous=FULL` a commit is an fsync, so sixteen concurrent writes cost one fsync
instead of sixteen; on PostgreSQL one WAL flush.

`GroupCommit` runs a function per caller (each writes its own rows); `GroupedCalls` hands the whole group to
one function, which can lock and write each row once for all its callers (budget Consumes: one update of the
global budget's row per group, not per call).

A piece of work is a function of the connection, run in its caller's context (context variables such as the
call's idempotency guard are the caller's, whichever thread runs it). It should return its caller's refusals
as values; anything it raises fails the shared transaction (storage failing, or a retried call's idempotency
record already stored), and then the pieces run again one by one. When a shared transaction
fails (a deadlock between two sidecars' batches, say), nothing of it was committed, and each piece is run
again in a transaction of its own, so one caller's failure is never another's.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Generic, TypeVar

from sqlalchemy import Connection

T = TypeVar("T")
ItemT = TypeVar("ItemT")


class _Work(Generic[T]):
    __slots__ = ("context", "done", "error", "fn", "value")

    def __init__(self, fn: Callable[[Connection], T]) -> None:
        self.fn = fn
        # The caller's context: its work may read context variables (the call's idempotency guard, which
        # storage writes in the same transaction), and another caller's thread may be the one that runs it.
        self.context = contextvars.copy_context()
        self.done = False
        self.value: T | None = None
        self.error: BaseException | None = None


class GroupCommit:
    """`run(fn)` from any thread: `fn(conn)` in a transaction it may share with the other callers of the moment."""

    def __init__(self, transaction: Callable[[], AbstractContextManager[Connection]], max_batch: int = 64) -> None:
        self._transaction = transaction  # a new transaction (committed on a clean exit)
        self._max_batch = max_batch
        self._write_lock = threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_Work[object]] = []
        self.batches = 0  # transactions run for more than one caller (for tests and metrics)

    def run(self, fn: Callable[[Connection], T]) -> T:
        work: _Work[T] = _Work(fn)
        with self._queue_lock:
            self._queue.append(work)  # type: ignore[arg-type]
        while not work.done:
            with self._write_lock:
                if work.done:
                    break  # a batch run by another caller covered it
                with self._queue_lock:
                    batch, self._queue = self._queue[: self._max_batch], self._queue[self._max_batch :]
                if batch:
                    self._commit(batch)
        if work.error is not None:
            raise work.error
        return work.value  # type: ignore[return-value]

    def _commit(self, batch: list[_Work[object]]) -> None:
        try:
            with self._transaction() as conn:
                values = [w.context.run(w.fn, conn) for w in batch]
        except Exception as exc:
            if len(batch) == 1:
                batch[0].error, batch[0].done = exc, True
                return
            for w in batch:  # nothing was committed: each on its own
                self._alone(w)
            return
        if len(batch) > 1:
            self.batches += 1
        for w, value in zip(batch, values, strict=True):
            w.value, w.done = value, True

    def _alone(self, work: _Work[object]) -> None:
        try:
            with self._transaction() as conn:
                work.value = work.context.run(work.fn, conn)
        except Exception as exc:
            work.error = exc
        work.done = True


class _Item(Generic[ItemT, T]):
    __slots__ = ("done", "error", "item", "value")

    def __init__(self, item: ItemT) -> None:
        self.item = item
        self.done = False
        self.value: T | None = None
        self.error: BaseException | None = None


class GroupedCalls(Generic[ItemT, T]):
    """`run(item)` from any thread: the items that arrive while a group is being written go together into the
    next group, and `apply(items)` writes a group in one transaction (locking its rows once, committing once).

    `apply` returns one outcome per item, in order: the item's value, or the exception its caller gets (a
    refusal that concerns that item alone, which the group still commits around). When `apply` raises,
    nothing of the group was committed: an exception of `shared_failures` (storage unavailable) goes to every
    caller of the group; anything else (say an idempotency record an earlier attempt of one call stored) and
    each item is applied again in a group of its own, so one caller's failure is never another's.
    Unlike GroupCommit, `apply` sees the whole group, so it can write each row once for all the items."""

    def __init__(
        self,
        apply: Callable[[list[ItemT]], list[T | BaseException]],
        shared_failures: tuple[type[BaseException], ...],
        max_batch: int = 64,
    ) -> None:
        self._apply = apply
        self._shared_failures = shared_failures
        self._max_batch = max_batch
        self._write_lock = threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_Item[ItemT, T]] = []
        self.groups = 0  # groups written (each one transaction)
        self.grouped = 0  # items written in a group of more than one (for tests and metrics)

    def run(self, item: ItemT) -> T:
        entry: _Item[ItemT, T] = _Item(item)
        with self._queue_lock:
            self._queue.append(entry)
        while not entry.done:
            with self._write_lock:
                if entry.done:
                    break  # a group written by another caller covered it
                with self._queue_lock:
                    group, self._queue = self._queue[: self._max_batch], self._queue[self._max_batch :]
                if group:
                    self._write(group)
        if entry.error is not None:
            raise entry.error
        return entry.value  # type: ignore[return-value]

    def pending(self) -> int:
        """Items queued for the next group (for tests)."""
        with self._queue_lock:
            return len(self._queue)

    def _write(self, group: list[_Item[ItemT, T]]) -> None:
        try:
            outcomes = self._outcomes(group)
        except self._shared_failures as exc:
            for e in group:
                e.error, e.done = exc, True
            return
        except Exception as exc:
            if len(group) == 1:
                group[0].error, group[0].done = exc, True
                return
            for e in group:  # nothing was committed: each in a group of its own
                try:
                    (outcome,) = self._outcomes([e])
                except Exception as alone:
                    outcome = alone
                self._settle(e, outcome)
            return
        if len(group) > 1:
            self.grouped += len(group)
        for e, outcome in zip(group, outcomes, strict=True):
            self._settle(e, outcome)

    def _outcomes(self, group: list[_Item[ItemT, T]]) -> list[T | BaseException]:
        outcomes = self._apply([e.item for e in group])
        self.groups += 1
        if len(outcomes) != len(group):  # committed already: never applied again, every caller told
            wrong = RuntimeError(f"a group of {len(group)} answered {len(outcomes)} outcomes")
            return [wrong] * len(group)
        return outcomes

    @staticmethod
    def _settle(e: _Item[ItemT, T], outcome: T | BaseException) -> None:
        if isinstance(outcome, BaseException):
            e.error = outcome
        else:
            e.value = outcome
        e.done = True
