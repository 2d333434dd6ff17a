"""The decision log's journal on the in-memory decision repository: a batch storage refuses is journaled and
replayed in order, once; a journal from a killed process is replayed at start; a torn last line and rows a
crash left stored are handled; a full journal refuses (block) or answers (allow)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from server.adapters.decision_journal import FileDecisionJournal
from server.adapters.memory import MemoryDecisions
from server.domain.errors import StorageUnavailable, Unavailable
from server.domain.guardrails import Severity, Verdict
from server.domain.guardrails.decisions import Decision
from server.services.supervisor.decision_log import DecisionLog, DecisionLogSettings
from tests.fakes import FakeClock

ALLOW = Verdict(True, "", Severity.INFO, "", ())


class Flaky:
    """The in-memory repository, unavailable while `down`."""

    def __init__(self) -> None:
        self.inner = MemoryDecisions()
        self.down = False

    def insert_many(self, rows: Sequence[Decision]) -> None:
        if self.down:
            raise StorageUnavailable()
        self.inner.insert_many(rows)

    def by_ids(self, ids: Sequence[str]) -> dict[str, Decision | None]:
        if self.down:
            raise StorageUnavailable()
        return self.inner.by_ids(ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def ids(self) -> list[str]:
        return [d.decision_id for _, d in self.inner.rows]


def _log(tmp: Path, repo: Flaky, **settings: Any) -> DecisionLog:
    s = DecisionLogSettings(flush_interval=0.01, **settings)
    log = DecisionLog(repo, FakeClock(), s, journal=lambda: FileDecisionJournal(tmp, s.journal_max_bytes))
    log.backlog.max_retry_backoff = 0.05
    return log


def _submit(log: DecisionLog, *ids: str) -> None:
    for i in ids:
        log.submit(i, "agent-1", "act", {"n": 1}, ALLOW, 1, "")
        assert log.flush(10)


def _wait(predicate: Any) -> None:
    import time

    deadline = time.monotonic() + 30
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def test_refused_batches_are_journaled_then_replayed_in_order_once(tmp_path: Path) -> None:
    repo = Flaky()
    log = _log(tmp_path, repo)
    log.start()
    try:
        _submit(log, "d-1")
        repo.down = True
        _submit(log, "d-2", "d-3", "d-4")
        assert log.stats.journaled == 3 and not log.stats.storage_ok
        repo.down = False
        _submit(log, "d-5")  # behind the journaled ones, never before them
        _wait(lambda: log.stats.journaled == 0 and len(repo.ids()) == 5)
        assert repo.ids() == ["d-1", "d-2", "d-3", "d-4", "d-5"]
        assert log.stats.replayed == 4 and log.stats.failed == 0 and log.stats.storage_ok
    finally:
        log.stop()


def test_a_journal_left_by_a_killed_process_is_replayed_at_start_skipping_stored_rows(tmp_path: Path) -> None:
    repo = Flaky()
    log = _log(tmp_path, repo)
    log.start()
    repo.down = True
    _submit(log, "k-1", "k-2", "k-3")
    assert log.stats.journaled == 3
    # "Killed": the writer is not asked to stop; only the journal's lock goes with the process.
    log._stopping = True
    log._wake.set()
    assert log._thread is not None
    log._thread.join(10)
    journal = log.backlog.journal
    assert isinstance(journal, FileDecisionJournal)
    path = journal.path
    journal.close()
    journaled = _read(path)
    with path.open("ab") as f:  # a write torn by the kill: never fsync'd, never acknowledged
        f.write(b'[{"decision_id": "torn')
    repo.down = False
    repo.inner.insert_many([d for d in journaled if d.decision_id == "k-1"])  # stored before the crash
    again = _log(tmp_path, repo)
    again.start()
    try:
        _wait(lambda: os.path.getsize(path) == 0)  # replayed, the torn tail cut: the file starts over
        assert sorted(repo.ids()) == ["k-1", "k-2", "k-3"]  # k-1 once
        assert again.stats.journaled == 0
    finally:
        again.stop()


def _read(path: Path) -> list[Decision]:
    import json

    from server.adapters.decision_journal import from_record

    return [from_record(r) for line in path.read_bytes().splitlines() if line for r in json.loads(line)]


@pytest.mark.parametrize("on_full", ["block", "allow"])
def test_a_full_journal_refuses_or_answers(tmp_path: Path, on_full: str) -> None:
    repo = Flaky()
    log = _log(tmp_path, repo, journal_max_bytes=1200, on_journal_full=on_full)
    log.start()
    try:
        repo.down = True
        for n in range(10):
            _submit(log, f"f-{n}")
        assert log.stats.journal_full and log.stats.held > 0
        if on_full == "block":
            assert log.refusing
            with pytest.raises(Unavailable) as refused:
                log.check_accepting()
            assert refused.value.reason == "DECISION_LOG_FULL"
        else:
            assert not log.refusing
            log.check_accepting()
        repo.down = False
        # The writer clears the full flag after the replay's last write: wait for both.
        _wait(
            lambda: (
                len(repo.ids()) == 10
                and log.stats.held == 0
                and log.stats.journaled == 0
                and not log.stats.journal_full
                and not log.refusing
            )
        )
        assert repo.ids() == [f"f-{n}" for n in range(10)]
    finally:
        log.stop()


def test_a_long_journal_is_replayed_in_turns_and_the_log_says_when_it_is_done(tmp_path: Path) -> None:
    repo = Flaky()
    log = _log(tmp_path, repo, batch_size=1, journal_max_bytes=4000)  # one decision a write: many turns
    log.start()
    try:
        repo.down = True
        names = [f"t-{n:02d}" for n in range(32)]  # four whole turns of eight writes
        _submit(log, *names)
        assert log.stats.journal_full  # the last ones wait in memory
        repo.down = False
        _wait(lambda: len(repo.ids()) == 32 and not log.stats.journal_full)
        assert repo.ids() == names and log.stats.journaled == 0 and log.stats.held == 0
        assert log.stats.storage_ok and not log.refusing
    finally:
        log.stop()
