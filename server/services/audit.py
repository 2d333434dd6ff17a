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
from server.domain.audit_batches import (
    DECISION,
    DecisionLookup,
    DecisionsVerdict,
    checking,
    covered,
    decision_details,
    decision_leaf,
)
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
    decisions: DecisionsVerdict | None = None  # the decision rows against their records (with a lookup)

    @property
    def ok(self) -> bool:
        return self.chain.ok and not self.bad_checkpoints and (self.decisions is None or self.decisions.ok)

    @property
    def checked(self) -> int:
        return self.chain.checked

    @property
    def first_broken_seq(self) -> int | None:
        return self.chain.first_broken_seq

    @property
    def problem(self) -> str:
        if not self.chain.ok or self.bad_checkpoints:
            return self.chain.problem if not self.chain.ok or not self.bad_checkpoints else self.bad_checkpoints[0]
        return self.decisions.first_problem if self.decisions is not None else ""

    @property
    def kind(self) -> str:
        if not self.chain.ok or self.bad_checkpoints:
            return self.chain.kind if not self.chain.ok else "bad_checkpoint"
        if self.decisions is not None and not self.decisions.ok:
            return "decision_edited" if self.decisions.edited else "decision_missing"
        return "ok"


@dataclass(frozen=True, slots=True)
class DecisionProof:
    """`outrider audit verify --decision ID`: one decision row against the audit record vouching for it."""

    decision_id: str
    ok: bool
    problem: str = ""
    record_seq: int | None = None  # the audit record that vouches for it
    position: int = 0  # its place in that record (1-based)
    of: int = 0  # decisions that record vouches for


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
        decisions: DecisionLookup | None = None,
    ) -> None:
        self.repo = repo
        self.decisions = decisions  # with it, `verify` checks every decision row against its record
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
        heads, bad = self._heads(store)
        key = self.keys.chain_key if self.keys is not None else None
        if self.decisions is None:
            return FullVerifyResult(verify_chain(self.repo.iter_all(), key, heads), bad)
        verdict = DecisionsVerdict(oldest_row=self.decisions.oldest_time())
        chain = verify_chain(checking(self.repo.iter_all(), self.decisions, verdict), key, heads)
        return FullVerifyResult(chain, bad, verdict)

    def _heads(self, store: CheckpointStore | None) -> tuple[dict[int, set[str]], tuple[str, ...]]:
        """The heads signed checkpoints vouch for, and the checkpoint files that cannot be trusted."""
        if store is None or self.keys is None:
            return {}, ()
        checked = check_all(store.read_all(), self.keys.signature_ok, self.keys.public_key)
        return checked.heads, tuple(checked.bad)

    def verify_decision(self, decision_id: str) -> tuple[FullVerifyResult, DecisionProof]:
        """The whole chain (and every decision, as `verify`), plus the proof of one decision: its row's
        leaf found at its place in the audit record that vouches for it."""
        if self.decisions is None:
            raise ValueError("verify_decision needs the decision log's repository")
        found: list[tuple[AuditRecord, int, int, str]] = []

        def on_pairs(record: AuditRecord, pairs: list[tuple[str, str]]) -> None:
            for i, (did, leaf) in enumerate(pairs, 1):
                if did == decision_id and not found:
                    found.append((record, i, len(pairs), leaf))

        heads, bad = self._heads(self.checkpoints)
        key = self.keys.chain_key if self.keys is not None else None
        verdict = DecisionsVerdict(oldest_row=self.decisions.oldest_time())
        chain = verify_chain(checking(self.repo.iter_all(), self.decisions, verdict, on_pairs), key, heads)
        full = FullVerifyResult(chain, bad, verdict)
        if not found:
            return full, DecisionProof(decision_id, False, "no audit record vouches for this decision")
        record, position, of, leaf = found[0]
        rows = self.decisions.by_ids([decision_id])
        row = rows.get(decision_id)
        where: dict[str, Any] = {"record_seq": record.seq, "position": position, "of": of}
        if decision_id not in rows:
            return full, DecisionProof(
                decision_id, False, "the decision log has no row for it (pruned or deleted)", **where
            )
        if row is None or decision_leaf(row) != leaf:
            return full, DecisionProof(
                decision_id, False, "its row does not match what the record vouches for (edited)", **where
            )
        if not chain.ok or chain.checked < record.seq:
            return full, DecisionProof(decision_id, False, "the audit chain is broken at or before its record", **where)
        return full, DecisionProof(decision_id, True, **where)

    def export(self, write_line: Callable[[str], None]) -> int:
        """Call `write_line` with one JSON object (no newline) per record, in seq order, then one
        `{"checkpoint": {...}}` line per signed checkpoint in the store; returns the number of records."""
        n = 0
        for record in self.repo.iter_all():
            write_line(canonical_json(to_json(record)))
            n += 1
            if self.decisions is not None and record.action != DECISION:
                self._export_covered(record, write_line)
        if self.checkpoints is not None:
            for _, cp in self.checkpoints.read_all():
                if not isinstance(cp, str):
                    write_line(canonical_json({"checkpoint": checkpoint_json(cp)}))
        return n

    def _export_covered(self, record: AuditRecord, write_line: Callable[[str], None]) -> None:
        """After a batch record, one `decision` line per decision it vouches for (the row's audited
        fields, its leaf and `batch_seq`), so an export stays one line per decision for its readers and
        holds what an offline check needs; `"row": "missing"` where the row is gone."""
        try:
            pairs = covered(record)
        except (ValueError, TypeError, IndexError, AttributeError, KeyError):
            return
        if not pairs:
            return
        assert self.decisions is not None
        rows = self.decisions.by_ids([p[0] for p in pairs])
        for did, leaf in pairs:
            line: dict[str, Any] = {"batch_seq": record.seq, "action": DECISION, "subject": did, "leaf": leaf}
            row = rows.get(did)
            if row is None:
                line["row"] = "missing" if did not in rows else "unreadable"
            else:
                line["actor"] = f"agent:{row.agent_id}"
                line["details"] = decision_details(row)
            write_line(canonical_json(line))

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
