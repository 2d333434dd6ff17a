"""SQL storage of approval requests, with compare-and-set updates so the first decision stands."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.domain import pages as pagination
from server.domain.approvals.requests import Approval, ApprovalFilter, ApprovalPolicy, ApprovalState, Vote
from server.domain.errors import InvalidArgument
from server.domain.notifications.delivery import Notification
from server.services.approvals.requests import TOPIC
from server.services.ports import Page
from server.storage.approvals.tables import ApprovalRow
from server.storage.fleet.changes import ChangeLog
from server.storage.idempotency import remember_in_transaction
from server.storage.notifications.repository import add_to_outbox
from server.storage.rows import bump_counter
from server.storage.supervisor.repository import utc
from server.storage.tables import CounterRow

_COUNTER = "approvals"  # every change, new requests included (the console's live lists)
_UPDATES = "approvals.updates"  # changes to existing requests only (what waiting calls wait for)
_HAS_REQUEST_ID = text("approvals.request_id != ''")
_CHUNK = 500  # ids per IN (...): well below SQLite's and PostgreSQL's bound-parameter limits


def _policy(raw: dict[str, Any]) -> ApprovalPolicy:
    return ApprovalPolicy(
        approvers=tuple(raw.get("approvers", ())),
        timeout=raw.get("timeout"),
        on_timeout=raw.get("on_timeout", "deny"),
        escalate_to=tuple(raw.get("escalate_to", ())),
        escalate_timeout=raw.get("escalate_timeout"),
        min_approvals=int(raw.get("min_approvals", 1)),
        prevent_self_review=bool(raw.get("prevent_self_review", False)),
        edits_require_approval=bool(raw.get("edits_require_approval", False)),
        on_reuse=str(raw.get("on_reuse", "block")),
        notify=tuple(raw.get("notify", ())),
    )


def _approval(r: ApprovalRow) -> Approval:
    return Approval(
        approval_id=r.approval_id,
        agent_id=r.agent_id,
        action=r.action,
        context=dict(r.context),
        guardrail=r.guardrail,
        request_id=r.request_id,
        trace_id=r.trace_id,
        digest=r.digest,
        state=ApprovalState[r.state],
        create_time=utc(r.create_time),
        policy=_policy(r.policy),
        owner=r.owner,
        approvers=tuple(r.approvers),
        stage=r.stage,
        expire_time=utc(r.expire_time) if r.expire_time else None,
        decide_time=utc(r.decide_time) if r.decide_time else None,
        decided_by=r.decided_by,
        comment=r.comment,
        votes=tuple(
            Vote(v["reviewer"], v["approve"], v["comment"], datetime.fromisoformat(v["decide_time"])) for v in r.votes
        ),
        warnings=tuple((w[0], w[1]) for w in r.warnings),
        edited_context=dict(r.edited_context) if r.edited_context is not None else None,
        version=r.version,
        consume_time=utc(r.consume_time) if r.consume_time else None,
        attempt=r.attempt,
        abandoned_at=utc(r.abandoned_at) if r.abandoned_at else None,
    )


@functools.lru_cache(maxsize=256)
def _policy_values(policy: ApprovalPolicy) -> dict[str, Any]:
    # A guardrail's policy is one frozen value shared by all its requests: converted once, not per row
    # (`asdict`'s deep copy was a tenth of a burst's intake).
    values = asdict(policy)
    values["approvers"], values["escalate_to"] = list(policy.approvers), list(policy.escalate_to)
    values["notify"] = list(policy.notify)
    return values


def _values(a: Approval) -> dict[str, Any]:
    policy = {k: list(v) if isinstance(v, list) else v for k, v in _policy_values(a.policy).items()}
    return {
        "agent_id": a.agent_id,
        "action": a.action,
        "context": dict(a.context),
        "guardrail": a.guardrail,
        "request_id": a.request_id,
        "trace_id": a.trace_id,
        "digest": a.digest,
        "create_time": a.create_time,
        "policy": policy,
        "owner": a.owner,
        "attempt": a.attempt,
        **_changing_values(a),
    }


def _changing_values(a: Approval) -> dict[str, Any]:
    """The columns a vote, a decision, an escalation or an expiry can change: what `update` writes. The rest
    (who asked, for what, under which policy) is fixed when the request is made and is not written again:
    the context's JSON alone can be large, and SQLite's one write lock is held while it is written."""
    return {
        "state": a.state.name,
        "expire_time": a.expire_time,
        "decide_time": a.decide_time,
        "decided_by": a.decided_by,
        "comment": a.comment,
        "votes": [
            {
                "reviewer": v.reviewer,
                "approve": v.approve,
                "comment": v.comment,
                "decide_time": v.decide_time.isoformat(),
            }
            for v in a.votes
        ],
        "warnings": [list(w) for w in a.warnings],
        "edited_context": dict(a.edited_context) if a.edited_context is not None else None,
        "approvers": list(a.approvers),
        "stage": a.stage,
        "version": a.version,
    }


class SqlApprovalRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes  # announces each new request and decision to the other sidecars (NOTIFY)

    def _announce(self, s: Session, approval_id: str) -> None:
        if self.changes is not None:
            self.changes.bump(s.connection(), TOPIC, approval_id)

    def insert(self, approval: Approval, outbox: Sequence[Notification] = ()) -> bool:
        """The request and the notifications it causes, in one transaction. False when an identical request
        (agent, request id, digest, attempt) exists: the unique index makes concurrent identical CheckActions
        one request."""
        try:
            with Session(self.engine) as s, s.begin():
                s.add(ApprovalRow(approval_id=approval.approval_id, **_values(approval)))
                s.flush()
                add_to_outbox(s, outbox)
                _bump(s)
                self._announce(s, approval.approval_id)
        except IntegrityError:
            if approval.request_id and self.find_attach(approval.agent_id, approval.request_id, approval.digest):
                return False
            raise
        return True

    def insert_many(self, items: Sequence[tuple[Approval, Sequence[Notification]]]) -> list[bool]:
        """Group commit: every request and its notifications in ONE transaction (one counter bump, one
        announcement each). When any of them is a duplicate (the unique index), the transaction is rolled
        back and each is inserted on its own, so the duplicates alone answer False."""
        if len(items) == 1:
            return [self.insert(*items[0])]
        try:
            with Session(self.engine) as s, s.begin():
                # One executemany through Core: building ORM instances cost ≈ 2 ms per row in a burst.
                s.execute(insert(ApprovalRow), [{"approval_id": a.approval_id, **_values(a)} for a, _ in items])
                for _, outbox in items:
                    add_to_outbox(s, outbox)
                _bump(s)
                for a, _ in items:
                    self._announce(s, a.approval_id)
        except IntegrityError:
            return [self.insert(a, outbox) for a, outbox in items]
        return [True] * len(items)

    def update(self, approval: Approval, expected_version: int, outbox: Sequence[Notification] = ()) -> bool:
        """Write `approval` only if nobody changed the row since `expected_version` was read; the
        notifications the change causes are written with it, or not at all."""
        with Session(self.engine) as s, s.begin():
            if not self._write_if(s, approval, expected_version, outbox):
                return False
            # DecideApproval/CancelApproval: a retry of a decision whose answer was lost gets this answer
            # (not ALREADY_DECIDED, not a second vote).
            remember_in_transaction(s.connection(), approval, "DecideApproval", "CancelApproval")
            return True

    def mark_consumed(self, approval_id: str, when: datetime) -> bool:
        """One statement, so exactly one caller (in any process) wins: True for it."""
        with Session(self.engine) as s, s.begin():
            result = s.execute(
                update(ApprovalRow)
                .where(col(ApprovalRow.approval_id) == approval_id)
                .where(col(ApprovalRow.consume_time).is_(None))
                .values(consume_time=when)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    # ---- abandonment (never through `update`: a whole-row write from an older read would undo a mark) ----

    def mark_abandoned(self, approval_ids: Iterable[str], when: datetime) -> int:
        """Mark pending requests abandoned at `when` (an existing mark, older, stands)."""
        return self._set_abandoned(approval_ids, when, col(ApprovalRow.abandoned_at).is_(None))

    def clear_abandoned(self, approval_ids: Iterable[str]) -> int:
        """Someone waits again: the marks of these pending requests go (one write only where there is one)."""
        return self._set_abandoned(approval_ids, None, col(ApprovalRow.abandoned_at).is_not(None))

    def _set_abandoned(self, approval_ids: Iterable[str], when: datetime | None, where: Any) -> int:
        ids = sorted(set(approval_ids))  # one lock order for concurrent writers of the same rows
        changed = 0
        for start in range(0, len(ids), _CHUNK):
            with Session(self.engine) as s, s.begin():
                result = s.execute(
                    update(ApprovalRow)
                    .where(col(ApprovalRow.approval_id).in_(ids[start : start + _CHUNK]))
                    .where(col(ApprovalRow.state) == ApprovalState.PENDING.name)
                    .where(where)
                    .values(abandoned_at=when)
                )
                changed += int(result.rowcount)  # type: ignore[attr-defined]
        return changed

    def abandoned(self, cutoff: datetime) -> list[Approval]:
        """Pending requests marked abandoned at `cutoff` or before."""
        stmt = (
            select(ApprovalRow)
            .where(col(ApprovalRow.abandoned_at) <= cutoff)
            .where(col(ApprovalRow.state) == ApprovalState.PENDING.name)
        )
        with Session(self.engine) as s:
            return [_approval(r) for r in s.execute(stmt).scalars()]

    def cancel_abandoned(
        self, approval: Approval, expected_version: int, cutoff: datetime, outbox: Sequence[Notification] = ()
    ) -> bool:
        """Write the cancellation only while the request is still pending at `expected_version` and still
        marked abandoned at `cutoff` or before: one statement, so a waiter that re-attached meanwhile (its
        clear committed first) wins, and of N sidecars running the job at once exactly one cancels."""
        with Session(self.engine) as s, s.begin():
            return self._write_if(
                s,
                approval,
                expected_version,
                outbox,
                col(ApprovalRow.state) == ApprovalState.PENDING.name,
                col(ApprovalRow.abandoned_at) <= cutoff,
            )

    def _write_if(
        self, s: Session, approval: Approval, expected_version: int, outbox: Sequence[Notification], *also: Any
    ) -> bool:
        """The row written (at `expected_version`, and where `also` holds), with its notifications, counters and
        announcement, in the caller's transaction; False: someone changed it first."""
        result = s.execute(
            update(ApprovalRow)
            .where(col(ApprovalRow.approval_id) == approval.approval_id)
            .where(col(ApprovalRow.version) == expected_version)
            .where(*also)
            .values(**_changing_values(approval))
        )
        if not result.rowcount:  # type: ignore[attr-defined]
            return False
        add_to_outbox(s, outbox)
        _bump(s)
        _bump(s, _UPDATES)
        self._announce(s, approval.approval_id)
        return True

    def get(self, approval_id: str) -> Approval | None:
        with Session(self.engine) as s:
            row = s.get(ApprovalRow, approval_id)
            return _approval(row) if row else None

    def get_many(self, approval_ids: Iterable[str]) -> dict[str, Approval]:
        ids = list(approval_ids)
        if not ids:
            return {}
        with Session(self.engine) as s:
            rows = s.execute(select(ApprovalRow).where(col(ApprovalRow.approval_id).in_(ids))).scalars()
            return {r.approval_id: _approval(r) for r in rows}

    def find_attach(self, agent_id: str, request_id: str, digest: str) -> Approval | None:
        if not request_id:
            return None  # only requests with an id are ever attached to
        stmt = (
            select(ApprovalRow)
            .where(col(ApprovalRow.agent_id) == agent_id)
            .where(col(ApprovalRow.request_id) == request_id)
            # The literal predicate of the partial unique index: with only `request_id = ?` the planner
            # cannot prove the row is in the index and scans the table (≈ 5 ms per lookup at 3,000 rows).
            .where(_HAS_REQUEST_ID)
            .where(col(ApprovalRow.digest) == digest)
            .order_by(col(ApprovalRow.attempt).desc(), col(ApprovalRow.create_time).desc())
            .limit(1)
        )
        with Session(self.engine) as s:
            row = s.execute(stmt).scalars().first()
            return _approval(row) if row else None

    def find_attach_many(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], Approval]:
        """`find_attach` for many (agent, request id, digest) keys: one indexed query per agent and chunk of
        request ids, whatever the number of requests already stored."""
        by_agent: dict[str, set[str]] = {}
        wanted = set()
        for agent_id, request_id, digest in keys:
            if request_id:
                by_agent.setdefault(agent_id, set()).add(request_id)
                wanted.add((agent_id, request_id, digest))
        found: dict[tuple[str, str, str], Approval] = {}
        with Session(self.engine) as s:
            for agent_id, request_ids in by_agent.items():
                ids = sorted(request_ids)
                for start in range(0, len(ids), _CHUNK):
                    stmt = (
                        select(ApprovalRow)
                        .where(col(ApprovalRow.agent_id) == agent_id)
                        .where(col(ApprovalRow.request_id).in_(ids[start : start + _CHUNK]))
                        .where(_HAS_REQUEST_ID)
                    )
                    for row in s.execute(stmt).scalars():
                        key = (row.agent_id, row.request_id, row.digest)
                        if key not in wanted:
                            continue
                        best = found.get(key)
                        if best is None or (row.attempt, utc(row.create_time)) > (best.attempt, best.create_time):
                            found[key] = _approval(row)
        return found

    def versions(self, approval_ids: Iterable[str]) -> dict[str, int]:
        """Each request's row version, nothing else read (the poll compares them with what it has seen)."""
        ids = list(approval_ids)
        out: dict[str, int] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(ids), _CHUNK):
                stmt = select(col(ApprovalRow.approval_id), col(ApprovalRow.version)).where(
                    col(ApprovalRow.approval_id).in_(ids[start : start + _CHUNK])
                )
                out.update({approval_id: version for approval_id, version in conn.execute(stmt)})
        return out

    def count_pending(self, agent_id: str) -> int:
        """One COUNT on the (state, agent) rows: no context is read."""
        stmt = (
            select(func.count())
            .select_from(ApprovalRow)
            .where(col(ApprovalRow.state) == ApprovalState.PENDING.name, col(ApprovalRow.agent_id) == agent_id)
        )
        with Session(self.engine) as s:
            return int(s.execute(stmt).scalar_one())

    def pending(self, agent_id: str = "") -> list[Approval]:
        stmt = select(ApprovalRow).where(col(ApprovalRow.state) == ApprovalState.PENDING.name)
        if agent_id:
            stmt = stmt.where(col(ApprovalRow.agent_id) == agent_id)
        with Session(self.engine) as s:
            return [_approval(r) for r in s.execute(stmt.order_by(col(ApprovalRow.create_time))).scalars()]

    def due(self, now: datetime) -> list[Approval]:
        stmt = (
            select(ApprovalRow)
            .where(col(ApprovalRow.state) == ApprovalState.PENDING.name)
            .where(col(ApprovalRow.expire_time) <= now)
        )
        with Session(self.engine) as s:
            return [_approval(r) for r in s.execute(stmt).scalars()]

    def version(self) -> int:
        with Session(self.engine) as s:
            row = s.get(CounterRow, _COUNTER)
            return row.value if row else 0

    def update_version(self) -> int:
        with Session(self.engine) as s:
            row = s.get(CounterRow, _UPDATES)
            return row.value if row else 0

    def list(self, flt: ApprovalFilter, page_size: int, page_token: str) -> Page[Approval]:
        size = pagination.page_size(page_size)
        after = pagination.decode(page_token)
        if after is not None and not (isinstance(after, list) and len(after) == 2):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        c = ApprovalRow
        stmt = select(c).order_by(col(c.create_time).desc(), col(c.approval_id).desc())
        if flt.agent_id:
            stmt = stmt.where(col(c.agent_id) == flt.agent_id)
        if flt.action:
            stmt = stmt.where(col(c.action) == flt.action)
        if flt.state is not None:
            stmt = stmt.where(col(c.state) == flt.state.name)
        if flt.closed_only:
            stmt = stmt.where(col(c.state) != ApprovalState.PENDING.name)
        if flt.reviewer:
            stmt = stmt.where(col(c.decided_by).contains(flt.reviewer))
        if flt.start_time:
            stmt = stmt.where(col(c.create_time) >= flt.start_time)
        if flt.end_time:
            stmt = stmt.where(col(c.create_time) < flt.end_time)
        if after:
            when, aid = datetime.fromisoformat(after[0]), after[1]
            stmt = stmt.where((col(c.create_time) < when) | ((col(c.create_time) == when) & (col(c.approval_id) < aid)))
        with Session(self.engine) as s:
            rows = list(s.execute(stmt.limit(size + 1)).scalars())
        more = len(rows) > size
        token = (
            pagination.encode([utc(rows[size - 1].create_time).isoformat(), rows[size - 1].approval_id]) if more else ""
        )
        return Page([_approval(r) for r in rows[:size]], token)


def _bump(s: Session, name: str = _COUNTER) -> None:
    bump_counter(s, name)  # one statement: two first-ever bumps cannot collide
