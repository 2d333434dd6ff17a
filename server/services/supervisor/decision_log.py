"""The decision log: every CheckAction outcome, written off the hot path in batches.

A bounded queue between the hot path and a writer thread. When the writer falls behind and the queue is
full, records are dropped and counted (visible in health detail and the log), so a slow disk never slows
an agent.

A decision the writer took is never thrown away: a batch storage refuses goes to the local journal
(`DecisionJournal`: append-only, fsync'd, under the data dir) and is replayed from there, in order and
once (rows already stored are skipped), with a back-off until storage takes it again; while the journal
holds anything, newer batches queue behind it (server/services/supervisor/decision_backlog.py). A journal
that is full (`decision_log.journal_max_bytes`) makes the sidecar refuse new CheckActions
(`decision_log.on_journal_full: block`, the default: fail closed) or answer them with their decisions kept in
memory only (`allow`); health and metrics say which.

It cannot die silently: a record that cannot be turned into a row (or that storage refuses) is counted
as failed, its decision id in the log, and the writer goes on; a writer loop that stops for any reason
is restarted with a back-off, and each stop is reported: `stats.restarts` and `stats.up` (health detail
and metrics), one error log line, an audit record (`decision_log.writer_restarted`), and the gRPC health
of `outrider.decision_log` is NOT_SERVING while it is down (server/bootstrap.py watches `up`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from server.domain.audit_batches import batch_event, per_decision_event
from server.domain.capture import MASKED
from server.domain.capture import capture as captured
from server.domain.errors import InvalidArgument, Unavailable
from server.domain.guardrails import Verdict
from server.domain.guardrails.decisions import SHADOW_FILTERS, Decision, DecisionFilter
from server.domain.values import digest
from server.services.ports import AuditSink, Clock, DecisionJournal, DecisionRepository, Page
from server.services.supervisor.decision_backlog import Backlog
from server.services.supervisor.settings import ON_JOURNAL_FULL, DecisionLogSettings  # noqa: F401  (re-exported)

log = logging.getLogger(__name__)


@runtime_checkable
class _BatchAuditSink(Protocol):
    """A sink that can append many records in one transaction (`AuditTrail.record_many`)."""

    def record_many(self, events: Sequence[tuple[str, str, str, dict[str, Any]]], plain: bool = False) -> None: ...


@dataclass(slots=True)
class _Pending:
    decision_id: str
    agent_id: str
    action: str
    context: Any
    verdict: Verdict
    latency_us: int
    create_time: datetime
    request_id: str
    trace_id: str

    def to_decision(self, capture: tuple[str, ...] | None = None, capture_max_bytes: int = 0) -> Decision:
        """The row; `capture` (the sensitive keys) when contexts are captured, masked and bounded."""
        v = self.verdict
        shadow = v.shadow
        context, truncated = (
            captured(self.context, capture, capture_max_bytes) if capture is not None else (None, False)
        )
        # The digest is computed here, in the writer thread, not on the hot path.
        return Decision(
            self.decision_id,
            self.agent_id,
            self.action,
            digest(self.context),
            v.allowed,
            v.reason,
            v.severity,
            v.guardrail,
            v.warnings,
            self.latency_us,
            self.create_time,
            self.request_id,
            self.trace_id,
            shadow.guardrail if shadow else "",
            shadow.reason if shadow else "",
            shadow.needs_approval if shadow else False,
            context,
            truncated,
        )


@dataclass
class DecisionLogStats:
    written: int = 0
    dropped: int = 0
    failed: int = 0
    last_error: str = ""
    audit_failed: int = 0  # audit records (decisions and drop notices) that could not be appended
    restarts: int = 0  # times the writer loop stopped unexpectedly and was started again
    up: bool = True  # False from a writer stop until it runs again
    journaled: int = 0  # records in the local journal, waiting for storage
    journal_bytes: int = 0  # the journal's size on disk
    journal_full: bool = False  # the journal reached decision_log.journal_max_bytes
    held: int = 0  # records waiting for storage in memory only (the journal was full, or there is none)
    replayed: int = 0  # records written from the journal (or memory) after storage came back
    storage_ok: bool = True  # False from a refused write until a write succeeds
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class DecisionLog:
    def __init__(
        self,
        repo: DecisionRepository,
        clock: Clock,
        settings: DecisionLogSettings,
        audit: AuditSink | None = None,
        sensitive_keys: tuple[str, ...] = (),
        journal: Callable[[], DecisionJournal] | None = None,
    ) -> None:
        """`journal` opens the local journal when the writer starts (None: batches storage refuses wait in
        memory only)."""
        self.repo = repo
        self._open_journal = journal
        # Captured contexts are masked by the audit trail's rules (audit.sensitive_keys), in the writer thread.
        self._capture = tuple(sensitive_keys) if settings.capture == MASKED else None
        self.clock = clock
        self.settings = settings
        self.audit = audit
        self.stats = DecisionLogStats()
        # What storage has not taken yet: the journal, or memory (server/services/supervisor/decision_backlog.py).
        self.backlog = Backlog(repo, settings, self.stats, self._stored, self._wake_writer)
        self._dropped_audited = 0  # drops already reported in the audit trail (writer thread only)
        # A plain deque, not a queue.Queue: appending wakes nobody, so the hot path pays no thread
        # switch; the writer wakes every flush_interval (or when asked) and drains it in batches.
        self._buffer: deque[_Pending] = deque()
        self._wake = threading.Event()
        self._stopping = False
        self._submitted = 0  # appended (hot path thread)
        self._finished = 0  # written, failed or lost (writer thread)
        self._thread: threading.Thread | None = None
        self._last_drop_log = 0.0
        self._in_flight = 0  # records taken from the buffer and not yet finished (writer thread)
        self.max_backoff = 5.0

    def start(self) -> None:
        if self._open_journal is not None and self.backlog.journal is None:
            self.backlog.open(self._open_journal())
        self._thread = threading.Thread(target=self._supervise, name="decision-log", daemon=True)
        self._thread.start()

    def watchdog(self) -> bool:
        """Start the writer again if its thread is gone (True when it had to); called periodically."""
        thread = self._thread
        if thread is None or thread.is_alive() or self._stopping:
            return False
        self._writer_stopped(RuntimeError("the writer thread is gone"))
        self.start()
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """Write what is queued, then stop the writer."""
        if self._thread is None:
            return
        self._stopping = True
        self._wake.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.error("decision log: writer still busy at shutdown; %d records not written", len(self._buffer))
        self._thread = None
        self.backlog.close()

    @property
    def refusing(self) -> bool:
        """True while new CheckActions are refused: the journal is full and `on_journal_full` is block."""
        return self.stats.journal_full and self.settings.on_journal_full == "block"

    def check_accepting(self) -> None:
        """Unavailable (DECISION_LOG_FULL) while the decision log cannot keep a new decision durably."""
        if self.refusing:
            raise Unavailable(
                "the decision log cannot record decisions: storage is unavailable and the local journal is full; retry",
                reason="DECISION_LOG_FULL",
            )

    def submit(
        self,
        decision_id: str,
        agent_id: str,
        action: str,
        context: Any,
        verdict: Verdict,
        latency_us: int,
        request_id: str,
        trace_id: str = "",
    ) -> None:
        pending = _Pending(
            decision_id, agent_id, action, context, verdict, latency_us, self.clock.utcnow(), request_id, trace_id
        )
        if len(self._buffer) < self.settings.queue_size:
            self._buffer.append(pending)
            self._submitted += 1
        else:
            with self.stats._lock:
                self.stats.dropped += 1
                dropped = self.stats.dropped
            now = time.monotonic()
            if now - self._last_drop_log > 5:
                self._last_drop_log = now
                log.warning("decision log queue full: records dropped", extra={"dropped_total": dropped})

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything submitted so far is written (tests, shutdown). False on timeout."""
        target = self._submitted
        self._wake.set()
        deadline = time.monotonic() + timeout
        while self._finished < target:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    @property
    def queued(self) -> int:
        return len(self._buffer)

    def _supervise(self) -> None:
        """The writer thread: the loop, started again whenever it stops for any reason but shutdown."""
        backoff = 0.05
        while True:
            try:
                self._run()
                return  # a requested stop
            except BaseException as exc:
                self._writer_stopped(exc)
            if self._stopping:
                return
            time.sleep(backoff)  # the writer thread's own time: no clock to fake here
            backoff = min(backoff * 2, self.max_backoff)
            with self.stats._lock:
                self.stats.up = True
            log.warning("decision log: writer restarted", extra={"restarts": self.stats.restarts})

    def _writer_stopped(self, exc: BaseException) -> None:
        lost, self._in_flight = self._in_flight, 0
        with self.stats._lock:
            self.stats.restarts += 1
            self.stats.up = False
            self.stats.failed += lost
            self.stats.last_error = f"writer stopped: {type(exc).__name__}: {exc}"[:500]
            restarts = self.stats.restarts
        self._finished += lost
        log.error(
            "decision log: the writer stopped; restarting it",
            exc_info=exc,
            extra={"restarts": restarts, "records_lost": lost},
        )
        if self.audit is not None:
            try:
                self.audit.record(
                    "system",
                    "decision_log.writer_restarted",
                    "decision_log",
                    {"restarts": restarts, "records_lost": lost, "error": f"{type(exc).__name__}: {exc}"[:200]},
                )
            except Exception as audit_exc:
                with self.stats._lock:
                    self.stats.audit_failed += 1
                log.error("decision log: the restart could not be audited: %s", audit_exc)

    def _run(self) -> None:
        s = self.settings
        while True:
            self._wake.wait(s.flush_interval)
            self._wake.clear()
            stopping = self._stopping
            # What was queued at the wake, in batches; what comes meanwhile waits for the next wake unless it
            # fills a batch. A writer that went on with the few records each write let in would commit, and
            # audit, a handful of decisions at a time: 15 per batch under the bench's unary load, not 340.
            due = len(self._buffer)
            while self._buffer and (due > 0 or stopping or len(self._buffer) >= s.batch_size):
                batch: list[_Pending] = []
                while self._buffer and len(batch) < s.batch_size:
                    batch.append(self._buffer.popleft())
                due -= len(batch)
                self._in_flight = len(batch)
                self._write(batch)
                self._in_flight = 0
                self._finished += len(batch)
            if self.backlog.waiting() and (stopping or self.backlog.due()):
                self.backlog.replay()
            if stopping:
                return

    def _write(self, records: list[_Pending]) -> None:
        decisions = []
        for p in records:
            try:
                decisions.append(p.to_decision(self._capture, self.settings.capture_max_bytes))
            except Exception as exc:  # a record that cannot become a row (its context): count it, go on
                with self.stats._lock:
                    self.stats.failed += 1
                    self.stats.last_error = f"{p.decision_id}: {type(exc).__name__}: {exc}"[:500]
                log.error(
                    "decision log: record %s cannot be written: %s: %s",
                    p.decision_id,
                    type(exc).__name__,
                    exc,
                    extra={"decision_id": p.decision_id},
                )
        if not decisions:
            return
        if self.backlog.waiting():  # older decisions wait for storage: this batch goes behind them
            self.backlog.keep(decisions)
            return
        try:
            self.repo.insert_many(decisions)
        except Exception as exc:  # storage refused: keep the batch, retry it with a back-off
            self.backlog.refused(exc, decisions)
            self.backlog.keep(decisions)
        else:
            self._stored(decisions)

    def _stored(self, decisions: list[Decision], replayed: bool = False) -> None:
        with self.stats._lock:
            self.stats.written += len(decisions)
            self.stats.storage_ok = True
            if replayed:
                self.stats.replayed += len(decisions)
        if self.audit is not None:
            self._audit(decisions)

    def _wake_writer(self) -> None:
        self._wake.set()

    def _audit(self, decisions: list[Decision]) -> None:
        """One audit record for the written batch (or one per decision, `audit_records: per_decision`),
        then one for any drops since the last batch, so a gap in the decision log is itself on the
        record. Never raises into the writer loop."""
        assert self.audit is not None
        if self.settings.audit_records == "per_decision":
            events = [per_decision_event(d) for d in decisions]
        else:
            events = [batch_event(decisions)]
        with self.stats._lock:
            dropped_total = self.stats.dropped
        newly_dropped = dropped_total - self._dropped_audited
        if newly_dropped > 0:
            # Queued records were submitted before the ones dropped for lack of room: the notice goes last.
            events.append(
                (
                    "system",
                    "decision_log.dropped",
                    "decision_log",
                    {"count": newly_dropped, "dropped_total": dropped_total},
                )
            )
        try:
            if isinstance(self.audit, _BatchAuditSink):
                # The decision details are scalars the sidecar built itself: no context keys to mask.
                self.audit.record_many(events, plain=True)
            else:
                for actor, action, subject, details in events:
                    self.audit.record(actor, action, subject, details)
        except Exception as exc:
            with self.stats._lock:
                self.stats.audit_failed += len(events)
                self.stats.last_error = f"audit: {type(exc).__name__}: {exc}"[:500]
            log.error("decision log: appending %d audit records failed: %s", len(events), exc)
        else:
            # Only once the notice is stored; otherwise the next batch reports these drops again.
            self._dropped_audited = dropped_total

    def list(self, flt: DecisionFilter, page_size: int, page_token: str) -> Page[Decision]:
        if flt.outcome not in ("", "allowed", "blocked"):
            raise InvalidArgument("outcome must be 'allowed', 'blocked' or empty", field="outcome")
        if flt.shadow_outcome not in SHADOW_FILTERS:
            raise InvalidArgument(
                "shadow_outcome must be 'blocked', 'would_ask', 'none' or empty", field="shadow_outcome"
            )
        return self.repo.list(flt, page_size, page_token)

    def prune(self) -> int:
        s = self.settings
        older = self.clock.utcnow() - timedelta(seconds=s.max_age) if s.max_age else None
        removed = self.repo.prune(older, s.max_rows)
        if removed:
            log.info("decision log pruned", extra={"removed": removed})
        return removed
