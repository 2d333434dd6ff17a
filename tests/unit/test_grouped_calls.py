"""server/storage/grouped_calls.py: calls that arrive while a group is written go together into the next group,
each caller gets its own outcome; a group that fails commits nothing and either tells every caller (a shared
failure: storage unavailable) or applies each item again alone, so one caller's failure is never another's."""

from __future__ import annotations

import threading
import time
from typing import Any

from server.storage.grouped_calls import GroupedCalls


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
        running, out = self.total, list[int | BaseException]()
        for n in items:
            if n < 0:
                out.append(ValueError(f"negative {n}"))
                continue
            running += n
            out.append(running)
        self.total = running  # the commit
        self.groups.append(items)
        return out


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


def test_each_caller_is_answered_when_its_group_commits_not_after_the_next_one() -> None:
    """A caller whose item was in a group another caller wrote returns once that group committed, even when
    a later group is being written by then (it never waits for the writer's turn to end)."""
    ledger = Ledger()
    gates = {n: threading.Event() for n in (2, 99)}  # the groups holding these items wait for them
    entered = {n: threading.Event() for n in (2, 99)}
    apply = ledger.apply

    def holding(items: list[int]) -> list[int | BaseException]:
        for n in gates:
            if n in items:
                entered[n].set()
                gates[n].wait(30)
        return apply(items)

    calls: GroupedCalls[int, int] = GroupedCalls(holding, (Shared,))
    answers: dict[int, Any] = {}

    def call(n: int) -> None:
        answers[n] = calls.run(n)

    ledger.gate.clear()
    threads = {0: threading.Thread(target=call, args=(0,))}
    threads[0].start()
    _until(ledger.entered.is_set, "the first group")
    for n in (1, 2):
        threads[n] = threading.Thread(target=call, args=(n,))
        threads[n].start()
    _until(lambda: calls.pending() == 2, "the second group to queue")
    ledger.gate.set()  # the first group commits; 1 and 2 are the second group, held
    _until(entered[2].is_set, "the second group")
    threads[99] = threading.Thread(target=call, args=(99,))
    threads[99].start()
    _until(lambda: calls.pending() == 1, "the third group to queue")
    gates[2].set()  # the second group commits; 99 is the third, held
    _until(entered[99].is_set, "the third group")
    _until(lambda: {0, 1, 2} <= answers.keys(), "both callers of the second group answered")
    assert calls.writing() and 99 not in answers  # while the third group is still being written
    gates[99].set()
    for t in threads.values():
        t.join(30)
    assert answers[0] == 0 and sorted([answers[1], answers[2]]) in ([1, 3], [2, 3]) and answers[99] == 102
