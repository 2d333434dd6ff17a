"""Approval requests: create or re-attach, wait without a thread, decide, expire, cancel (also those nobody
waits for any more, marked when their last waiting call went away).

State lives in storage (a restart, even SIGKILL, loses no request and no decision). Waiters are asyncio
futures on the sidecar's event loop; a decision in this process wakes them at once, and one taken by
another process (a separate console, another sidecar) is seen by `poll()` within its interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from server.domain.approvals import requests as rules
from server.domain.approvals.requests import Approval, ApprovalFilter, Reviewer
from server.domain.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    StorageUnavailable,
    Unavailable,
)
from server.domain.guardrails.base import ActionCall
from server.domain.guardrails.hitl import Hitl
from server.domain.masking import mask
from server.domain.notifications.delivery import Notification
from server.domain.notifications.events import EventKind
from server.services.fleet.ports import ChangeFeed
from server.services.ports import AuditSink, Clock, Page
from server.services.recovery.agents import AgentService
from server.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

TOPIC = "approvals"  # the change-feed topic: keys are approval ids

_RETRIES = 8
INTAKE_BATCH = 500  # approval requests created in one transaction at most
INTAKE_THREAD = "approval-intake"  # the name of the intake's own writer thread


DEFAULT_ABANDONED_AFTER = 60.0  # `approvals.abandoned_after`
REASSERT_AT_MOST_EVERY = 15.0  # seconds between two clears of stale marks on the requests waited on here
ATTEND_AT_MOST_EVERY = 1.0  # seconds between two ticks of `attend` and `cancel_abandoned`

_MAX_UNANSWERED = 10_000  # consumptions whose answer was lost, remembered at most (oldest forgotten first)
_MAX_ATTEMPTS_KEPT = 64  # of one approval's lost consumptions (a call retried through an outage): the newest


class _Ask:
    """One approval request waiting for the intake's next group commit."""

    __slots__ = ("attempt", "call", "digest", "guardrail", "request_id", "result", "trace_id", "warnings")

    def __init__(
        self,
        call: ActionCall,
        guardrail: Hitl,
        request_id: str,
        trace_id: str,
        warnings: tuple[tuple[str, str], ...],
        digest: str = "",
    ) -> None:
        self.call, self.guardrail, self.request_id, self.trace_id = call, guardrail, request_id, trace_id
        self.warnings = warnings
        # CheckAction has computed it already: a canonical JSON and a SHA-256 per request, not three.
        self.digest = digest or rules.approval_digest(call.action, call.context)
        self.attempt = 0
        self.result: Approval | BaseException | None = None


# The notifications an approval event causes (services/notifications/planner.py), written by the
# repository in the same transaction as the change itself.
ApprovalNotices = Callable[[EventKind, Approval, datetime], Sequence[Notification]]


class ApprovalRepository(Protocol):
    def insert(self, approval: Approval, outbox: Sequence[Notification] = ()) -> bool: ...

    def insert_many(self, items: Sequence[tuple[Approval, Sequence[Notification]]]) -> list[bool]:
        """Like `insert` for each, in one transaction when none is a duplicate (group commit)."""
        ...

    def update(self, approval: Approval, expected_version: int, outbox: Sequence[Notification] = ()) -> bool: ...

    def mark_consumed(self, approval_id: str, when: Any) -> bool: ...

    def get(self, approval_id: str) -> Approval | None: ...

    def get_many(self, approval_ids: Sequence[str]) -> dict[str, Approval]: ...

    def find_attach(self, agent_id: str, request_id: str, digest: str) -> Approval | None: ...

    def find_attach_many(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], Approval]:
        """`find_attach` for each (agent, request id, digest) key, in a few queries; keys without a match are
        left out."""
        ...

    def versions(self, approval_ids: Iterable[str]) -> dict[str, int]:
        """The row version of each request that exists."""
        ...

    def pending(self, agent_id: str = "") -> list[Approval]: ...

    def count_pending(self, agent_id: str) -> int: ...

    def due(self, now: Any) -> list[Approval]: ...

    def mark_abandoned(self, approval_ids: Iterable[str], when: datetime) -> int:
        """Mark these pending requests abandoned at `when` (an existing mark stands)."""
        ...

    def clear_abandoned(self, approval_ids: Iterable[str]) -> int:
        """Remove the abandonment mark of these pending requests."""
        ...

    def abandoned(self, cutoff: datetime) -> list[Approval]:
        """Pending requests marked abandoned at `cutoff` or before."""
        ...

    def cancel_abandoned(
        self, approval: Approval, expected_version: int, cutoff: datetime, outbox: Sequence[Notification] = ()
    ) -> bool:
        """`update`, only while the request is still marked abandoned at `cutoff` or before (and pending)."""
        ...

    def version(self) -> int:
        """A counter every change moves, new requests included."""
        ...

    def update_version(self) -> int:
        """A counter every change to an existing request moves (not new requests)."""
        ...

    def list(self, flt: ApprovalFilter, page_size: int, page_token: str) -> Page[Approval]: ...


class ApprovalService:
    def __init__(
        self,
        repo: ApprovalRepository,
        clock: Clock,
        audit: AuditSink,
        agents: AgentService,
        sensitive_keys: Sequence[str],
        metrics: Metrics | None = None,
        changes: ChangeFeed | None = None,
        notices: ApprovalNotices | None = None,
        max_pending_per_agent: int = 100,
        abandoned_after: float = DEFAULT_ABANDONED_AFTER,
    ) -> None:
        # `approvals.max_pending_per_agent`: an agent cannot fill storage (and the reviewers' queue) with
        # requests; counted in storage, the truth in a fleet (a race can overshoot by the agent's in-flight cap).
        self.max_pending_per_agent = max_pending_per_agent
        # `approvals.abandoned_after`: a request whose last waiting call went away, and that nobody re-attached
        # to for this long, is cancelled (see "Abandoned requests" below).
        self.abandoned_after = abandoned_after
        self.metrics = metrics or Metrics()  # time to decision and timeouts, counted where they happen
        self.notices = notices
        self.repo = repo
        self.clock = clock
        self.audit = audit
        self.agents = agents
        self.sensitive_keys = tuple(sensitive_keys)
        self._lock = threading.Lock()
        self._waiters: dict[str, set[asyncio.Future[Approval]]] = {}
        # The version this process last saw of each watched request: `poll` reads only the rows' versions
        # and fetches (and wakes) just the requests that changed, not every waiting one.
        self._known: dict[str, int] = {}
        self._unread: set[str] = set()  # see `_watch_unread`
        # CheckActions of this process waiting on each pending request (a stream's request and a unary
        # re-attach are two); the requests whose last waiter here went away, to be marked abandoned by `attend`.
        self._held: dict[str, int] = {}
        self._left: set[str] = set()
        self._reasserted = float("-inf")  # when `attend` last cleared marks on the requests waited on here
        # Consumptions whose commit's answer was lost (storage went away during it): approval id -> the times
        # those attempts wrote (a call retried through an outage may lose several; at most one committed). A
        # later call for the same approval that finds one of them stored gets the allowed answer no call was
        # given (`mark_consumed`). Bounded; this process's only.
        self._unanswered: dict[str, list[datetime]] = {}
        self._seen_version = -1
        self._listeners: list[Callable[[], None]] = []
        # Group commit of new requests (`request_async`): asks queued on the event loop, written by one
        # flusher at a time, every ask queued meanwhile in the next transaction.
        self._intake: list[tuple[_Ask, asyncio.Future[Approval]]] = []
        self._flushing = False
        # The intake writes on its own thread, one batch at a time: a burst of requests never takes the
        # event loop's default executor, which every other RPC's storage work (`asyncio.to_thread`) shares.
        self._intake_executor: ThreadPoolExecutor | None = None
        if changes is not None:
            # A decision taken on another sidecar wakes the waiting call within milliseconds (NOTIFY);
            # `poll()` stays as the fallback when notifications do not flow.
            changes.subscribe(TOPIC, self._changed_elsewhere, self._resync)

    @property
    def intake_executor(self) -> ThreadPoolExecutor:
        if self._intake_executor is None:
            self._intake_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=INTAKE_THREAD)
        return self._intake_executor

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Called (on the changing thread, so keep it quick) after every change made in this process."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            try:
                listener()
            except Exception:
                log.exception("approval change listener failed")

    # ---- asking ----------------------------------------------------------------------------

    def request(
        self,
        call: ActionCall,
        guardrail: Hitl,
        request_id: str,
        trace_id: str,
        warnings: tuple[tuple[str, str], ...],
    ) -> Approval:
        """The request for this call: the existing one when the agent retries (same request id and
        digest), a new one otherwise. Reviewers never see duplicates: concurrent identical requests are one
        (a unique index). An approval already used is returned as it is (the caller answers "already used"),
        unless the guardrail says `on_reuse: ask_again`: then a new request is opened."""
        ask = _Ask(call, guardrail, request_id, trace_id, warnings)
        self._request_many([ask])
        if isinstance(ask.result, BaseException):
            raise ask.result
        if ask.result is None:
            raise Unavailable("the approval request was not written; try again")
        return ask.result

    async def request_async(
        self,
        call: ActionCall,
        guardrail: Hitl,
        request_id: str,
        trace_id: str,
        warnings: tuple[tuple[str, str], ...],
        digest: str = "",
    ) -> Approval:
        """`request`, group-committed: asks arriving while a transaction is being written are written
        together in the next one (one commit, one audit append for up to INTAKE_BATCH requests), on the
        intake's own thread (`intake_executor`). Call on the event loop. `digest`: the call's
        `approval_digest`, when the caller has it."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        self._intake.append((_Ask(call, guardrail, request_id, trace_id, warnings, digest), future))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().create_task(self._flush_intake())
        return await future

    async def _flush_intake(self) -> None:
        try:
            while self._intake:
                batch, self._intake = self._intake[:INTAKE_BATCH], self._intake[INTAKE_BATCH:]
                try:
                    await asyncio.get_running_loop().run_in_executor(
                        self.intake_executor, self._request_many, [ask for ask, _ in batch]
                    )
                except BaseException as exc:  # storage down: every ask of the batch gets the error
                    for ask, _ in batch:
                        if ask.result is None:
                            ask.result = exc
                for ask, future in batch:
                    if future.done():  # the CheckAction was cancelled meanwhile
                        continue
                    if isinstance(ask.result, BaseException):
                        future.set_exception(ask.result)
                    elif ask.result is not None:
                        future.set_result(ask.result)
                    else:
                        future.set_exception(Unavailable("the approval request was not written; try again"))
        finally:
            self._flushing = False

    def _request_many(self, asks: Sequence[_Ask]) -> None:
        """Create or re-attach every ask (setting `ask.result`), the new requests in one transaction.
        Per ask: one indexed lookup when it has a request id; per agent in the batch: one pending count
        (bounded by `max_pending_per_agent`); per batch: one insert transaction and one audit append."""
        fresh: list[_Ask] = []
        # One query per agent for the whole batch: a lookup per ask cost a query each.
        attach = self.repo.find_attach_many(
            (ask.call.agent_id, ask.request_id, ask.digest) for ask in asks if ask.request_id
        )
        revived: list[str] = []
        for ask in asks:
            if ask.request_id:
                existing = attach.get((ask.call.agent_id, ask.request_id, ask.digest))
                if existing is not None:
                    if not (existing.used and ask.guardrail.policy.on_reuse == "ask_again"):
                        if existing.abandoned_at is not None and not existing.closed:
                            existing = replace(existing, abandoned_at=None)  # someone is back for it
                            revived.append(existing.approval_id)
                        ask.result = existing
                        continue
                    ask.attempt = existing.attempt + 1
            fresh.append(ask)
        if revived:
            # A re-attach (any sidecar) clears the mark before the job can cancel the request.
            self.repo.clear_abandoned(revived)
        counts: dict[str, int] = {}
        same: dict[tuple[str, str, str, int], Approval] = {}  # identical asks in this batch: one request
        new: list[tuple[_Ask, Approval]] = []
        for ask in fresh:
            agent_id = ask.call.agent_id
            key = (agent_id, ask.request_id, ask.digest, ask.attempt)
            if ask.request_id and key in same:
                continue  # given the request of its twin once that one is written (_attach_duplicates)
            if agent_id not in counts:
                counts[agent_id] = self.repo.count_pending(agent_id)
            waiting = counts[agent_id]
            if waiting >= self.max_pending_per_agent:
                ask.result = ResourceExhausted(
                    f"agent {agent_id!r} already has {waiting} approval requests pending "
                    f"(approvals.max_pending_per_agent: {self.max_pending_per_agent})",
                    reason="TOO_MANY_PENDING_APPROVALS",
                )
                continue
            counts[agent_id] = waiting + 1
            approval = rules.new_approval(
                approval_id="apr_" + secrets.token_hex(8),
                agent_id=agent_id,
                action=ask.call.action,
                context=ask.call.context,
                stored_context=mask(dict(ask.call.context), self.sensitive_keys),
                guardrail=ask.guardrail.name,
                request_id=ask.request_id,
                trace_id=ask.trace_id,
                policy=ask.guardrail.policy,
                owner=self.agents.owner_of(agent_id),
                warnings=ask.warnings,
                now=self.clock.utcnow(),
                attempt=ask.attempt,
                digest=ask.digest,
            )
            if ask.request_id:
                same[key] = approval
            new.append((ask, approval))
        if not new:
            self._attach_duplicates(asks, same)
            return
        inserted = self.repo.insert_many([(a, self._outbox(EventKind.APPROVAL_CREATED, a)) for _, a in new])
        created: list[Approval] = []
        for (ask, approval), ok in zip(new, inserted, strict=True):
            if ok:
                ask.result = approval
                created.append(approval)
                continue
            # An identical request won the race (another CheckAction, maybe another sidecar): that one.
            winner = self.repo.find_attach(ask.call.agent_id, ask.request_id, ask.digest)
            ask.result = winner or Unavailable("the approval request is being created concurrently; try again")
            key = (ask.call.agent_id, ask.request_id, ask.digest, ask.attempt)
            if winner is not None and ask.request_id:
                same[key] = winner
            else:
                same.pop(key, None)
        self._attach_duplicates(asks, same)
        if not created:
            return
        self._changed()
        events = [
            (
                f"agent:{a.agent_id}",
                "approval.create",
                a.approval_id,
                {
                    "action": a.action,
                    "guardrail": a.guardrail,
                    "digest": a.digest,
                    "request_id": a.request_id,
                    # Stored once: the approval row holds the (masked) context; its digest binds this record to it.
                    "context_ref": f"approvals/{a.approval_id}",
                },
            )
            for a in created
        ]
        record_many = getattr(self.audit, "record_many", None)
        if record_many is not None and len(events) > 1:
            record_many(events)
        else:
            for actor, action, subject, details in events:
                self.audit.record(actor, action, subject, details)
        for a in created:
            log.info(
                "approval requested",
                extra={
                    "approval_id": a.approval_id,
                    "agent_id": a.agent_id,
                    "action": a.action,
                    "guardrail": a.guardrail,
                },
            )

    @staticmethod
    def _attach_duplicates(asks: Sequence[_Ask], same: Mapping[tuple[str, str, str, int], Approval]) -> None:
        """Asks identical to one created (or found) in this batch get that request."""
        for ask in asks:
            if ask.result is None and ask.request_id:
                found = same.get((ask.call.agent_id, ask.request_id, ask.digest, ask.attempt))
                if found is not None:
                    ask.result = found

    async def wait(
        self, approval_id: str, current: Approval | None = None, *, pending_version: int | None = None
    ) -> Approval:
        """Until the request is closed. Holds no thread. A cancelled call leaves the request pending; when it
        was the last call of this process waiting on it, the request is marked abandoned (`attend`), and
        cancelled once nobody re-attached for `abandoned_after` (`cancel_abandoned`).
        `current`: the request as just created or read, which saves reading it again (a change made between
        that read and the registration is seen by the next `poll`, within its 250 ms). `pending_version`:
        instead of `current` when it is pending, its version alone, so that a waiting call holds no copy of
        the request (its context lives in the stored row)."""
        if current is not None:
            if current.closed:
                return current
            pending_version = current.version
            del current
        if pending_version is None:
            return await self.wait_change(approval_id, -1)  # returns only a closed request
        with self._lock:
            self._held[approval_id] = self._held.get(approval_id, 0) + 1
        answered = False
        try:
            while True:
                approval = await self._wait_pending(approval_id, pending_version)
                if approval.closed:
                    answered = True
                    return approval
                pending_version = approval.version  # a vote, an escalation: still pending
                del approval
        finally:
            with self._lock:
                left = self._held[approval_id] - 1
                if left:
                    self._held[approval_id] = left
                else:
                    del self._held[approval_id]
                    if not answered:  # the last waiter here went away with the request unanswered
                        self._left.add(approval_id)

    async def _wait_pending(self, approval_id: str, version: int) -> Approval:
        """The request once it changes from the pending `version` this process just read or wrote."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiters.setdefault(approval_id, set()).add(future)
            self._watch_unread(approval_id, version)
        try:
            return await future
        finally:
            self._unwatch(approval_id, future)

    async def wait_change(self, approval_id: str, seen_version: int, current: Approval | None = None) -> Approval:
        """The request as soon as its version differs from `seen_version` (at once if it already does)."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiters.setdefault(approval_id, set()).add(future)
            if current is not None:
                self._watch_unread(approval_id, current.version)
        try:
            # Registered first, read second: a change in between is never missed.
            if current is None:
                current = await asyncio.to_thread(self.get, approval_id)
                with self._lock:
                    if approval_id in self._waiters:
                        self._known[approval_id] = max(self._known.get(approval_id, -1), current.version)
            if current.version != seen_version and (seen_version != -1 or current.closed):
                return current
            while True:
                approval = await future
                if approval.version != seen_version and (seen_version != -1 or approval.closed):
                    return approval
                future = asyncio.get_running_loop().create_future()
                with self._lock:
                    self._waiters.setdefault(approval_id, set()).add(future)
                    self._watch_unread(approval_id, approval.version)
        finally:
            self._unwatch(approval_id, future)

    def _unwatch(self, approval_id: str, future: asyncio.Future[Approval]) -> None:
        with self._lock:
            waiting = self._waiters.get(approval_id)
            if waiting is not None:
                waiting.discard(future)
                if not waiting:
                    del self._waiters[approval_id]
            if approval_id not in self._waiters:
                self._known.pop(approval_id, None)
                self._unread.discard(approval_id)

    def _watch_unread(self, approval_id: str, version: int) -> None:
        """A waiter registered on a version it did not read after registering (under `_lock`): the next
        `poll` reads this row's version whatever the change counter says, so a change made just before the
        registration is not missed."""
        self._known[approval_id] = max(self._known.get(approval_id, -1), version)
        self._unread.add(approval_id)

    def waiting_count(self) -> int:
        with self._lock:
            return sum(len(w) for w in self._waiters.values())

    def _notify(self, approval: Approval) -> None:
        """Wake this process's waiters (callable from any thread)."""
        self._changed()
        with self._lock:
            futures = list(self._waiters.pop(approval.approval_id, ()))
            self._known.pop(approval.approval_id, None)
        for future in futures:
            # A closed loop means the sidecar is shutting down: nobody is left to wake.
            with contextlib.suppress(RuntimeError):
                future.get_loop().call_soon_threadsafe(_resolve, future, approval)

    def _changed_elsewhere(self, approval_id: str) -> None:
        with self._lock:
            watched = approval_id in self._waiters
        if watched and (approval := self.repo.get(approval_id)) is not None:
            self._notify(approval)

    def _resync(self) -> None:
        self._seen_version = -1
        self.poll()

    def poll(self) -> None:
        """See changes made by other processes (one tiny read when nothing changed)."""
        with self._lock:
            watched = {i: self._known.get(i, -1) for i in self._waiters}
            unread = self._unread & watched.keys()
        if not watched:
            return
        # New requests cannot wake a waiting call: only changes to existing ones move this counter.
        version = self.repo.update_version()
        if version != self._seen_version:
            self._seen_version = version
        elif not unread:
            return
        else:
            watched = {i: watched[i] for i in unread}
        # Only the rows whose version moved: a burst of new requests bumps the counter on every batch, and
        # reading and waking every waiting request each time cost work in proportion to all of them.
        rows = self.repo.versions(watched)
        changed = [i for i, v in rows.items() if v != watched[i]]
        with self._lock:
            self._unread -= unread
        for approval in self.repo.get_many(changed).values():
            self._notify(approval)

    # ---- deciding --------------------------------------------------------------------------

    def decide(
        self,
        approval_id: str,
        reviewer: Reviewer,
        approve: bool,
        comment: str,
        edited_context: Mapping[str, Any] | None = None,
    ) -> Approval:
        if edited_context is not None and not isinstance(edited_context, Mapping):
            raise InvalidArgument("edited_context must be a JSON object", field="edited_context")
        changed = self._change(
            approval_id, lambda a: rules.decide(a, reviewer, approve, comment, edited_context, self.clock.utcnow())
        )
        what = {rules.ApprovalState.APPROVED: "approval.approve", rules.ApprovalState.REJECTED: "approval.reject"}
        self.audit.record(
            f"reviewer:{reviewer.name}",
            what.get(changed.state, "approval.vote"),
            approval_id,
            {
                "approve": approve,
                "comment": comment,
                "state": changed.state.name,
                "edited": edited_context is not None,
                "digest": changed.digest,
            },
        )
        log.info(
            "approval decided",
            extra={
                "approval_id": approval_id,
                "reviewer": reviewer.name,
                "approve": approve,
                "state": changed.state.name,
            },
        )
        return changed

    def cancel(self, approval_id: str, actor: str, reason: str) -> Approval:
        changed = self._change(approval_id, lambda a: rules.cancel(a, actor, reason, self.clock.utcnow()))
        self.audit.record(actor, "approval.cancel", approval_id, {"reason": reason})
        return changed

    def cancel_agent(self, agent_id: str, actor: str, reason: str) -> int:
        """Cancel every pending request of an agent (the kill switch calls this)."""
        count = 0
        for approval in self.repo.pending(agent_id):
            try:
                self.cancel(approval.approval_id, actor, reason)
                count += 1
            except FailedPrecondition:
                pass  # decided meanwhile
        return count

    def expire_due(self) -> int:
        """Close or escalate every timed request whose time has come."""
        now = self.clock.utcnow()
        changed = 0
        for approval in self.repo.due(now):
            new = rules.expire_or_escalate(approval, now)
            if new is None:
                continue
            kind = EventKind.APPROVAL_ESCALATED if new.stage > approval.stage else EventKind.APPROVAL_EXPIRED
            if not self.repo.update(new, approval.version, self._outbox(kind, new)):
                continue  # another sidecar got there first
            changed += 1
            self.metrics.approval_closed(new)
            action = "approval.escalate" if new.stage > approval.stage else "approval.expire"
            self.audit.record(
                "system", action, approval.approval_id, {"approvers": list(new.approvers), "state": new.state.name}
            )
            log.info(action.replace(".", " "), extra={"approval_id": approval.approval_id})
            self._notify(new)
        return changed

    # ---- abandoned requests -----------------------------------------------------------------
    #
    # The mark is in storage (`abandoned_at`), so every sidecar sees it:
    # - the last CheckAction of a sidecar waiting on a pending request goes away unanswered (cancelled,
    #   deadline, lost connection, a stream cancelled or broken): `attend` marks it, within one tick;
    # - a re-attach (the same request id, on any sidecar, blocking or not) clears the mark in `_request_many`;
    # - every `reassert_every` seconds each sidecar clears the marks of the requests its live calls wait on,
    #   so a mark made on A after B's re-attach (A's stream broke later) is gone within that bound;
    # - `cancel_abandoned` (every sidecar, every tick) cancels what has been marked for `abandoned_after`:
    #   one conditional statement per request, so one sidecar wins and a clear that committed first wins.
    # Bound: a request is cancelled at least `abandoned_after` after its last waiter left (plus a tick); a
    # request some call still waits on is never cancelled unless the sidecar of that call could not reach
    # storage (or was frozen) for `abandoned_after - reassert_every` after a stale mark was written.

    @property
    def reassert_every(self) -> float:
        return min(self.abandoned_after / 4, REASSERT_AT_MOST_EVERY)

    @property
    def attend_every(self) -> float:
        """The period of `attend` and `cancel_abandoned`."""
        return min(self.abandoned_after / 4, ATTEND_AT_MOST_EVERY)

    def held(self, approval_id: str) -> int:
        """CheckActions of this process waiting on the request."""
        with self._lock:
            return self._held.get(approval_id, 0)

    def attend(self) -> int:
        """This sidecar's part: mark the requests its last waiter left (unless one came back meanwhile), and
        every `reassert_every` clear the marks on those its calls wait on. The marks written."""
        with self._lock:
            left = [i for i in self._left if i not in self._held]
            self._left.clear()
            due = self.clock.monotonic() - self._reasserted >= self.reassert_every
            live = list(self._held) if due else []
        marked = 0
        if left:
            try:
                marked = self.repo.mark_abandoned(left, self.clock.utcnow())
            except Exception:
                with self._lock:  # tried again at the next tick
                    self._left.update(left)
                raise
            log.info("approvals abandoned", extra={"approval_ids": left[:20], "count": len(left)})
        if due:
            if live:
                self.repo.clear_abandoned(live)
            self._reasserted = self.clock.monotonic()
        return marked

    def mark_left_at_stop(self) -> None:
        """At shutdown, after the server cancelled the calls still waiting: mark their requests (the agents
        re-attach elsewhere, which clears the marks, or the requests are cancelled as abandoned)."""
        try:
            self.attend()
        except StorageUnavailable:
            log.warning("approvals whose waiting calls the shutdown ended were not marked: storage unavailable")

    def cancel_abandoned(self) -> int:
        """Cancel every request marked abandoned for `abandoned_after` (safe on every sidecar at once)."""
        now = self.clock.utcnow()
        cutoff = now - timedelta(seconds=self.abandoned_after)
        cancelled = 0
        for approval in self.repo.abandoned(cutoff):
            if self.held(approval.approval_id):
                self.repo.clear_abandoned([approval.approval_id])  # a call here waits on it: a stale mark
                continue
            new = rules.abandoned_cancel(approval, now, self.abandoned_after)
            if new is None or not self.repo.cancel_abandoned(new, approval.version, cutoff):
                continue  # re-attached, decided or cancelled by another sidecar meanwhile
            cancelled += 1
            self.metrics.approval_closed(new)
            self.audit.record(
                rules.SYSTEM,
                "approval.cancel",
                approval.approval_id,
                {
                    "reason": rules.ABANDONED,
                    "abandoned_at": approval.abandoned_at.isoformat() if approval.abandoned_at else "",
                },
            )
            log.info("approval cancelled: nobody waits for it", extra={"approval_id": approval.approval_id})
            self._notify(new)
        return cancelled

    def mark_consumed(self, approval_id: str) -> bool:
        """Deliver the approval's one allowed answer: True for exactly one caller, in any process.

        When storage fails during the write (or during the audit record after it), whether it committed is unknown
        and the caller answers nothing
        allowed (its call fails, the agent re-sends with the same request id). If the write did commit, the
        approval is consumed although no call was told so: the re-sent call on this sidecar, finding the
        consumption this attempt wrote (its time, to the microsecond), is the one that gets the answer. Any
        other call for it is told it was used."""
        when = self.clock.utcnow()
        try:
            won = self.repo.mark_consumed(approval_id, when)
            if won:  # the audit record fails too when storage goes away just after the commit
                self.audit.record("system", "approval.consume", approval_id, {})
                return True
        except Exception:
            self._keep_unanswered(approval_id, [when])
            raise
        with self._lock:
            lost = list(self._unanswered.get(approval_id, ()))
        stored = self.repo.get(approval_id) if lost else None
        if stored is None or stored.consume_time not in lost:
            return False
        with self._lock:
            taken = self._unanswered.pop(approval_id, None)
        if taken is None:
            return False  # another call on this sidecar took it meanwhile
        try:
            self.audit.record("system", "approval.consume", approval_id, {})
        except Exception:
            self._keep_unanswered(approval_id, taken)  # still this sidecar's to deliver, to the next retry
            raise
        return True

    def _keep_unanswered(self, approval_id: str, times: list[datetime]) -> None:
        """Remember consumptions whose answer was lost (`mark_consumed`), bounded."""
        with self._lock:
            if approval_id not in self._unanswered and len(self._unanswered) >= _MAX_UNANSWERED:
                self._unanswered.pop(next(iter(self._unanswered)))
            # Every attempt's time, not only the newest: a retry whose write failed too must not hide
            # the earlier attempt that did commit (it was then "already used" for its own re-sent call).
            self._unanswered.setdefault(approval_id, []).extend(times)
            del self._unanswered[approval_id][:-_MAX_ATTEMPTS_KEPT]

    def _change(self, approval_id: str, transition: Callable[[Approval], Approval]) -> Approval:
        for _ in range(_RETRIES):
            current = self.get(approval_id)
            new = transition(current)
            decided = new.state in (rules.ApprovalState.APPROVED, rules.ApprovalState.REJECTED)
            outbox = self._outbox(EventKind.APPROVAL_DECIDED, new) if decided else ()
            if self.repo.update(new, current.version, outbox):
                self._notify(new)
                self.metrics.approval_closed(new)
                return new
        raise Unavailable(f"approval {approval_id} is being changed concurrently; try again")

    def _outbox(self, kind: EventKind, approval: Approval) -> Sequence[Notification]:
        if self.notices is None:
            return ()
        try:
            return self.notices(kind, approval, self.clock.utcnow())
        except Exception:  # a notification must never cost the request or the decision itself
            log.exception("planning notifications failed", extra={"approval_id": approval.approval_id})
            return ()

    # ---- reading ---------------------------------------------------------------------------

    def get(self, approval_id: str) -> Approval:
        if not approval_id:
            raise InvalidArgument("approval_id is required", field="approval_id")
        approval = self.repo.get(approval_id)
        if approval is None:
            raise NotFound(f"no approval request has id {approval_id!r}", field="approval_id")
        return approval

    def pending(self) -> list[Approval]:
        return self.repo.pending()

    def list(self, flt: ApprovalFilter, page_size: int, page_token: str) -> Page[Approval]:
        return self.repo.list(flt, page_size, page_token)

    def version(self) -> int:
        return self.repo.version()


def _resolve(future: asyncio.Future[Approval], approval: Approval) -> None:
    if not future.done():
        future.set_result(approval)
