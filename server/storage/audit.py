"""The append-only audit log table: records are sealed into the hash chain inside the inserting transaction."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.domain.audit import GENESIS_HASH, AuditEntry, AuditRecord, seal_chain
from server.storage.supervisor.repository import utc
from server.storage.tables import AuditRow

log = logging.getLogger(__name__)

# Any fixed number (not the migration lock's): every sidecar sharing a PostgreSQL database appends under it,
# so two writers never read the same last record and fork the chain.
_AUDIT_LOCK = 7_140_132
_ATTEMPTS = 5


def _record(row: AuditRow) -> AuditRecord:
    assert row.seq is not None
    return AuditRecord(
        seq=row.seq,
        record_time=utc(row.record_time),
        actor=row.actor,
        action=row.action,
        subject=row.subject,
        details=dict(row.details),
        prev_hash=row.prev_hash,
        hash=row.hash,
    )


class SqlAuditRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def append(
        self, actor: str, action: str, subject: str, details: dict[str, Any], record_time: datetime
    ) -> AuditRecord:
        return self.append_many([AuditEntry(actor, action, subject, details, record_time)])[0]

    def append_many(self, entries: Sequence[AuditEntry]) -> list[AuditRecord]:
        """Seal and insert `entries` in order, in one transaction (all or none)."""
        if not entries:
            return []
        for attempt in range(1, _ATTEMPTS + 1):
            try:
                return self._append(entries)
            except IntegrityError:
                # Only possible when a writer skipped the lock (the PK on seq stops the fork): re-read, retry.
                if attempt == _ATTEMPTS:
                    raise
                log.warning("audit append raced another writer; retrying", extra={"attempt": attempt})
        raise AssertionError("unreachable")

    def _append(self, entries: Sequence[AuditEntry]) -> list[AuditRecord]:
        with Session(self.engine) as s, s.begin():
            conn = s.connection()
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _AUDIT_LOCK})
            elif conn.dialect.name == "sqlite":
                # pysqlite starts a transaction only at the first write, so a plain SELECT would read the
                # last record outside it; take the write lock first so read-then-insert is atomic.
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            last = s.execute(
                select(col(AuditRow.seq), col(AuditRow.hash)).order_by(col(AuditRow.seq).desc()).limit(1)
            ).first()
            last_seq, last_hash = (int(last[0]), str(last[1])) if last else (0, GENESIS_HASH)
            records = seal_chain(entries, last_seq, last_hash)
            # Core executemany: the ORM's per-object bookkeeping costs more than the rows themselves.
            s.execute(
                insert(AuditRow.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "seq": r.seq,
                        "record_time": r.record_time,
                        "actor": r.actor,
                        "action": r.action,
                        "subject": r.subject,
                        "details": r.details,
                        "prev_hash": r.prev_hash,
                        "hash": r.hash,
                    }
                    for r in records
                ],
            )
        return records

    def iter_all(self, batch: int = 1000) -> Iterator[AuditRecord]:
        """Every record in seq order, read `batch` rows at a time (keyset paging, one short read each)."""
        after = 0
        while True:
            stmt = select(AuditRow).where(col(AuditRow.seq) > after).order_by(col(AuditRow.seq)).limit(batch)
            with Session(self.engine) as s:
                records = [_record(r) for r in s.execute(stmt).scalars()]
            yield from records
            if len(records) < batch:
                return
            after = records[-1].seq

    def count(self) -> int:
        with Session(self.engine) as s:
            return int(s.execute(select(func.count()).select_from(AuditRow)).scalar_one())
