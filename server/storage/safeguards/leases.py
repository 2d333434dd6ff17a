"""Execution leases in the database, the fleet's one truth (server/services/safeguards/leases.py).

A grant is one transaction holding the key's row in `safeguard_lease_keys` locked (`SELECT … FOR
UPDATE` on PostgreSQL; SQLite's write lock, taken by the transaction's first write): it expires the
key's lapsed ACTIVE leases, counts the ACTIVE ones and the live waiters queued ahead, and takes the next
fencing token from the key's counter (`fencing_token + 1`), so two sidecars can never both take the last
slot and tokens only grow. Waiters are rows ordered by `seq` (FIFO across sidecars). Every state change
is conditional on `state = ACTIVE`: the reaper never overwrites RELEASED or REVOKED, and a release never
overwrites EXPIRED. Each lease that ends announces its key (`ChangeLog.bump(conn, "leases", key)`) so
waiters on other sidecars try again at once.

A release (or a waiter leaving the queue) given a `HandOver` grants the freed slot, in its own transaction
and under the same key lock, to the next waiters in `seq` order that wait in this process: their rows are
deleted and their leases inserted with the ids `lease_for(waiter_id)`, so a waiter whose row vanished finds
its grant. The first waiter that waits elsewhere stops the hand-over: FIFO holds fleet-wide.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Integer, Row, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError
from sqlmodel import col

from server.domain import pages as pagination
from server.domain.errors import FailedPrecondition, InvalidArgument, Unavailable
from server.domain.safeguards.leases import IsolationKey, Lease, LeaseState, Scope
from server.services.ports import Page
from server.services.safeguards.leases import TOPIC, HandOver, Waiter, lease_for
from server.storage.fleet.changes import ChangeLog
from server.storage.group_commit import GroupCommit
from server.storage.idempotency import remember_in_transaction
from server.storage.safeguards.tables import LeaseKeyRow, LeaseRow, LeaseWaiterRow
from server.storage.supervisor.repository import utc

L, K, W = LeaseRow, LeaseKeyRow, LeaseWaiterRow
_COLS = (
    col(L.lease_id),
    col(L.key_scope),
    col(L.key_id),
    col(L.agent_id),
    col(L.fencing_token),
    col(L.state),
    col(L.ttl),
    col(L.request_id),
    col(L.acquire_time),
    col(L.expire_time),
    col(L.end_time),
)
_ACTIVE = int(LeaseState.ACTIVE)
# The most a commit waits for the callers the last one answered to come back (bounded further by half the
# last commit's time: server/storage/group_commit.py).
LINGER = 0.005


def _lease(r: Row[Any]) -> Lease:
    return Lease(
        lease_id=r.lease_id,
        key=IsolationKey(Scope(r.key_scope), r.key_id),
        agent_id=r.agent_id,
        fencing_token=int(r.fencing_token),
        ttl=float(r.ttl),
        acquire_time=utc(r.acquire_time),
        expire_time=utc(r.expire_time),
        expires_at=0.0,
        state=LeaseState(r.state),
        end_time=utc(r.end_time) if r.end_time else None,
        request_id=r.request_id,
    )


def _of_key(key: IsolationKey) -> tuple[object, object]:
    return col(L.key_scope) == int(key.scope), col(L.key_id) == key.id


Grants = list[tuple[Waiter, Lease]]
Unserved = list[IsolationKey]


def _key_counts() -> tuple[Any, Any]:
    """The key's ACTIVE leases not yet lapsed at `at`, and those lapsed (still ACTIVE: expired by whoever
    counts them)."""
    of_key = (col(L.state) == _ACTIVE, col(L.key_scope) == bindparam("k_scope"), col(L.key_id) == bindparam("k_id"))
    active = select(func.count()).select_from(L).where(*of_key)
    return (
        active.where(col(L.expire_time) > bindparam("at")).scalar_subquery(),
        active.where(col(L.expire_time) <= bindparam("at")).scalar_subquery(),
    )


# The waiters of key `k_text` that count: not killed, polled since `stale_before`.
_LIVE = (col(W.key) == bindparam("k_text"), col(W.killed).is_(False), col(W.poll_time) >= bindparam("stale_before"))
_STALE = (col(W.key) == bindparam("k_text"), col(W.poll_time) < bindparam("stale_before"))


class _Statements:
    """The hot path's statements, built once (building and hashing a statement per call costs more CPU than
    SQLite takes to run it); parameters bound by name at execution."""

    def __init__(self, pg: bool) -> None:
        token = select(col(K.fencing_token)).where(col(K.key) == bindparam("k_text"))
        self.key_token = token.with_for_update() if pg else token
        self.key_set = update(K).where(col(K.key) == bindparam("k_text")).values(fencing_token=bindparam("token"))
        self.lease = select(*_COLS).where(col(L.lease_id) == bindparam("l_id"))
        self.insert_lease = insert(L)
        self.insert_waiter = insert(W)
        self.waiter = select(col(W.seq), col(W.killed)).where(col(W.waiter_id) == bindparam("w_id"))
        self.touch = update(W).where(col(W.waiter_id) == bindparam("w_id")).values(poll_time=bindparam("at"))
        self.drop_waiter = delete(W).where(col(W.waiter_id) == bindparam("w_id"))
        self.drop_waiters = delete(W).where(col(W.waiter_id).in_(bindparam("w_ids", expanding=True)))
        self.drop_stale = delete(W).where(*_STALE)
        stale = select(func.count()).select_from(W).where(*_STALE).scalar_subquery()
        ahead = select(func.count()).select_from(W).where(*_LIVE)
        # (not lapsed, lapsed, waiters ahead, stale waiters): of a new caller, or of the waiter at `w_seq`
        self.counts = select(*_key_counts(), ahead.scalar_subquery(), stale)
        self.counts_ahead_of = select(
            *_key_counts(), ahead.where(col(W.seq) < bindparam("w_seq")).scalar_subquery(), stale
        )
        ending = update(L).values(state=bindparam("to"), end_time=bindparam("at")).returning(*_COLS)
        self.expire_lapsed = ending.where(
            col(L.state) == _ACTIVE,
            col(L.key_scope) == bindparam("k_scope"),
            col(L.key_id) == bindparam("k_id"),
            col(L.expire_time) <= bindparam("at"),
        )
        self.release = ending.where(col(L.state) == _ACTIVE, col(L.lease_id) == bindparam("l_id"))
        self.release_holder = self.release.where(col(L.agent_id) == bindparam("holder"))
        # The hand-over: the key's next live waiters in FIFO order, with the counts and the last token.
        queue = select(col(W.waiter_id), *_key_counts(), token.scalar_subquery()).where(*_LIVE).order_by(col(W.seq))
        self.queue_all = queue
        self.queue = queue.limit(bindparam("n", type_=Integer))


def _key_params(key: IsolationKey) -> dict[str, object]:
    return {"k_text": key.text, "k_scope": int(key.scope), "k_id": key.id}


class SqlLeaseRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes
        self._pg = engine.dialect.name == "postgresql"
        self._insert = pg_insert if self._pg else sqlite_insert
        self._s = _Statements(self._pg)
        # Grants, releases, renewals and queue exits of concurrent callers share a transaction (one fsync).
        self._group = GroupCommit(self._tx, linger=LINGER)

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as conn:
                if not self._pg:
                    # pysqlite begins a transaction only at the first write: take the write lock first, so a
                    # piece may read before it writes (its reads then see what its writes will change).
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                yield conn
        except DBAPIError as exc:
            raise Unavailable("execution leases: the database is not available; nothing changed") from exc

    def _announce(self, conn: Connection, key_texts: set[str]) -> None:
        if self.changes is not None:
            for text in sorted(key_texts):
                self.changes.bump(conn, TOPIC, text)

    def _ending(self, conn: Connection, where: list[object], state: LeaseState, now: datetime) -> list[Lease]:
        """ACTIVE leases matching `where` → `state`; the leases as they are now."""
        ended = [
            _lease(r)
            for r in conn.execute(
                update(L)
                .where(col(L.state) == _ACTIVE, *where)  # type: ignore[arg-type]
                .values(state=int(state), end_time=now)
                .returning(*_COLS)
            )
        ]
        if ended:
            self._announce(conn, {le.key.text for le in ended})
        return ended

    def _end(self, conn: Connection, stmt: Any, params: dict[str, object]) -> list[Lease]:
        """`_ending` with a prebuilt statement (`to` and `at` among the parameters)."""
        ended = [_lease(r) for r in conn.execute(stmt, params)]
        if ended:
            self._announce(conn, {le.key.text for le in ended})
        return ended

    def _lock_key(self, conn: Connection, key: IsolationKey) -> int:
        """The key's last fencing token, its row locked (PostgreSQL; SQLite's transaction holds the write lock)."""
        token = conn.execute(self._s.key_token, {"k_text": key.text}).scalar()
        if token is None:  # the key's first grant
            conn.execute(
                self._insert(K).values(key=key.text, fencing_token=0).on_conflict_do_nothing(index_elements=["key"])
            )
            token = conn.execute(self._s.key_token, {"k_text": key.text}).scalar_one()
        return int(token)

    # ---- grants and the queue --------------------------------------------------------------

    def try_acquire(
        self,
        key: IsolationKey,
        limit: int | None,
        agent_id: str,
        ttl: float,
        request_id: str,
        now: datetime,
        waiter_id: str | None,
        stale_before: datetime,
    ) -> tuple[Lease | None, str]:
        answer = self._group.run(
            lambda conn: self._try_acquire(conn, key, limit, agent_id, ttl, request_id, now, waiter_id, stale_before)
        )
        if isinstance(answer, FailedPrecondition):
            raise answer
        return answer

    def _try_acquire(
        self,
        conn: Connection,
        key: IsolationKey,
        limit: int | None,
        agent_id: str,
        ttl: float,
        request_id: str,
        now: datetime,
        waiter_id: str | None,
        stale_before: datetime,
    ) -> tuple[Lease | None, str] | FailedPrecondition:
        """One grant attempt in `conn`'s transaction; a killed waiter's refusal is returned, not raised (the
        transaction may be shared: its leaving the queue is committed with the others)."""
        token = self._lock_key(conn, key)
        if request_id:
            found = conn.execute(
                select(*_COLS)
                .where(col(L.agent_id) == agent_id, col(L.request_id) == request_id, *_of_key(key))  # type: ignore[arg-type]
                .order_by(col(L.acquire_time).desc())
                .limit(1)
            ).first()
            if found is not None:
                if waiter_id:
                    conn.execute(delete(W).where(col(W.waiter_id) == waiter_id))
                return _lease(found), ""
        mine = None
        if waiter_id:
            mine = conn.execute(self._s.waiter, {"w_id": waiter_id}).first()
            if mine is None:  # a hand-over may have granted it: its row went with the grant
                handed = conn.execute(self._s.lease, {"l_id": lease_for(waiter_id)}).first()
                if handed is not None:
                    return _lease(handed), ""
            if mine is not None and mine.killed:
                conn.execute(self._s.drop_waiter, {"w_id": waiter_id})
                return FailedPrecondition(
                    f"agent {agent_id!r} was killed: its leases are revoked", reason="AGENT_KILLED"
                )
            if mine is not None:
                conn.execute(self._s.touch, {"w_id": waiter_id, "at": now})
        # One statement counts what the grant needs; the key's lapsed leases are expired and the waiters that
        # stopped polling dropped only when there are any (the counts leave both out already).
        params = {**_key_params(key), "at": now, "stale_before": stale_before}
        if mine is None:
            counted = conn.execute(self._s.counts, params).one()
        else:
            counted = conn.execute(self._s.counts_ahead_of, {**params, "w_seq": mine.seq}).one()
        active, lapsed, queued, stale = counted
        if lapsed:
            self._end(conn, self._s.expire_lapsed, {**params, "to": int(LeaseState.EXPIRED)})
        if stale:
            conn.execute(self._s.drop_stale, params)
        free = limit is None or int(active) + int(queued) < limit
        if not free:
            if mine is not None:
                return None, str(waiter_id)
            new_id = "lwt_" + secrets.token_hex(10)
            conn.execute(
                self._s.insert_waiter,
                {
                    "waiter_id": new_id,
                    "key": key.text,
                    "agent_id": agent_id,
                    "killed": False,
                    "create_time": now,
                    "poll_time": now,
                },
            )
            return None, new_id
        token += 1
        conn.execute(self._s.key_set, {"k_text": key.text, "token": token})
        lease = Lease(
            "lse_" + secrets.token_hex(10),
            key,
            agent_id,
            token,
            ttl,
            now,
            now + timedelta(seconds=ttl),
            0.0,
            request_id=request_id,
        )
        self._insert_lease(conn, lease)
        if waiter_id:
            conn.execute(self._s.drop_waiter, {"w_id": waiter_id})
        return lease, ""

    def leave_queue(self, waiter_id: str, hand_over: HandOver | None = None) -> None:
        grants, unserved = self._group.run(lambda conn: self._leave_queue(conn, waiter_id, hand_over))
        if hand_over is not None:
            hand_over.committed(grants, unserved)

    def _leave_queue(self, conn: Connection, waiter_id: str, hand_over: HandOver | None) -> tuple[Grants, Unserved]:
        if hand_over is not None and self._pg:  # the key's row first, as a grant takes it
            of = conn.execute(select(col(W.key)).where(col(W.waiter_id) == waiter_id)).first()
            if of is not None:
                self._lock_key(conn, IsolationKey.parse(str(of.key)))
        gone = conn.execute(delete(W).where(col(W.waiter_id) == waiter_id).returning(col(W.key))).first()
        if gone is None or hand_over is None:
            return [], []
        return self._hand_over(conn, IsolationKey.parse(str(gone.key)), hand_over)

    def _hand_over(self, conn: Connection, key: IsolationKey, h: HandOver) -> tuple[Grants, Unserved]:
        """Grant the key's free slots to its next waiters (FIFO) while they wait in this process (see the
        module docstring); the key is returned as unserved when a live waiter within the free slots was not.
        On PostgreSQL the caller holds the key's row lock."""
        limit = h.limit(key)
        params = {**_key_params(key), "at": h.now, "stale_before": h.stale_before}
        if limit is None:
            rows = conn.execute(self._s.queue_all, params).all()
        else:
            rows = conn.execute(self._s.queue, {**params, "n": limit}).all()
        if not rows or rows[0][3] is None:
            return [], []
        _, active, lapsed, last = rows[0]
        if lapsed:  # expired first, as a grant does: a slot is never counted free while a row says ACTIVE
            self._end(conn, self._s.expire_lapsed, {**params, "to": int(LeaseState.EXPIRED)})
        free = len(rows) if limit is None else limit - int(active)
        grants: Grants = []
        unserved = False
        token = int(last)
        for waiter_id, *_ in rows[: max(0, free)]:
            w = h.waiter(str(waiter_id))
            if w is None or w.key != key:
                unserved = True  # it waits on another sidecar (or is just queueing here): it tries itself
                continue
            token += 1
            lease = Lease(
                lease_for(w.waiter_id),
                key,
                w.agent_id,
                token,
                w.ttl,
                h.now,
                h.now + timedelta(seconds=w.ttl),
                0.0,
                request_id=w.request_id,
            )
            self._insert_lease(conn, lease)
            grants.append((w, lease))
        if grants:
            conn.execute(self._s.key_set, {"k_text": key.text, "token": token})
            conn.execute(self._s.drop_waiters, {"w_ids": [w.waiter_id for w, _ in grants]})
        return grants, [key] if unserved else []

    def _insert_lease(self, conn: Connection, lease: Lease) -> None:
        conn.execute(
            self._s.insert_lease,
            {
                "lease_id": lease.lease_id,
                "key_scope": int(lease.key.scope),
                "key_id": lease.key.id,
                "agent_id": lease.agent_id,
                "fencing_token": lease.fencing_token,
                "state": _ACTIVE,
                "ttl": lease.ttl,
                "request_id": lease.request_id,
                "acquire_time": lease.acquire_time,
                "expire_time": lease.expire_time,
                "end_time": None,
            },
        )

    def waiters(self, key: IsolationKey) -> int:
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(W).where(col(W.key) == key.text, col(W.killed).is_(False))
                ).scalar_one()
            )

    # ---- ends ------------------------------------------------------------------------------

    def renew(self, lease_id: str, ttl: float, now: datetime) -> Lease | None:
        return self._group.run(lambda conn: self._renew(conn, lease_id, ttl, now))

    def _renew(self, conn: Connection, lease_id: str, ttl: float, now: datetime) -> Lease | None:
        moved = conn.execute(
            update(L)
            .where(col(L.lease_id) == lease_id, col(L.state) == _ACTIVE, col(L.expire_time) > now)
            .values(ttl=ttl, expire_time=now + timedelta(seconds=ttl))
        ).rowcount
        if not moved:
            self._ending(conn, [col(L.lease_id) == lease_id, col(L.expire_time) <= now], LeaseState.EXPIRED, now)
        row = conn.execute(select(*_COLS).where(col(L.lease_id) == lease_id)).first()
        if moved and row is not None:  # renewed: a retried RenewLease gets this answer, no second extension
            remember_in_transaction(conn, _lease(row), "RenewLease")
        return _lease(row) if row is not None else None

    def release(
        self, lease_id: str, now: datetime, hand_over: HandOver | None = None, holder: str | None = None
    ) -> Lease | None:
        lease, grants, unserved = self._group.run(lambda conn: self._release(conn, lease_id, now, hand_over, holder))
        if hand_over is not None:
            hand_over.committed(grants, unserved)
        return lease

    def _release(
        self, conn: Connection, lease_id: str, now: datetime, hand_over: HandOver | None, holder: str | None
    ) -> tuple[Lease | None, Grants, Unserved]:
        if hand_over is not None and self._pg:
            # The key's row first, as a grant takes it: then the lease row (no lock-order deadlock).
            of = conn.execute(select(col(L.key_scope), col(L.key_id)).where(col(L.lease_id) == lease_id)).first()
            if of is not None:
                self._lock_key(conn, IsolationKey(Scope(of.key_scope), of.key_id))
        params = {"l_id": lease_id, "to": int(LeaseState.RELEASED), "at": now}
        if holder is None:
            ended = self._end(conn, self._s.release, params)
        else:
            ended = self._end(conn, self._s.release_holder, {**params, "holder": holder})
        lease = ended[0] if ended else None
        if lease is None:  # not ACTIVE (its final state answers), not there, or another agent's (left as it is)
            row = conn.execute(self._s.lease, {"l_id": lease_id}).first()
            lease = _lease(row) if row is not None else None
        if lease is not None and (holder is None or lease.agent_id == holder):
            remember_in_transaction(conn, lease, "ReleaseLease")  # a retried ReleaseLease gets this answer
        if ended and hand_over is not None:
            return (lease, *self._hand_over(conn, ended[0].key, hand_over))
        return lease, [], []

    def reap(self, now: datetime) -> list[Lease]:
        with self._tx() as conn:
            return self._ending(conn, [col(L.expire_time) <= now], LeaseState.EXPIRED, now)

    def revoke_agent(self, agent_id: str, now: datetime) -> list[Lease]:
        with self._tx() as conn:
            revoked = self._ending(conn, [col(L.agent_id) == agent_id], LeaseState.REVOKED, now)
            waits = [
                str(k)
                for (k,) in conn.execute(
                    update(W).where(col(W.agent_id) == agent_id).values(killed=True).returning(col(W.key))
                )
            ]
            self._announce(conn, set(waits) - {le.key.text for le in revoked})
            return revoked

    # ---- reads -----------------------------------------------------------------------------

    def get_lease(self, lease_id: str) -> Lease | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(*_COLS).where(col(L.lease_id) == lease_id)).first()
        return _lease(row) if row is not None else None

    def list_leases(
        self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str
    ) -> Page[Lease]:
        size = pagination.page_size(page_size)
        after = pagination.decode(page_token)
        if after is not None and not (isinstance(after, list) and len(after) == 2):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        stmt = select(*_COLS).order_by(col(L.acquire_time).desc(), col(L.lease_id).desc()).limit(size + 1)
        if scope:
            stmt = stmt.where(col(L.key_scope) == scope)
            if key_id:
                stmt = stmt.where(col(L.key_id) == key_id)
        if agent_id:
            stmt = stmt.where(col(L.agent_id) == agent_id)
        if state:
            stmt = stmt.where(col(L.state) == state)
        if after is not None:
            when = datetime.fromisoformat(after[0])
            stmt = stmt.where(
                (col(L.acquire_time) < when) | ((col(L.acquire_time) == when) & (col(L.lease_id) < after[1]))
            )
        with self.engine.connect() as conn:
            rows = list(conn.execute(stmt))
        more = len(rows) > size
        rows = rows[:size]
        token = pagination.encode([utc(rows[-1].acquire_time).isoformat(), rows[-1].lease_id]) if more else ""
        return Page([_lease(r) for r in rows], token)

    def prune_leases(self, ended_before: datetime) -> int:
        with self._tx() as conn:
            conn.execute(delete(W).where(col(W.poll_time) < ended_before))
            res = conn.execute(delete(L).where(col(L.state) != _ACTIVE, col(L.end_time) < ended_before))
            return int(res.rowcount)
