"""The tamper-evident audit trail: masks, appends, verifies, signs checkpoints of and exports the chain.

With keys (production), records are sealed with HMAC-SHA256 under the chain key, and signed checkpoints of
(last seq, head hash) go to a `CheckpointStore` outside the database and to the log: every
`checkpoint_every` records or `checkpoint_interval` seconds (checked by a job each second) and at close.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from server.domain.audit import AuditEntry, AuditRecord, VerifyResult, to_json, verify_chain
from server.domain.audit_checkpoints import Checkpoint, check_all
from server.domain.audit_checkpoints import to_json as checkpoint_json
from server.domain.masking import mask
from server.domain.values import canonical_json
from server.services.ports import Clock

log = logging.getLogger(__name__)


class AuditRepository(Protocol):
    """Append-only storage of the chain (storage/audit.py); sealing happens inside its lock."""

    def append(
        self, actor: str, action: str, subject: str, details: dict[str, Any], record_time: datetime
    ) -> AuditRecord: ...

    def append_many(
        self, entries: Sequence[AuditEntry], now: Callable[[], datetime] | None = None, key: bytes | None = None
    ) -> list[AuditRecord]:
        """Seal with `key` (legacy rule without) inside the chain lock; times from `now()` read in the lock."""
        ...

    def ensure_keyed(self, key: bytes, now: Callable[[], datetime]) -> AuditRecord | None:
        """The `audit.keyed` marker, appended under the lock unless the newest record is keyed already."""
        ...

    def head(self) -> tuple[int, str]: ...

    def iter_all(self, batch: int = 1000) -> Iterator[AuditRecord]: ...

    def count(self) -> int: ...


class AuditKeyring(Protocol):
    """The chain key and the checkpoint signer (adapters/audit_keys.py AuditKeys)."""

    chain_key: bytes
    public_key: str

    def sign(self, seq: int, head: str, time: datetime) -> Checkpoint: ...

    def signature_ok(self, cp: Checkpoint) -> bool: ...


class CheckpointStore(Protocol):
    """Where signed checkpoints are kept outside the database (adapters/audit_files.py)."""

    def write(self, cp: Checkpoint) -> Any: ...

    def write_public_key(self, public_key: str) -> None: ...

    def read_all(self) -> Iterable[tuple[str, Checkpoint | str]]: ...


@dataclass(frozen=True, slots=True)
class CheckpointSettings:
    every_records: int = 1000
    interval: float = 60.0


# (actor, action, subject, details): one record for `AuditTrail.record_many`.
AuditEvent = tuple[str, str, str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class FullVerifyResult:
    """The chain's verdict, plus what was wrong with checkpoint files that could not be trusted."""

    chain: VerifyResult
    bad_checkpoints: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.chain.ok and not self.bad_checkpoints

    @property
    def checked(self) -> int:
        return self.chain.checked

    @property
    def first_broken_seq(self) -> int | None:
        return self.chain.first_broken_seq

    @property
    def problem(self) -> str:
        return self.chain.problem if not self.chain.ok or not self.bad_checkpoints else self.bad_checkpoints[0]

    @property
    def kind(self) -> str:
        return self.chain.kind if not self.chain.ok or not self.bad_checkpoints else "bad_checkpoint"


class AuditTrail:
    """Implements the `AuditSink` port."""

    def __init__(
        self,
        repo: AuditRepository,
        clock: Clock,
        sensitive_keys: Iterable[str],
        *,
        keys: AuditKeyring | None = None,
        checkpoints: CheckpointStore | None = None,
        settings: CheckpointSettings | None = None,
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.sensitive_keys = tuple(sensitive_keys)
        self.keys = keys
        self.checkpoints = checkpoints
        self.settings = settings or CheckpointSettings()
        self._lock = threading.Lock()
        self._since_checkpoint = 0
        self._checkpoint_at = clock.monotonic()
        self._checkpointed: tuple[int, str] | None = None

    # ---- writing -------------------------------------------------------------------------------

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        """Mask `details`, then append one record (committed before this returns)."""
        self._append([AuditEntry(actor, action, subject, self._clean(details), self.clock.utcnow())])

    def record_many(self, events: Sequence[AuditEvent], plain: bool = False) -> None:
        """Several records in one transaction, in order (the decision log's batches). `plain=True` says
        the details are already JSON scalars built by the sidecar with no context keys in them, so the
        masking walk (half of the cost per record) is skipped."""
        now = self.clock.utcnow()
        clean = (lambda d: d) if plain else self._clean
        self._append([AuditEntry(a, act, subj, clean(d), now) for a, act, subj, d in events])

    def _append(self, entries: list[AuditEntry]) -> None:
        # The time is read again inside the chain lock: sequence and time agree.
        self.repo.append_many(entries, self.clock.utcnow, self.keys.chain_key if self.keys else None)
        with self._lock:
            self._since_checkpoint += len(entries)

    def start(self) -> None:
        """With keys: seal the chain under the key from here on (the `audit.keyed` marker when the newest
        record is not keyed yet) and publish the checkpoint public key. FailedPrecondition on another key."""
        if self.keys is None:
            return
        marker = self.repo.ensure_keyed(self.keys.chain_key, self.clock.utcnow)
        if marker is not None:
            legacy = marker.details.get("legacy_records", 0)
            log.warning(
                "audit chain sealed with the audit key from here on",
                extra={"seq": marker.seq, "legacy_records": legacy},
            )
            with self._lock:
                self._since_checkpoint += 1
        if self.checkpoints is not None:
            self.checkpoints.write_public_key(self.keys.public_key)

    # ---- checkpoints ---------------------------------------------------------------------------

    def checkpoint_due(self) -> Checkpoint | None:
        """The job's tick: a checkpoint when `every_records` records or `interval` seconds have passed."""
        with self._lock:
            due = self._since_checkpoint >= self.settings.every_records or (
                self._since_checkpoint > 0 and self.clock.monotonic() - self._checkpoint_at >= self.settings.interval
            )
        return self.checkpoint() if due else None

    def checkpoint(self) -> Checkpoint | None:
        """Sign (last seq, head hash) now and write it outside the database and to the log. None without
        keys, or when the head has not moved since the last checkpoint of this process."""
        if self.keys is None or self.checkpoints is None:
            return None
        seq, head = self.repo.head()
        with self._lock:
            self._since_checkpoint = 0
            self._checkpoint_at = self.clock.monotonic()
            if seq == 0 or self._checkpointed == (seq, head):
                return None
            self._checkpointed = (seq, head)
        cp = self.keys.sign(seq, head, self.clock.utcnow())
        where = self.checkpoints.write(cp)
        log.info(
            "audit checkpoint", extra={"audit_checkpoint": canonical_json(checkpoint_json(cp)), "file": str(where)}
        )
        return cp

    def close(self) -> None:
        """Clean shutdown: a last checkpoint, so nothing written before it can go missing unseen."""
        try:
            self.checkpoint()
        except Exception:
            log.exception("could not write the final audit checkpoint")

    # ---- reading -------------------------------------------------------------------------------

    def verify(self, checkpoints: CheckpointStore | None = None, *, use_checkpoints: bool = True) -> FullVerifyResult:
        """The chain checked with the key (when there is one) against the signed checkpoints of
        `checkpoints` (default: this trail's store)."""
        store = checkpoints if checkpoints is not None else (self.checkpoints if use_checkpoints else None)
        heads: dict[int, set[str]] = {}
        bad: tuple[str, ...] = ()
        if store is not None and self.keys is not None:
            checked = check_all(store.read_all(), self.keys.signature_ok, self.keys.public_key)
            heads, bad = checked.heads, tuple(checked.bad)
        key = self.keys.chain_key if self.keys is not None else None
        return FullVerifyResult(verify_chain(self.repo.iter_all(), key, heads), bad)

    def export(self, write_line: Callable[[str], None]) -> int:
        """Call `write_line` with one JSON object (no newline) per record, in seq order, then one
        `{"checkpoint": {...}}` line per signed checkpoint in the store; returns the number of records."""
        n = 0
        for record in self.repo.iter_all():
            write_line(canonical_json(to_json(record)))
            n += 1
        if self.checkpoints is not None:
            for _, cp in self.checkpoints.read_all():
                if not isinstance(cp, str):
                    write_line(canonical_json({"checkpoint": checkpoint_json(cp)}))
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
