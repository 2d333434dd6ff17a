"""Concurrent writers share one transaction (a group commit): each caller queues its work, the first to take the
write lock runs every queued piece in order in one transaction and commits once, and each caller gets its own
result. On SQLite with `synchronous=FULL` a commit is an fsync, so sixteen concurrent writes cost one fsync
instead of sixteen; on PostgreSQL one WAL flush.

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
