"""Calls grouped into one transaction, the whole group handed to one function: the calls that arrive while a
group is being written go together into the next one, and that function can lock and write each row once for
all its callers (budget Consumes: one update of the global budget's row per group, not per call).

Where server/storage/group_commit.py runs one function per caller in a shared transaction, here the group is
the unit: `apply(items)` returns one outcome per item. The caller that finds no group being written writes
the next one (no thread of its own); the others wait, and each is released as soon as the group holding its
item has committed, not after the group behind it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

ItemT = TypeVar("ItemT")
T = TypeVar("T")


class _Entry(Generic[ItemT, T]):
    __slots__ = ("done", "error", "item", "value")

    def __init__(self, item: ItemT) -> None:
        self.item = item
        self.done = False
        self.value: T | None = None
        self.error: BaseException | None = None


class GroupedCalls(Generic[ItemT, T]):
    """`run(item)` from any thread; `apply(items)` writes a group in one transaction (committing once) and
    returns one outcome per item, in order: the item's value, or the exception its caller gets (a refusal
    that concerns that item alone, which the group still commits around).

    When `apply` raises, nothing of the group was committed: an exception of `shared_failures` (storage
    unavailable) goes to every caller of the group; anything else (say an idempotency record an earlier
    attempt of one call stored) and each item is applied again in a group of its own, so one caller's
    failure is never another's."""

    def __init__(
        self,
        apply: Callable[[list[ItemT]], list[T | BaseException]],
        shared_failures: tuple[type[BaseException], ...],
        max_batch: int = 64,
    ) -> None:
        self._apply = apply
        self._shared_failures = shared_failures
        self._max_batch = max_batch
        self._changed = threading.Condition()  # guards the queue and `_writing`; notified after each group
        self._queue: list[_Entry[ItemT, T]] = []
        self._writing = False
        self.groups = 0  # groups committed (each one transaction)
        self.grouped = 0  # items committed in a group of more than one (for tests and metrics)

    def run(self, item: ItemT) -> T:
        entry: _Entry[ItemT, T] = _Entry(item)
        with self._changed:
            self._queue.append(entry)
        while True:
            with self._changed:
                while self._writing and not entry.done:
                    self._changed.wait()
                if entry.done:
                    break
                # No group is being written and this item waits: write the next group (it holds this item,
                # unless more than max_batch were queued ahead of it).
                self._writing = True
                group, self._queue = self._queue[: self._max_batch], self._queue[self._max_batch :]
            try:
                self._write(group)
            finally:
                with self._changed:
                    self._writing = False
                    self._changed.notify_all()
        if entry.error is not None:
            raise entry.error
        return entry.value  # type: ignore[return-value]

    def pending(self) -> int:
        """Items queued for the next group (for tests)."""
        with self._changed:
            return len(self._queue)

    def writing(self) -> bool:
        """A group is being written (for tests)."""
        with self._changed:
            return self._writing

    def _write(self, group: list[_Entry[ItemT, T]]) -> None:
        try:
            outcomes = self._outcomes(group)
        except self._shared_failures as exc:
            for e in group:
                self._settle(e, exc)
            return
        except Exception as exc:
            if len(group) == 1:
                self._settle(group[0], exc)
                return
            for e in group:  # nothing was committed: each in a group of its own
                try:
                    (outcome,) = self._outcomes([e])
                except Exception as alone:
                    outcome = alone
                self._settle(e, outcome)
            return
        except BaseException as exc:  # interrupted: no caller may wait for an answer that never comes
            for e in group:
                if not e.done:
                    self._settle(e, exc)
            raise
        if len(group) > 1:
            self.grouped += len(group)
        for e, outcome in zip(group, outcomes, strict=True):
            self._settle(e, outcome)

    def _outcomes(self, group: list[_Entry[ItemT, T]]) -> list[T | BaseException]:
        outcomes = self._apply([e.item for e in group])
        self.groups += 1
        if len(outcomes) != len(group):  # committed already: never applied again, every caller told
            wrong = RuntimeError(f"a group of {len(group)} answered {len(outcomes)} outcomes")
            return [wrong] * len(group)
        return outcomes

    @staticmethod
    def _settle(e: _Entry[ItemT, T], outcome: T | BaseException) -> None:
        if isinstance(outcome, BaseException):
            e.error = outcome
        else:
            e.value = outcome
        e.done = True
