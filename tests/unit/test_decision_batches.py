"""The decision log's writer writes what was queued when it woke, in batches, and leaves what arrives during
those writes for its next wake (unless it fills a batch): each written batch is one transaction and one
audit record, so a writer that went on with the few records each write let in committed a handful at a time."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from server.adapters.memory import MemoryDecisions
from server.domain.guardrails import Severity, Verdict
from server.domain.guardrails.decisions import Decision
from server.services.supervisor.decision_log import DecisionLog, DecisionLogSettings
from tests.fakes import FakeClock

ALLOW = Verdict(True, "", Severity.INFO, "", ())


class Arriving:
    """The in-memory repository; during its first write, `arrive` more records are submitted (the hot path
    goes on while the writer writes)."""

    def __init__(self, arrive: int) -> None:
        self.inner = MemoryDecisions()
        self.batches: list[int] = []
        self.arrive = arrive
        self.log: DecisionLog | None = None

    def insert_many(self, rows: Sequence[Decision]) -> None:
        if not self.batches and self.log is not None:
            for i in range(self.arrive):
                _submit(self.log, f"late-{i}")
        self.batches.append(len(rows))
        self.inner.insert_many(rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class Parking(threading.Event):
    """The writer's wake-up event, telling each time the writer goes back to waiting for a wake."""

    def __init__(self) -> None:
        super().__init__()
        self.parked = threading.Semaphore(0)

    def wait(self, timeout: float | None = None) -> bool:
        self.parked.release()
        return super().wait(timeout)


def _submit(log: DecisionLog, decision_id: str) -> None:
    log.submit(decision_id, "agent-1", "act", {"n": 1}, ALLOW, 1, "")


def _writer(arrive: int, batch_size: int = 500) -> tuple[DecisionLog, Arriving, Parking]:
    repo = Arriving(arrive)
    # No timed flush within the test: the writer writes when flush() wakes it, or at stop.
    log = DecisionLog(repo, FakeClock(), DecisionLogSettings(flush_interval=3600.0, batch_size=batch_size))
    repo.log = log
    log._wake = parking = Parking()
    log.start()
    assert parking.parked.acquire(timeout=30)  # waiting for its first wake
    return log, repo, parking


def test_records_that_arrive_during_a_write_wait_for_the_next_wake() -> None:
    log, repo, parking = _writer(arrive=3)
    try:
        for i in range(5):
            _submit(log, f"d-{i}")
        log._wake.set()
        assert parking.parked.acquire(timeout=30)  # back to waiting after this wake's writes
        assert repo.batches == [5]  # the 3 that came during the write were not committed on their own
        assert log.queued == 3
        assert log.flush(30)
        assert repo.batches == [5, 3]
    finally:
        log.stop()


def test_arrivals_that_fill_a_batch_are_written_at_once() -> None:
    log, repo, parking = _writer(arrive=4, batch_size=4)
    try:
        for i in range(2):
            _submit(log, f"d-{i}")
        log._wake.set()
        assert parking.parked.acquire(timeout=30)
        assert repo.batches == [2, 4]  # a full batch does not wait
        assert log.queued == 0
    finally:
        log.stop()


def test_stop_writes_everything_queued() -> None:
    log, repo, _ = _writer(arrive=3)
    for i in range(5):
        _submit(log, f"d-{i}")
    log.stop()
    assert repo.batches == [5, 3] and log.stats.written == 8
