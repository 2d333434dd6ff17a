"""The audit trail's chain: how a record is sealed and how a chain is verified.

A record's payload is the canonical JSON of {seq, record_time, actor, action, subject, details, prev_hash},
with `record_time` as ISO 8601 UTC with microseconds (`2026-01-01T00:00:00.000000Z`) and `prev_hash` the
previous record's hash (64 zeros for the first record). Its `hash` is the HMAC-SHA256 hex of the payload
under the chain key (the keyed rule: nobody without the key can re-seal an edited chain). Records written
before the sidecar had a key carry the SHA-256 hex of the payload (the legacy rule); the first keyed record
is the `audit.keyed` marker, whose details name how many legacy records precede it and their head hash, and
after it every record must be keyed. An exported line is the payload plus `hash`.

A record's details may hold a list of digests (a record covering a whole batch): the rule does not care.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from server.domain.values import canonical_json

GENESIS_HASH = "0" * 64
KEYED_MARKER = "audit.keyed"  # the first record sealed with the chain key


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
    """The verdict on a chain. `kind` is one word for machines (see `verify_chain`); on a break,
    `first_broken_seq` is the first affected record and `missing` the affected or missing range."""

    ok: bool
    checked: int  # records found intact (on a break: those before it)
    first_broken_seq: int | None = None
    problem: str = ""
    kind: str = "ok"
    missing: tuple[int, int] | None = None
    legacy: int = 0  # records sealed with the legacy (unkeyed) rule, all before the marker
    keyed_from: int | None = None  # seq of the marker
    checkpoints: int = 0  # signed checkpoints the chain was matched against


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
    seq: int,
    record_time: datetime,
    actor: str,
    action: str,
    subject: str,
    details: Any,
    prev_hash: str,
    key: bytes | None = None,
) -> str:
    """HMAC-SHA256 under `key` (the keyed rule), or plain SHA-256 without one (the legacy rule)."""
    payload = canonical_json(hash_payload(seq, record_time, actor, action, subject, details, prev_hash)).encode()
    if key is None:
        return hashlib.sha256(payload).hexdigest()
    return hmac.new(key, payload, hashlib.sha256).hexdigest()


def seal(
    entry: AuditEntry, seq: int, prev_hash: str, key: bytes | None = None, record_time: datetime | None = None
) -> AuditRecord:
    """The record `entry` becomes at position `seq` after the record whose hash is `prev_hash` (at
    `record_time` when given, else the entry's own)."""
    details = json_details(entry.details)
    t = record_time or entry.record_time
    t = (t.replace(tzinfo=UTC) if t.tzinfo is None else t).astimezone(UTC)
    h = record_hash(seq, t, entry.actor, entry.action, entry.subject, details, prev_hash, key)
    return AuditRecord(seq, t, entry.actor, entry.action, entry.subject, details, prev_hash, h)


def seal_chain(
    entries: Iterable[AuditEntry],
    last_seq: int,
    last_hash: str,
    key: bytes | None = None,
    record_time: datetime | None = None,
) -> list[AuditRecord]:
    """Seal entries one after another, continuing a chain whose last record is (last_seq, last_hash)."""
    out: list[AuditRecord] = []
    seq, prev = last_seq, last_hash
    for entry in entries:
        seq += 1
        record = seal(entry, seq, prev, key, record_time)
        out.append(record)
        prev = record.hash
    return out


def is_keyed(record: AuditRecord, key: bytes) -> bool:
    r = record
    expected = record_hash(r.seq, r.record_time, r.actor, r.action, r.subject, r.details, r.prev_hash, key)
    return hmac.compare_digest(expected, r.hash)


def is_legacy(record: AuditRecord) -> bool:
    r = record
    return record_hash(r.seq, r.record_time, r.actor, r.action, r.subject, r.details, r.prev_hash) == r.hash


def marker_entry(legacy_records: int, legacy_head: str, record_time: datetime) -> AuditEntry:
    """The first keyed record: says where the legacy part ends, so that part is sealed under the key too."""
    details = {"rule": "hmac-sha256", "legacy_records": legacy_records, "legacy_head": legacy_head}
    return AuditEntry("system", KEYED_MARKER, "audit", details, record_time)


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


def _broken(kind: str, checked: int, seq: int | None, problem: str, **kw: Any) -> VerifyResult:
    return VerifyResult(False, checked, seq, problem, kind, **kw)


def verify_chain(
    records: Iterable[AuditRecord],
    key: bytes | None = None,
    checkpoints: Mapping[int, Iterable[str]] | None = None,
) -> VerifyResult:
    """Walk records in seq order and report the first break.

    `key` is the chain key: without it only legacy records can be checked. `checkpoints` maps a seq to the
    head hashes that signed checkpoints vouch for there (signatures already checked by the caller).
    Kinds of break: `out_of_order`, `missing` (a gap: deleted records), `edited` (a hash that does not match
    the content under the expected rule: an edit, a re-hash without the key, a forged or inserted record),
    `relinked` (prev_hash is not the previous record's hash), `bad_marker`, `needs_key` (keyed records and
    no key), `unkeyed` (a key was given but no record is sealed with it), `checkpoint_mismatch` (a signed
    checkpoint vouches for another record here: the chain was rewritten with the key, or restored from an
    older copy and continued) and `truncated` (the chain ends before a signed checkpoint: newest records
    deleted, or an older copy restored). Records are streamed, so a long chain needs no memory.
    """
    heads = {seq: frozenset(h) for seq, h in (checkpoints or {}).items()}
    checked = legacy = 0
    prev_seq, prev_hash = 0, GENESIS_HASH
    keyed_from: int | None = None
    good_checkpoint = 0  # the last seq a checkpoint vouched for and the chain matched
    matched = 0
    for r in records:
        info = {"legacy": legacy, "keyed_from": keyed_from, "checkpoints": matched}
        if r.seq <= prev_seq:
            return _broken(
                "out_of_order", checked, r.seq, f"out of order: seq {r.seq} comes after seq {prev_seq}", **info
            )
        if r.seq != prev_seq + 1:
            gap = (prev_seq + 1, r.seq - 1)
            missing = f"record {gap[0]} is missing" if gap[0] == gap[1] else f"records {gap[0]}..{gap[1]} are missing"
            return _broken("missing", checked, r.seq, f"gap in seq: {missing} (deleted)", missing=gap, **info)
        if key is not None and is_keyed(r, key):
            if keyed_from is None:
                keyed_from = r.seq
                d = r.details
                if (
                    r.action != KEYED_MARKER
                    or d.get("legacy_records") != r.seq - 1
                    or d.get("legacy_head") != r.prev_hash
                ):
                    return _broken(
                        "bad_marker",
                        checked,
                        r.seq,
                        f"the first keyed record (seq {r.seq}) is not a valid {KEYED_MARKER} marker for the "
                        f"{r.seq - 1} records before it",
                        **info,
                    )
        elif keyed_from is None and is_legacy(r):
            legacy += 1
        elif keyed_from is None and key is None and r.action == KEYED_MARKER:
            return _broken(
                "needs_key",
                checked,
                r.seq,
                f"records from {r.seq} on are sealed with the audit key: verify with --key-file "
                f"({legacy} legacy records before it are intact)",
                **info,
            )
        else:
            rule = "the audit key" if keyed_from is not None or key is not None else "SHA-256"
            return _broken(
                "edited",
                checked,
                r.seq,
                f"hash does not match the record's content under {rule} "
                "(the record was edited, re-hashed without the key, forged or inserted)",
                **info,
            )
        if r.prev_hash != prev_hash:
            return _broken(
                "relinked",
                checked,
                r.seq,
                "prev_hash does not match the previous record's hash (a record was removed, replaced or reordered)",
                **info,
            )
        if r.seq in heads:
            if heads[r.seq] != {r.hash}:
                first = good_checkpoint + 1
                return _broken(
                    "checkpoint_mismatch",
                    checked,
                    r.seq,
                    f"record {r.seq} is not the one a signed checkpoint vouches for: records {first}..{r.seq} "
                    "were replaced (restored from an older copy and continued, or rewritten with the key)",
                    missing=(first, r.seq),
                    **info,
                )
            good_checkpoint, matched = r.seq, matched + 1
        checked += 1
        prev_seq, prev_hash = r.seq, r.hash
    info = {"legacy": legacy, "keyed_from": keyed_from, "checkpoints": matched}
    if key is not None and keyed_from is None and prev_seq > 0:
        return _broken(
            "unkeyed",
            checked,
            1,
            f"none of the {prev_seq} records is sealed with this key: the chain was re-written without the key, "
            "or this is not the key of this database",
            **info,
        )
    last_vouched = max(heads, default=0)
    if last_vouched > prev_seq:
        gap = (prev_seq + 1, last_vouched)
        return _broken(
            "truncated",
            checked,
            gap[0],
            f"records {gap[0]}..{gap[1]} are missing: the chain ends at record {prev_seq} but a signed checkpoint "
            f"vouches for record {last_vouched} (newest records deleted, or the database restored from an older copy)",
            missing=gap,
            **info,
        )
    return VerifyResult(True, checked, legacy=legacy, keyed_from=keyed_from, checkpoints=matched)
