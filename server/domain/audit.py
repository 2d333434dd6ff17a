"""The audit trail's hash chain: how a record is sealed and how a chain is verified.

A record's `hash` is the SHA-256 hex of the canonical JSON of {seq, record_time, actor, action, subject,
details, prev_hash}, with `record_time` as ISO 8601 UTC with microseconds (`2026-01-01T00:00:00.000000Z`).
`prev_hash` is the previous record's hash (64 zeros for the first record). An exported line is exactly that
object plus `hash`, so anyone can re-check an export with nothing but SHA-256 and a JSON library.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from server.domain.values import canonical_json

GENESIS_HASH = "0" * 64


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """What a caller asks to record; storage gives it a seq and seals it."""

    actor: str
    action: str
    subject: str
    details: dict[str, Any]
    record_time: datetime


@dataclass(frozen=True, slots=True)
class AuditRecord:
    seq: int
    record_time: datetime
    actor: str
    action: str
    subject: str
    details: dict[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class VerifyResult:
    ok: bool
    checked: int  # records found intact (on a break: those before it)
    first_broken_seq: int | None = None
    problem: str = ""


def format_time(value: datetime) -> str:
    """ISO 8601 in UTC with microseconds; a naive datetime is taken to be UTC already."""
    t = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def json_details(details: Mapping[str, Any]) -> dict[str, Any]:
    """`details` exactly as a JSON column will hand it back (tuples become lists, ...), so the hash
    computed before storing matches the one recomputed after reading. Raises ValueError on NaN/inf."""
    plain = json.loads(canonical_json(dict(details)))
    assert isinstance(plain, dict)
    return plain


def hash_payload(
    seq: int, record_time: datetime, actor: str, action: str, subject: str, details: Any, prev_hash: str
) -> dict[str, Any]:
    return {
        "seq": seq,
        "record_time": format_time(record_time),
        "actor": actor,
        "action": action,
        "subject": subject,
        "details": details,
        "prev_hash": prev_hash,
    }


def record_hash(
    seq: int, record_time: datetime, actor: str, action: str, subject: str, details: Any, prev_hash: str
) -> str:
    payload = hash_payload(seq, record_time, actor, action, subject, details, prev_hash)
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def seal(entry: AuditEntry, seq: int, prev_hash: str) -> AuditRecord:
    """The record `entry` becomes at position `seq` after the record whose hash is `prev_hash`."""
    details = json_details(entry.details)
    t = entry.record_time.replace(tzinfo=UTC) if entry.record_time.tzinfo is None else entry.record_time
    t = t.astimezone(UTC)
    h = record_hash(seq, t, entry.actor, entry.action, entry.subject, details, prev_hash)
    return AuditRecord(seq, t, entry.actor, entry.action, entry.subject, details, prev_hash, h)


def seal_chain(entries: Iterable[AuditEntry], last_seq: int, last_hash: str) -> list[AuditRecord]:
    """Seal entries one after another, continuing a chain whose last record is (last_seq, last_hash)."""
    out: list[AuditRecord] = []
    seq, prev = last_seq, last_hash
    for entry in entries:
        seq += 1
        record = seal(entry, seq, prev)
        out.append(record)
        prev = record.hash
    return out


def to_json(record: AuditRecord) -> dict[str, Any]:
    """The export form: the hashed payload plus `hash`."""
    r = record
    out = hash_payload(r.seq, r.record_time, r.actor, r.action, r.subject, r.details, r.prev_hash)
    out["hash"] = r.hash
    return out


def from_json(obj: Mapping[str, Any]) -> AuditRecord:
    """Read back an exported line (KeyError/ValueError when it is not one)."""
    return AuditRecord(
        seq=int(obj["seq"]),
        record_time=parse_time(str(obj["record_time"])),
        actor=str(obj["actor"]),
        action=str(obj["action"]),
        subject=str(obj["subject"]),
        details=dict(obj["details"]),
        prev_hash=str(obj["prev_hash"]),
        hash=str(obj["hash"]),
    )


def verify_chain(records: Iterable[AuditRecord]) -> VerifyResult:
    """Walk records in seq order and report the first broken link.

    Three ways a link breaks: a gap in seq (a row deleted), a hash that no longer matches the content
    (a row edited), or a prev_hash that is not the previous record's hash (a row removed or reordered and
    the rest re-hashed). Records are streamed, so a long chain needs no memory.
    """
    checked = 0
    prev_seq = 0
    prev_hash = GENESIS_HASH
    for r in records:
        if r.seq <= prev_seq:
            return VerifyResult(False, checked, r.seq, f"out of order: seq {r.seq} comes after seq {prev_seq}")
        if r.seq != prev_seq + 1:
            missing = (
                f"record {prev_seq + 1} is missing"
                if r.seq == prev_seq + 2
                else f"records {prev_seq + 1}..{r.seq - 1} are missing"
            )
            return VerifyResult(False, checked, r.seq, f"gap in seq: {missing} (deleted)")
        expected = record_hash(r.seq, r.record_time, r.actor, r.action, r.subject, r.details, r.prev_hash)
        if expected != r.hash:
            return VerifyResult(
                False, checked, r.seq, "hash does not match the record's content (the record was edited)"
            )
        if r.prev_hash != prev_hash:
            return VerifyResult(
                False,
                checked,
                r.seq,
                "prev_hash does not match the previous record's hash (a record was removed, replaced or reordered)",
            )
        checked += 1
        prev_seq, prev_hash = r.seq, r.hash
    return VerifyResult(True, checked)
