"""What the decision log's writer could not store yet (server/services/supervisor/decision_log.py): batches
storage refused wait in the local journal (`DecisionJournal`: append-only, fsync'd, under the data dir), or in
memory when the journal is full or absent, and are replayed from there in order and once (rows a crash left
stored are skipped), with a back-off until storage takes them again. While anything waits, newer batches queue
behind it. A full journal is reported in the stats (`journal_full`); what CheckAction then does is the
decision log's (`decision_log.on_journal_full`).

Runs in the writer thread only; the stats are shared with the decision log (under their lock).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.domain.errors import Unavailable
from server.domain.guardrails.decisions import Decision
from server.services.ports import DecisionJournal, DecisionRepository

if TYPE_CHECKING:
    from server.services.supervisor.decision_log import DecisionLogStats
    from server.services.supervisor.settings import DecisionLogSettings

log = logging.getLogger(__name__)

# A batch storage refuses for another reason than being unavailable (a row it will never take) is tried
# this many times, then row by row: the rows it still refuses are counted as failed.
_MAX_REFUSALS = 3


class Backlog:
    def __init__(
        self,
        repo: DecisionRepository,
        settings: DecisionLogSettings,
        stats: DecisionLogStats,
        stored: Callable[[list[Decision], bool], None],
        wake: Callable[[], None],
    ) -> None:
        """`stored(decisions, replayed)` counts and audits a written batch; `wake()` asks the writer for
        another turn at once."""
        self.repo = repo
        self.settings = settings
        self.stats = stats
        self._stored = stored
        self._wake = wake
        self.journal: DecisionJournal | None = None
        self.held: deque[list[Decision]] = deque()  # batches waiting for storage that are not journaled
        self._retry_at = 0.0  # monotonic time of the next replay attempt
        self._retry_backoff = 0.0
        self._refusals = 0  # non-storage refusals of the oldest waiting batch
        # Between two attempts to write what waits for storage: short, so a database that is back is
        # used within a second (an attempt against a database that is down costs one refused connection).
        self.max_retry_backoff = 1.0

    def open(self, journal: DecisionJournal) -> None:
        """Take the journal (at the writer's start): what an earlier run left in it is replayed first."""
        self.journal = journal
        self.count()
        if journal.pending_bytes:
            log.warning(
                "decision log: %d journaled decisions from an earlier run wait for storage", self.stats.journaled
            )
            self._retry_backoff = 0.05

    def close(self) -> None:
        """At shutdown: say what is left (the journal's is replayed at the next start)."""
        if self.held:
            log.error(
                "decision log: %d decisions were neither stored nor journaled at shutdown",
                sum(len(b) for b in self.held),
            )
        if self.journal is not None:
            if self.journal.pending_bytes:
                log.warning("decision log: %d journaled decisions are replayed at the next start", self.stats.journaled)
            self.journal.close()
            self.journal = None

    def due(self) -> bool:
        """Time for the next attempt to write what waits."""
        return time.monotonic() >= self._retry_at

    def refused(self, exc: Exception, decisions: list[Decision]) -> None:
        with self.stats._lock:
            self.stats.storage_ok = False
            self.stats.last_error = f"{type(exc).__name__}: {exc}"[:500]
        # The driver's text (host, port, SQL) is for the log only; callers see a fixed message.
        log.error(
            "decision log: writing %d records failed, they wait for storage: %s (decision ids %s..%s)",
            len(decisions),
            exc,
            decisions[0].decision_id,
            decisions[-1].decision_id,
        )
        self._retry_backoff = min(max(self._retry_backoff * 2, 0.05), self.max_retry_backoff)
        self._retry_at = time.monotonic() + self._retry_backoff

    def waiting(self) -> bool:
        return bool(self.held) or (self.journal is not None and self.journal.pending_bytes > 0)

    def keep(self, decisions: list[Decision]) -> None:
        """Journal a batch storage could not take (in memory when the journal is full or absent)."""
        journal = self.journal
        if journal is not None and not self.held and journal.append(decisions):
            with self.stats._lock:
                self.stats.journaled += len(decisions)
                self.stats.journal_bytes = journal.size_bytes
            return
        if journal is not None and not self.stats.journal_full:
            log.error(
                "decision log: the local journal is full (%d bytes, decision_log.journal_max_bytes); "
                "decision_log.on_journal_full is %s",
                journal.size_bytes,
                self.settings.on_journal_full,
            )
            with self.stats._lock:
                self.stats.journal_full = True
        held = self.stats.held
        if held + len(decisions) > self.settings.queue_size:  # memory is bounded too: these are lost
            with self.stats._lock:
                self.stats.dropped += len(decisions)
            log.error(
                "decision log: %d decisions dropped: neither storage nor the journal can take them", len(decisions)
            )
            return
        self.held.append(decisions)
        with self.stats._lock:
            self.stats.held += len(decisions)

    def count(self) -> None:
        journal = self.journal
        assert journal is not None
        with self.stats._lock:
            self.stats.journaled = journal.pending_records()
            self.stats.journal_bytes = journal.size_bytes

    def replay(self, max_writes: int = 8) -> None:
        """Write what waits for storage, oldest first, each decision once; stop at the first refusal. At
        most `max_writes` writes a turn: the writer goes back to the queue between turns (new decisions
        are journaled behind), so a long journal never fills the queue."""
        journal = self.journal
        for _ in range(max_writes):
            if journal is not None and journal.pending_bytes:
                head = journal.head(self.settings.batch_size)  # several small batches in one write
                if head is None:  # a torn tail was cut off
                    self.count()
                    continue
                batch, offset = head
            elif self.held:
                batch, offset = self.held[0], -1
            else:
                break
            if not self._replay_batch(batch):
                return
            if offset >= 0:
                assert journal is not None
                journal.replayed(offset)
                with self.stats._lock:
                    self.stats.journaled = max(0, self.stats.journaled - len(batch))
                    self.stats.journal_bytes = journal.size_bytes
            else:
                self.held.popleft()
                with self.stats._lock:
                    self.stats.held -= len(batch)
        else:
            if self.waiting():
                self._wake()  # more waits: the next turn comes at once, after the queue
                return
        self._retry_backoff = 0.0
        if self.stats.journal_full:
            log.warning("decision log: storage took every waiting decision; the journal is empty again")
        with self.stats._lock:
            self.stats.journal_full = False
            self.stats.storage_ok = True

    def _replay_batch(self, batch: list[Decision]) -> bool:
        """True once the batch is in storage (rows a crash left stored are not written twice)."""
        try:
            stored = self.repo.by_ids([d.decision_id for d in batch])
            fresh = [d for d in batch if d.decision_id not in stored]
            if fresh:
                self.repo.insert_many(fresh)
        except Unavailable as exc:
            self.refused(exc, batch)
            return False
        except Exception as exc:
            self._refusals += 1
            if self._refusals < _MAX_REFUSALS:
                self.refused(exc, batch)
                return False
            self._refusals = 0
            return self._rows_one_by_one(batch)
        self._refusals = 0
        if fresh:
            self._stored(fresh, True)
        return True

    def _rows_one_by_one(self, batch: list[Decision]) -> bool:
        """A batch storage keeps refusing although it is up: write what it takes, count the rest (False:
        storage went away meanwhile; the batch stays, its stored rows are skipped next time)."""
        for d in batch:
            try:
                if d.decision_id not in self.repo.by_ids([d.decision_id]):
                    self.repo.insert_many([d])
                    self._stored([d], True)
            except Unavailable as exc:
                self.refused(exc, batch)
                return False
            except Exception as exc:
                with self.stats._lock:
                    self.stats.failed += 1
                    self.stats.last_error = f"{d.decision_id}: {type(exc).__name__}: {exc}"[:500]
                log.error("decision log: storage refuses decision %s: %s", d.decision_id, exc)
        return True
