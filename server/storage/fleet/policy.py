"""The fleet's one policy (`fleet_policy`, one row) and which version each sidecar runs (`fleet_policy_applied`).

An apply locks the row (`SELECT ... FOR UPDATE`, a transaction-level row lock, so a transaction-mode pooler
is fine) for as long as the policy's parts are written, then stores the new version and bumps the
`policy` topic in the same transaction: two sidecars applying at once are serialised, and the others see
the new version only once every part is committed. On SQLite (one sidecar) nothing is held open while the
parts are written (a second connection writing would wait for the first).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.domain.fleet.policy import AppliedPolicy, FleetPolicy
from server.services.fleet.ports import POLICY_TOPIC
from server.storage.fleet.changes import ChangeLog
from server.storage.fleet.tables import FleetPolicyAppliedRow, FleetPolicyRow
from server.storage.supervisor.repository import utc

_KEY = "fleet"


def _policy(row: FleetPolicyRow) -> FleetPolicy:
    return FleetPolicy(
        version=row.version,
        digest=row.digest,
        document=dict(row.document),
        path=row.path,
        host=row.host,
        sidecar_id=row.sidecar_id,
        actor=row.actor,
        apply_time=utc(row.apply_time),
    )


class SqlFleetPolicyRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes
        self._postgres = engine.dialect.name == "postgresql"

    def get(self) -> FleetPolicy | None:
        with Session(self.engine) as s:
            row = s.get(FleetPolicyRow, _KEY)
            return _policy(row) if row is not None and row.version > 0 else None

    def apply(
        self, policy: FleetPolicy, write: Callable[[], None], expected_version: int | None = None
    ) -> FleetPolicy | None:
        if not self._postgres:
            # One sidecar, or the workers of `serve --workers` sharing the file (and one policy file). Nothing is
            # held while the parts are written (a worker's own writes would wait behind its lock); the row is
            # then compared and set under SQLite's write lock (`with_for_update`: BEGIN IMMEDIATE), so of two
            # workers applying at once, one stores and the other decides again.
            current = self.get()
            seen = current.version if current else 0
            if expected_version is not None and seen != expected_version:
                return None
            write()
            with Session(self.engine) as s, s.begin():
                row = s.get(FleetPolicyRow, _KEY, with_for_update=True)
                if expected_version is not None and (row.version if row else 0) != seen:
                    return None
                return self._store(s, row, policy)
        with Session(self.engine) as s, s.begin():
            # The placeholder row makes the very first apply lockable too (a second inserter waits here).
            s.execute(
                pg_insert(FleetPolicyRow).values(**_placeholder(policy)).on_conflict_do_nothing(index_elements=["key"])
            )
            row = s.get(FleetPolicyRow, _KEY, with_for_update=True)
            if expected_version is not None and (row.version if row else 0) != expected_version:
                return None  # another sidecar applied one meanwhile: the caller decides again
            write()  # the parts, in their own transactions, while this sidecar holds the lock
            return self._store(s, row, policy)

    def _store(self, s: Session, row: FleetPolicyRow | None, policy: FleetPolicy) -> FleetPolicy:
        if row is None:
            row = FleetPolicyRow(**_placeholder(policy))
        stored = replace(policy, version=row.version + 1)
        row.version, row.digest, row.document = stored.version, stored.digest, dict(stored.document)
        row.path, row.host, row.sidecar_id = stored.path, stored.host, stored.sidecar_id
        row.actor, row.apply_time = stored.actor, stored.apply_time
        s.add(row)
        s.flush()
        if self.changes is not None:
            self.changes.bump(s.connection(), POLICY_TOPIC, str(stored.version))
        return stored

    def mark_applied(self, applied: AppliedPolicy) -> None:
        for _ in range(2):  # two first marks of one sidecar cannot race; a retry covers a stray duplicate
            try:
                with Session(self.engine) as s, s.begin():
                    row = s.get(FleetPolicyAppliedRow, applied.sidecar_id) or FleetPolicyAppliedRow(
                        sidecar_id=applied.sidecar_id, version=0, digest="", apply_time=applied.apply_time
                    )
                    row.version, row.digest, row.apply_time = applied.version, applied.digest, applied.apply_time
                    s.add(row)
                return
            except IntegrityError:
                continue

    def applied(self) -> Sequence[AppliedPolicy]:
        with Session(self.engine) as s:
            rows = s.execute(select(FleetPolicyAppliedRow).order_by(col(FleetPolicyAppliedRow.sidecar_id))).scalars()
            return [AppliedPolicy(r.sidecar_id, r.version, r.digest, utc(r.apply_time)) for r in rows]


def _placeholder(policy: FleetPolicy) -> dict[str, Any]:
    return {
        "key": _KEY,
        "version": 0,
        "digest": "",
        "document": {},
        "path": "",
        "host": "",
        "sidecar_id": "",
        "actor": "",
        "apply_time": policy.apply_time,
    }
