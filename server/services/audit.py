"""The tamper-evident audit trail: masks, appends, verifies and exports the hash-chained records."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, Protocol

from server.domain.audit import AuditEntry, AuditRecord, VerifyResult, to_json, verify_chain
from server.domain.masking import mask
from server.domain.values import canonical_json
from server.services.ports import Clock


class AuditRepository(Protocol):
    """Append-only storage of the chain (storage/audit_repository.py)."""

    def append(
        self, actor: str, action: str, subject: str, details: dict[str, Any], record_time: datetime
    ) -> AuditRecord: ...

    def append_many(self, entries: Sequence[AuditEntry]) -> list[AuditRecord]: ...

    def iter_all(self, batch: int = 1000) -> Iterator[AuditRecord]: ...

    def count(self) -> int: ...


# (actor, action, subject, details): one record for `AuditTrail.record_many`.
AuditEvent = tuple[str, str, str, dict[str, Any]]


class AuditTrail:
    """Implements the `AuditSink` port."""

    def __init__(self, repo: AuditRepository, clock: Clock, sensitive_keys: Iterable[str]) -> None:
        self.repo = repo
        self.clock = clock
        self.sensitive_keys = tuple(sensitive_keys)

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        """Mask `details`, then append one record (committed before this returns)."""
        self.repo.append(actor, action, subject, self._clean(details), self.clock.utcnow())

    def record_many(self, events: Sequence[AuditEvent], plain: bool = False) -> None:
        """Several records in one transaction, in order (the decision log's batches). `plain=True` says
        the details are already JSON scalars built by the sidecar with no context keys in them, so the
        masking walk (half of the cost per record) is skipped."""
        now = self.clock.utcnow()
        clean = (lambda d: d) if plain else self._clean
        self.repo.append_many([AuditEntry(a, act, subj, clean(d), now) for a, act, subj, d in events])

    def verify(self) -> VerifyResult:
        return verify_chain(self.repo.iter_all())

    def export(self, write_line: Callable[[str], None]) -> int:
        """Call `write_line` with one JSON object (no newline) per record, in seq order; returns the count."""
        n = 0
        for record in self.repo.iter_all():
            write_line(canonical_json(to_json(record)))
            n += 1
        return n

    def count(self) -> int:
        return self.repo.count()

    def _clean(self, details: dict[str, Any]) -> dict[str, Any]:
        masked = mask(_plain(details), self.sensitive_keys)
        assert isinstance(masked, dict)
        return masked


def _plain(value: Any) -> Any:
    """A JSON-storable copy: an audit record must never fail because a caller passed a datetime or NaN."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)
