"""The append-only audit log table: records are sealed into the chain inside the inserting transaction,
under one lock per database, and their time is taken inside that lock too (so seq and time agree)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.domain.audit import (
    GENESIS_HASH,
    AuditEntry,
    AuditRecord,
    is_keyed,
    is_legacy,
    marker_entry,
    seal_chain,
)
from server.domain.errors import FailedPrecondition
from server.storage.columns import utc
from server.storage.shared_tables import AuditRow

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
    """Records are sealed with HMAC-SHA256 under the chain `key` a writer passes; without one, the legacy rule."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def append(
        self, actor: str, action: str, subject: str, details: dict[str, Any], record_time: datetime
    ) -> AuditRecord:
        return self.append_many([AuditEntry(actor, action, subject, details, record_time)])[0]

    def append_many(
        self, entries: Sequence[AuditEntry], now: Callable[[], datetime] | None = None, key: bytes | None = None
    ) -> list[AuditRecord]:
        """Seal and insert `entries` in order, in one transaction (all or none). With `now`, every record's
        time is `now()` read inside the chain lock, and never before the previous record's time."""
        if not entries:
            return []
        for attempt in range(1, _ATTEMPTS + 1):
            try:
                return self._append(entries, now, key)
            except IntegrityError:
                # Only possible when a writer skipped the lock (the PK on seq stops the fork): re-read, retry.
                if attempt == _ATTEMPTS:
                    raise
                log.warning("audit append raced another writer; retrying", extra={"attempt": attempt})
        raise AssertionError("unreachable")

    def _lock(self, s: Session) -> None:
        conn = s.connection()
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _AUDIT_LOCK})
        elif conn.dialect.name == "sqlite":
            # pysqlite starts a transaction only at the first write, so a plain SELECT would read the
            # last record outside it; take the write lock first so read-then-insert is atomic.
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    def _append(
        self, entries: Sequence[AuditEntry], now: Callable[[], datetime] | None, key: bytes | None
    ) -> list[AuditRecord]:
        with Session(self.engine) as s, s.begin():
            self._lock(s)
            last = s.execute(
                select(col(AuditRow.seq), col(AuditRow.hash), col(AuditRow.record_time))
                .order_by(col(AuditRow.seq).desc())
                .limit(1)
            ).first()
            last_seq, last_hash = (int(last[0]), str(last[1])) if last else (0, GENESIS_HASH)
            t = None
            if now is not None:
                t = now()
                if last is not None and utc(last[2]) > utc(t):
                    t = utc(last[2])  # another writer's clock ran ahead: time never goes backwards along seq
            records = seal_chain(entries, last_seq, last_hash, key, t)
            self._insert(s, records)
        return records

    def _insert(self, s: Session, records: Sequence[AuditRecord]) -> None:
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

    def ensure_keyed(self, key: bytes, now: Callable[[], datetime]) -> AuditRecord | None:
        """Under the chain lock: when the newest record is not sealed with the key (a chain from before the
        key, or an empty one), append the `audit.keyed` marker and return it. FailedPrecondition when the
        newest record is sealed with neither this key nor the legacy rule (another key, or an edit)."""
        for attempt in range(1, _ATTEMPTS + 1):
            try:
                with Session(self.engine) as s, s.begin():
                    self._lock(s)
                    row = s.execute(select(AuditRow).order_by(col(AuditRow.seq).desc()).limit(1)).scalars().first()
                    last = _record(row) if row is not None else None
                    if last is not None and is_keyed(last, key):
                        return None
                    if last is not None and not is_legacy(last):
                        raise FailedPrecondition(
                            f"the newest audit record (seq {last.seq}) is not sealed with this audit key: copy "
                            "audit.key_file from the sidecars already on this database, or run `outrider audit "
                            "verify` to find out what happened",
                            reason="AUDIT_KEY_MISMATCH",
                        )
                    t = now()
                    seq, head = (last.seq, last.hash) if last else (0, GENESIS_HASH)
                    if last is not None and last.record_time > utc(t):
                        t = last.record_time
                    records = seal_chain([marker_entry(seq, head, t)], seq, head, key, t)
                    self._insert(s, records)
                    return records[0]
            except IntegrityError:
                if attempt == _ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def head(self) -> tuple[int, str]:
        """(seq, hash) of the newest record; (0, GENESIS_HASH) for an empty chain."""
        with Session(self.engine) as s:
            last = s.execute(
                select(col(AuditRow.seq), col(AuditRow.hash)).order_by(col(AuditRow.seq).desc()).limit(1)
            ).first()
        return (int(last[0]), str(last[1])) if last else (0, GENESIS_HASH)

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
