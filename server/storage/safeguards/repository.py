"""SQL storage of the safeguards: snapshots written through by the services, read back at start-up
(token budgets live in the database itself: server/storage/safeguards/budgets.py).

Each `save_*` applies one group of journal changes (server/services/safeguards/journal.py) in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, select
from sqlmodel import Session, col

from server.domain import pages as pagination
from server.domain.errors import InvalidArgument
from server.domain.safeguards.breakers import Breaker, BreakerConfig, BreakerState
from server.domain.safeguards.episodes import Episode
from server.domain.safeguards.leases import IsolationKey, Lease, LeaseState, Scope
from server.services.ports import Page
from server.storage.safeguards.tables import (
    BreakerRow,
    EpisodeRow,
    LeaseKeyRow,
    LeaseRow,
)
from server.storage.supervisor.repository import utc

Change = tuple[str, str, Any]


def _utc_or_none(value: datetime | None) -> datetime | None:
    return utc(value) if value is not None else None


class SqlSafeguardRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ---- breakers --------------------------------------------------------------------------

    def load_breakers(self) -> list[Breaker]:
        with Session(self.engine) as s:
            rows = list(s.execute(select(BreakerRow)).scalars())
        return [
            Breaker(
                key=r.key,
                config=BreakerConfig(),  # the service applies the effective settings
                create_time=utc(r.create_time),
                update_time=utc(r.update_time),
                runtime_config=dict(r.runtime_config),
                state=BreakerState(r.state),
                failure_count=r.failure_count,
                generation=r.generation,
                forced=r.forced,
                open_time=_utc_or_none(r.open_time),
                last_failure_time=_utc_or_none(r.last_failure_time),
                last_success_time=_utc_or_none(r.last_success_time),
                has_cached=r.has_cached,
                cached=r.cached,
            )
            for r in rows
        ]

    def save_breakers(self, changes: Sequence[Change]) -> None:
        with Session(self.engine) as s, s.begin():
            for _kind, key, b in changes:
                if b is None:
                    s.execute(delete(BreakerRow).where(col(BreakerRow.key) == key))
                    continue
                s.merge(
                    BreakerRow(
                        key=b.key,
                        state=int(b.state),
                        failure_count=b.failure_count,
                        generation=b.generation,
                        forced=b.forced,
                        runtime_config=dict(b.runtime_config),
                        has_cached=b.has_cached,
                        cached=b.cached,
                        open_time=b.open_time,
                        last_failure_time=b.last_failure_time,
                        last_success_time=b.last_success_time,
                        create_time=b.create_time,
                        update_time=b.update_time,
                    )
                )

    # ---- episodes --------------------------------------------------------------------------

    def load_episodes(self, limit: int) -> list[Episode]:
        with Session(self.engine) as s, s.begin():
            rows = list(
                s.execute(select(EpisodeRow).order_by(col(EpisodeRow.episode_id).desc()).limit(limit)).scalars()
            )
            if rows:  # a smaller max_episodes than before: the oldest go
                s.execute(delete(EpisodeRow).where(col(EpisodeRow.episode_id) < rows[-1].episode_id))
            return [
                Episode(
                    r.episode_id,
                    r.task_id,
                    r.agent_id,
                    r.task_type,
                    r.outcome,
                    dict(r.episode_metadata),
                    utc(r.episode_time),
                )
                for r in reversed(rows)
            ]

    def save_episodes(self, changes: Sequence[Change]) -> None:
        gone = [int(key) for _kind, key, e in changes if e is None]
        with Session(self.engine) as s, s.begin():
            if gone:
                s.execute(delete(EpisodeRow).where(col(EpisodeRow.episode_id).in_(gone)))
            for _kind, _key, e in changes:
                if e is not None:
                    s.merge(
                        EpisodeRow(
                            episode_id=e.episode_id,
                            task_id=e.task_id,
                            agent_id=e.agent_id,
                            task_type=e.task_type,
                            outcome=e.outcome,
                            episode_metadata=dict(e.metadata),
                            episode_time=e.episode_time,
                        )
                    )

    # ---- leases ----------------------------------------------------------------------------

    def load_leases(self) -> tuple[list[Lease], dict[str, int]]:
        with Session(self.engine) as s:
            rows = list(s.execute(select(LeaseRow).where(col(LeaseRow.state) == int(LeaseState.ACTIVE))).scalars())
            keys = {k.key: k.fencing_token for k in s.execute(select(LeaseKeyRow)).scalars()}
        return [_lease(r) for r in rows], keys

    def save_leases(self, changes: Sequence[Change]) -> None:
        with Session(self.engine) as s, s.begin():
            for kind, key, obj in changes:
                if kind == "key":
                    s.merge(LeaseKeyRow(key=key, fencing_token=int(obj)))
                elif obj is not None:
                    le: Lease = obj
                    s.merge(
                        LeaseRow(
                            lease_id=le.lease_id,
                            key_scope=int(le.key.scope),
                            key_id=le.key.id,
                            agent_id=le.agent_id,
                            fencing_token=le.fencing_token,
                            state=int(le.state),
                            ttl=le.ttl,
                            request_id=le.request_id,
                            acquire_time=le.acquire_time,
                            expire_time=le.expire_time,
                            end_time=le.end_time,
                        )
                    )

    def get_lease(self, lease_id: str) -> Lease | None:
        with Session(self.engine) as s:
            row = s.get(LeaseRow, lease_id)
            return _lease(row) if row else None

    def list_leases(
        self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str
    ) -> Page[Lease]:
        size = pagination.page_size(page_size)
        after = pagination.decode(page_token)
        if after is not None and not (isinstance(after, list) and len(after) == 2):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        c = LeaseRow
        stmt = select(c).order_by(col(c.acquire_time).desc(), col(c.lease_id).desc()).limit(size + 1)
        if scope:
            stmt = stmt.where(col(c.key_scope) == scope)
            if key_id:
                stmt = stmt.where(col(c.key_id) == key_id)
        if agent_id:
            stmt = stmt.where(col(c.agent_id) == agent_id)
        if state:
            stmt = stmt.where(col(c.state) == state)
        if after is not None:
            when = datetime.fromisoformat(after[0])
            stmt = stmt.where(
                (col(c.acquire_time) < when) | ((col(c.acquire_time) == when) & (col(c.lease_id) < after[1]))
            )
        with Session(self.engine) as s:
            rows = list(s.execute(stmt).scalars())
        more = len(rows) > size
        rows = rows[:size]
        token = pagination.encode([utc(rows[-1].acquire_time).isoformat(), rows[-1].lease_id]) if more else ""
        return Page([_lease(r) for r in rows], token)

    def prune_leases(self, ended_before: datetime) -> int:
        with Session(self.engine) as s, s.begin():
            res = s.execute(
                delete(LeaseRow).where(
                    col(LeaseRow.state) != int(LeaseState.ACTIVE), col(LeaseRow.end_time) < ended_before
                )
            )
            return int(res.rowcount)  # type: ignore[attr-defined]


def _lease(r: LeaseRow) -> Lease:
    return Lease(
        lease_id=r.lease_id,
        key=IsolationKey(Scope(r.key_scope), r.key_id),
        agent_id=r.agent_id,
        fencing_token=r.fencing_token,
        ttl=r.ttl,
        acquire_time=utc(r.acquire_time),
        expire_time=utc(r.expire_time),
        expires_at=0.0,
        state=LeaseState(r.state),
        end_time=_utc_or_none(r.end_time),
        request_id=r.request_id,
    )
