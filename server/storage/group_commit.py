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

With a `linger`, the caller that takes the write lock waits, at most `linger` and at most half as long as the
last commit took, until as many pieces are queued as the last batch had plus those that queued while it ran:
callers answered by one commit tend to come back together (a lease holder answered with its grant releases
it a round trip later). Without the wait the first of them to come back commits alone, and with a wait for
the last batch's size only, two halves that alternate stay split for good.
Bounded by the commit's own time, the wait costs little on a slow disk, where grouping pays most, and
little on a fast one, where a commit is cheap anyway.
"""

from __future__ import annotations

import contextvars
import threading
import time
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

    def __init__(
        self,
        transaction: Callable[[], AbstractContextManager[Connection]],
        max_batch: int = 64,
        linger: float = 0.0,
    ) -> None:
        self._transaction = transaction  # a new transaction (committed on a clean exit)
        self._max_batch = max_batch
        self._linger = linger
        self._write_lock = threading.Lock()
        self._queue_lock = threading.Lock()
        self._arrived = threading.Condition(self._queue_lock)
        self._queue: list[_Work[object]] = []
        self._expect = 1  # pieces awaited (for at most `linger`) before a commit; see `run`
        self._took = 0.0  # how long the last commit took
        self.batches = 0  # transactions run for more than one caller (for tests and metrics)

    def run(self, fn: Callable[[Connection], T]) -> T:
        work: _Work[T] = _Work(fn)
        with self._queue_lock:
            self._queue.append(work)  # type: ignore[arg-type]
            self._arrived.notify()
        while not work.done:
            with self._write_lock:
                if work.done:
                    break  # a batch run by another caller covered it
                with self._queue_lock:
                    if self._linger > 0 and len(self._queue) < self._expect:
                        deadline = time.monotonic() + min(self._linger, self._took / 2)
                        while len(self._queue) < self._expect and (left := deadline - time.monotonic()) > 0:
                            self._arrived.wait(left)
                    batch, self._queue = self._queue[: self._max_batch], self._queue[self._max_batch :]
                if batch:
                    started = time.monotonic()
                    self._commit(batch)
                    self._took = time.monotonic() - started
                    with self._queue_lock:
                        # Those it answered come back, and those that queued meanwhile are there: together.
                        self._expect = min(self._max_batch, len(batch) + len(self._queue))
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
