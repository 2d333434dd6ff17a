"""The audit hash chain: sealing, the hash rule, and verification reporting the first broken link."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from server.domain.audit import (
    GENESIS_HASH,
    AuditEntry,
    AuditRecord,
    format_time,
    from_json,
    record_hash,
    seal,
    seal_chain,
    to_json,
    verify_chain,
)

T0 = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def entries(n: int) -> list[AuditEntry]:
    return [
        AuditEntry(f"operator:op{i}", "guardrail.add", f"g{i}", {"i": i, "kind": "cost_cap"}, T0 + timedelta(seconds=i))
        for i in range(n)
    ]


def chain(n: int = 5) -> list[AuditRecord]:
    return seal_chain(entries(n), 0, GENESIS_HASH)


def test_hash_is_sha256_of_the_canonical_payload() -> None:
    r = seal(AuditEntry("agent:a", "decision", "d-1", {"b": 1, "a": "é"}, T0), 1, GENESIS_HASH)
    payload = {
        "seq": 1,
        "record_time": "2026-01-02T03:04:05.678901Z",
        "actor": "agent:a",
        "action": "decision",
        "subject": "d-1",
        "details": {"a": "é", "b": 1},
        "prev_hash": "0" * 64,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert r.hash == hashlib.sha256(text.encode()).hexdigest()
    assert r.prev_hash == GENESIS_HASH == "0" * 64


def test_time_is_utc_with_microseconds_whatever_the_input_zone() -> None:
    assert format_time(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00.000000Z"
    plus2 = datetime(2026, 1, 1, 2, 0, 0, 5, tzinfo=timezone(timedelta(hours=2)))
    assert format_time(plus2) == "2026-01-01T00:00:00.000005Z"
    assert format_time(datetime(2026, 1, 1)) == "2026-01-01T00:00:00.000000Z"  # naive: already UTC


def test_every_field_is_covered_by_the_hash() -> None:
    base = (1, T0, "a", "act", "s", {"k": 1}, GENESIS_HASH)
    h = record_hash(*base)
    variants = [
        (2, *base[1:]),
        (1, T0 + timedelta(microseconds=1), *base[2:]),
        (*base[:2], "b", *base[3:]),
        (*base[:3], "act2", *base[4:]),
        (*base[:4], "s2", *base[5:]),
        (*base[:5], {"k": 2}, GENESIS_HASH),
        (*base[:6], "1" * 64),
    ]
    assert all(record_hash(*v) != h for v in variants)


def test_sealing_normalises_details_to_what_json_storage_returns() -> None:
    r = seal(AuditEntry("a", "x", "s", {"pair": ("k", 1), "n": 1.5}, T0), 1, GENESIS_HASH)
    assert r.details == {"pair": ["k", 1], "n": 1.5}
    with pytest.raises(ValueError):
        seal(AuditEntry("a", "x", "s", {"n": float("nan")}, T0), 1, GENESIS_HASH)


def test_a_sealed_chain_links_and_verifies() -> None:
    records = chain(5)
    assert [r.seq for r in records] == [1, 2, 3, 4, 5]
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(records))
    assert verify_chain(records) == verify_chain(iter(records))
    result = verify_chain(records)
    assert (result.ok, result.checked, result.first_broken_seq, result.problem) == (True, 5, None, "")


def test_empty_chain_is_ok() -> None:
    assert verify_chain([]).ok and verify_chain([]).checked == 0


def test_continuing_a_chain_matches_sealing_it_at_once() -> None:
    whole = chain(6)
    first = seal_chain(entries(6)[:3], 0, GENESIS_HASH)
    rest = seal_chain(entries(6)[3:], first[-1].seq, first[-1].hash)
    assert first + rest == whole


def test_edited_content_breaks_at_that_record() -> None:
    records = chain(5)
    records[2] = dataclasses.replace(records[2], details={"i": 999, "kind": "cost_cap"})
    r = verify_chain(records)
    assert (r.ok, r.first_broken_seq, r.checked) == (False, 3, 2)
    assert "edited" in r.problem


def test_edited_then_rehashed_record_breaks_at_the_next_link() -> None:
    records = chain(5)
    e = records[2]
    forged = dataclasses.replace(e, actor="operator:someone-else")
    forged = dataclasses.replace(
        forged, hash=record_hash(e.seq, e.record_time, forged.actor, e.action, e.subject, e.details, e.prev_hash)
    )
    records[2] = forged
    r = verify_chain(records)
    assert (r.ok, r.first_broken_seq) == (False, 4)
    assert "prev_hash" in r.problem


def test_deleted_record_is_a_gap_reported_at_the_next_seq() -> None:
    records = chain(5)
    del records[1]
    r = verify_chain(records)
    assert (r.ok, r.first_broken_seq, r.checked) == (False, 3, 1)
    assert r.problem == "gap in seq: record 2 is missing (deleted)"
    assert verify_chain(chain(6)[:2] + chain(6)[4:]).problem == "gap in seq: records 3..4 are missing (deleted)"


def test_deleting_the_first_record_is_reported() -> None:
    r = verify_chain(chain(3)[1:])
    assert (r.ok, r.first_broken_seq) == (False, 2)
    assert "record 1 is missing" in r.problem


def test_removed_and_renumbered_records_break_the_link() -> None:
    # A forger deletes record 2 and re-seals record 3 as seq 2 with its own old prev_hash.
    records = chain(4)
    old3 = records[2]
    renumbered = dataclasses.replace(
        old3,
        seq=2,
        hash=record_hash(2, old3.record_time, old3.actor, old3.action, old3.subject, old3.details, old3.prev_hash),
    )
    r = verify_chain([records[0], renumbered])
    assert (r.ok, r.first_broken_seq) == (False, 2)
    assert "prev_hash" in r.problem


def test_out_of_order_records_are_reported() -> None:
    records = chain(3)
    r = verify_chain([records[0], records[2], records[1]])
    assert r.first_broken_seq == 3  # first a gap at 3
    r = verify_chain([records[0], records[1], records[1]])
    assert (r.first_broken_seq, r.problem) == (2, "out of order: seq 2 comes after seq 2")


def test_export_form_round_trips_and_reverifies() -> None:
    records = chain(4)
    lines = [json.dumps(to_json(r)) for r in records]
    back = [from_json(json.loads(line)) for line in lines]
    assert back == records
    assert verify_chain(back).ok
    # The export line without `hash` is exactly the hashed payload.
    obj = json.loads(lines[0])
    h = obj.pop("hash")
    assert hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest() == h
