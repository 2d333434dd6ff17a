"""Delivering the outbox: a worker claims due rows, sends each through its channel, records the outcome.

Rows are written by the features whose events cause them, in the same transaction (see planner.py), so a
crash never loses one; a row claimed by a worker that dies is claimed again after `claim_timeout`, so a
notification is delivered at least once, and duplicates are rare and carry the same event id. Sending
happens on the worker's own threads, one channel per thread: a channel that hangs or fails for ever
delays only its own rows, never CheckAction, a decision or the other channels.

The worker wakes every `poll_interval` (one indexed query for due rows) and at once when this process
writes a notification (`wake()`); a PostgreSQL NOTIFY from other sidecars can call `wake()` the same way.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from server.domain.approvals.requests import Approval
from server.domain.errors import FailedPrecondition, NotFound
from server.domain.notifications.delivery import (
    DeliveryState,
    Notification,
    NotificationFilter,
    after_failure,
    after_success,
)
from server.domain.notifications.events import EventKind
from server.services.notifications.planner import NotificationPlanner
from server.services.notifications.ports import DeliveryFailed, NotificationRepository, Sender, SlackMessages
from server.services.notifications.settings import NotificationSettings
from server.services.ports import AuditSink, Clock, Page
from server.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

BATCH = 50
SEND_THREADS = 4
EXPIRY_SCAN_INTERVAL = 10.0  # seconds between looks for requests about to expire
PRUNE_INTERVAL = 3600.0
PRUNE_JOB = "notifications-prune"


class NotificationService:
    def __init__(
        self,
        repo: NotificationRepository,
        clock: Clock,
        settings: NotificationSettings,
        senders: Mapping[str, Sender],
        planner: NotificationPlanner,
        audit: AuditSink,
        *,
        pending_approvals: Callable[[], Sequence[Approval]] | None = None,
        single_process: bool = False,
        metrics: Metrics | None = None,
        jitter: Callable[[], float] = random.random,
        claim: Callable[[str, float], bool] | None = None,
        slack_messages: SlackMessages | None = None,
    ) -> None:
        self.repo = repo
        self.slack_messages = slack_messages  # pruned with the outbox, after the same retention
        # `claim(job_id, every)`: True when this sidecar claimed the period of a job done once fleet-wide
        # (FleetJobs.due); None: this process alone does it.
        self.claim = claim
        self.clock = clock
        self.settings = settings
        self.senders = dict(senders)
        self.planner = planner
        self.audit = audit
        self.pending_approvals = pending_approvals
        self.single_process = single_process
        self.metrics = metrics or Metrics()
        self.jitter = jitter
        self.worker_id = "w_" + secrets.token_hex(6)
        self._warned: set[tuple[str, int]] = set()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool = ThreadPoolExecutor(max_workers=SEND_THREADS, thread_name_prefix="notify-send")

    # ---- delivering ------------------------------------------------------------------------

    def deliver_due(self, limit: int = BATCH) -> int:
        """One pass: claim what is due, send it (channels in parallel), record each outcome. Returns how
        many rows were claimed."""
        now = self.clock.utcnow()
        claimed = self.repo.claim(now, now + timedelta(seconds=self.settings.claim_timeout), self.worker_id, limit)
        by_channel: dict[str, list[Notification]] = {}
        for n in claimed:
            by_channel.setdefault(n.channel, []).append(n)
        for future in [self._pool.submit(self._send_all, rows) for rows in by_channel.values()]:
            future.result()
        return len(claimed)

    def _send_all(self, rows: list[Notification]) -> None:
        for n in rows:
            self._send(n)

    def _send(self, n: Notification) -> None:
        sender = self.senders.get(n.channel)
        try:
            if sender is None:
                raise DeliveryFailed(f"no channel named {n.channel!r} in notifications.channels", final=True)
            sender.send(n.document)
        except DeliveryFailed as exc:
            done = after_failure(n, exc.message, self.clock.utcnow(), self.settings.retry, self.jitter(), exc.final)
        except Exception as exc:  # a sender bug must not stop the worker; the row shows it
            log.exception("notification sender failed", extra={"channel": n.channel})
            done = after_failure(n, f"{type(exc).__name__}: {exc}", self.clock.utcnow(), self.settings.retry, 0.5)
        else:
            done = after_success(n, self.clock.utcnow())
        if not self.repo.finish(done, self.worker_id):
            log.warning("notification claim expired before its outcome was recorded", extra={"id": n.notification_id})
            return
        outcome = {DeliveryState.DELIVERED: "delivered", DeliveryState.FAILED: "failed"}.get(done.state, "retry")
        self.metrics.notification_attempt(n.channel, outcome)
        extra = {"id": n.notification_id, "channel": n.channel, "kind": n.kind, "attempts": n.attempts}
        if done.state is DeliveryState.DELIVERED:
            log.info("notification delivered", extra=extra)
        elif done.state is DeliveryState.FAILED:
            log.warning("notification failed for good", extra={**extra, "error": done.last_error})
        else:
            log.info("notification will be retried", extra={**extra, "error": done.last_error})

    def warn_expiring(self) -> int:
        """Write `approval.expiring` for timed requests within the lead time of expiring (once per stage;
        the event id makes it once across sidecars too)."""
        lead = self.settings.expiry_lead_time
        if lead is None or self.pending_approvals is None:
            return 0
        now = self.clock.utcnow()
        rows: list[Notification] = []
        pending = self.pending_approvals()
        self._warned &= {(a.approval_id, a.stage) for a in pending}  # forget the closed ones
        for a in pending:
            key = (a.approval_id, a.stage)
            if a.expire_time is None or key in self._warned or not (a.expire_time - timedelta(seconds=lead) <= now):
                continue
            self._warned.add(key)
            if now < a.expire_time:
                rows.extend(self.planner.for_approval(EventKind.APPROVAL_EXPIRING, a, now))
        if rows:
            self.repo.add(rows)
        return len(rows)

    # ---- the worker ----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None or not self.settings.enabled:
            return
        if self.single_process:  # SQLite: a claim at start-up belongs to a process that died
            released = self.repo.release_claims(self.clock.utcnow())
            if released:
                log.info("notifications claimed by a previous run are due again", extra={"count": released})
        self._thread = threading.Thread(target=self._run, name="notify-worker", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Deliver soon: something was just written to the outbox (callable from any thread)."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def prune(self) -> int:
        """Forget delivered and failed notifications older than `retention` (pending ones stay), and the Slack
        messages posted that long ago (a decision taken later no longer updates them)."""
        before = self.clock.utcnow() - timedelta(seconds=self.settings.retention)
        removed = self.repo.prune(before)
        if self.slack_messages is not None:
            removed += self.slack_messages.prune(before)
        if removed:
            log.info("old notifications pruned", extra={"count": removed})
        return removed

    def _run(self) -> None:
        last_scan = last_prune = float("-inf")
        # Claimed, the prune is tried a few times a period so whichever sidecar comes first does it.
        prune_every = PRUNE_INTERVAL if self.claim is None else PRUNE_INTERVAL / 4
        while not self._stop.is_set():
            self._wake.clear()
            try:
                now = self.clock.monotonic()
                # Reading every pending request is not for every poll: the lead time is minutes.
                if now - last_scan >= EXPIRY_SCAN_INTERVAL:
                    last_scan = now
                    self.warn_expiring()
                if now - last_prune >= prune_every:
                    last_prune = now
                    if self.claim is None or self.claim(PRUNE_JOB, PRUNE_INTERVAL):
                        self.prune()
                while self.deliver_due() == BATCH and not self._stop.is_set():
                    pass
            except Exception:
                if self._stop.is_set():
                    return  # shutting down: the send pool is gone; what was claimed is claimed again later
                log.exception("notification worker pass failed; trying again")
            self._wake.wait(self.settings.poll_interval)

    # ---- reading and retrying ---------------------------------------------------------------

    def list(self, flt: NotificationFilter, page_size: int = 0, page_token: str = "") -> Page[Notification]:
        return self.repo.list(flt, page_size, page_token)

    def get(self, notification_id: str) -> Notification:
        found = self.repo.get(notification_id)
        if found is None:
            raise NotFound(f"no notification has id {notification_id!r}", field="notification_id")
        return found

    def counts(self) -> dict[DeliveryState, int]:
        return self.repo.counts()

    def retry(self, notification_id: str, actor: str) -> Notification:
        """Give a FAILED notification one more attempt, now (a failure leaves it FAILED again)."""
        current = self.get(notification_id)
        if current.state is not DeliveryState.FAILED:
            raise FailedPrecondition(f"notification {notification_id} is {current.state.value}, not FAILED")
        found = self.repo.retry(notification_id, self.clock.utcnow())
        assert found is not None
        self.audit.record(actor, "notification.retry", notification_id, {"channel": found.channel})
        self.wake()
        return found
