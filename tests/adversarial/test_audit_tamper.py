"""The tamper corpus: what someone with write access to the database (but not the audit key) does to the
audit trail, on SQLite and PostgreSQL, each with the exact verdict `outrider audit verify` must give.

The chain under attack is the one an upgraded sidecar has: 3 records from before the key (the legacy
SHA-256 rule), the `audit.keyed` marker (seq 4), then 12 keyed records, with signed checkpoints at seq 10
(a periodic one) and seq 16 (the clean shutdown).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, delete, insert, text

from server.adapters.audit_files import FileCheckpointStore, load_or_create_key
from server.adapters.audit_keys import AuditKeys
from server.cli.audit import add_audit_parser, run_audit
from server.config import DEFAULT_SENSITIVE_KEYS, Config
from server.domain.audit import GENESIS_HASH, AuditRecord, record_hash
from server.domain.audit_checkpoints import to_json as checkpoint_json
from server.services.audit import AuditTrail, CheckpointSettings
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate
from server.storage.tables import AuditRow
from tests.fakes import FakeClock

Records = list[AuditRecord]


@dataclasses.dataclass
class Corpus:
    engine: Engine
    db_url: str
    key_file: Path
    checkpoint_dir: Path
    keys: AuditKeys
    clock: FakeClock

    def trail(self) -> AuditTrail:
        return AuditTrail(
            SqlAuditRepository(self.engine),
            self.clock,
            DEFAULT_SENSITIVE_KEYS,
            keys=self.keys,
            checkpoints=FileCheckpointStore(self.checkpoint_dir),
            settings=CheckpointSettings(every_records=10_000, interval=3600),
        )

    def records(self) -> Records:
        return list(SqlAuditRepository(self.engine).iter_all())

    def sql(self, statement: str, **params: object) -> None:
        with self.engine.begin() as conn:
            conn.execute(text(statement), params)

    def rewrite(self, change: Callable[[Records], Records]) -> None:
        """Replace the whole table with `change(records)`: what a database writer can always do."""
        new = change(self.records())
        with self.engine.begin() as conn:
            conn.execute(delete(AuditRow.__table__))  # type: ignore[arg-type]
            if new:
                conn.execute(
                    insert(AuditRow.__table__),  # type: ignore[attr-defined]
                    [dataclasses.asdict(r) for r in new],
                )


def approvals(trail: AuditTrail, clock: FakeClock, first: int, n: int) -> None:
    for i in range(first, first + n):
        clock.advance(1)
        trail.record("reviewer:alice", "approval.decide", f"apr_{i}", {"decision": "approve", "i": i})


@pytest.fixture
def corpus(db_url: str, tmp_path: Path) -> Iterator[Corpus]:
    engine = create_db_engine(db_url)
    migrate(engine)
    clock = FakeClock()
    keys = AuditKeys(load_or_create_key(tmp_path / "audit.key"))
    c = Corpus(engine, db_url, tmp_path / "audit.key", tmp_path / "checkpoints", keys, clock)
    legacy = AuditTrail(SqlAuditRepository(engine), clock, DEFAULT_SENSITIVE_KEYS)  # before the upgrade
    approvals(legacy, clock, 1, 3)
    trail = c.trail()
    trail.start()  # seq 4: the audit.keyed marker
    approvals(trail, clock, 5, 6)
    assert trail.checkpoint() is not None  # seq 10
    approvals(trail, clock, 11, 6)
    trail.close()  # seq 16, the clean shutdown's checkpoint
    try:
        yield c
    finally:
        engine.dispose()


def rehash(records: Records, start: int, key: bytes | None = None) -> Records:
    """Re-seal records[start:] with `key` (None: plain SHA-256), renumbered and relinked after records[:start]."""
    out = records[:start]
    for r in records[start:]:
        seq = out[-1].seq + 1 if out else 1
        prev = out[-1].hash if out else GENESIS_HASH
        h = record_hash(seq, r.record_time, r.actor, r.action, r.subject, r.details, prev, key)
        out.append(dataclasses.replace(r, seq=seq, prev_hash=prev, hash=h))
    return out


def edited(records: Records, seq: int, **changes: object) -> Records:
    return [dataclasses.replace(r, **changes) if r.seq == seq else r for r in records]  # type: ignore[arg-type]


def forged(template: AuditRecord, subject: str) -> AuditRecord:
    return dataclasses.replace(template, subject=subject, details={"decision": "approve", "forged": True})


def swap_8_and_9(c: Corpus) -> None:
    c.sql("UPDATE audit_log SET seq = 1000 WHERE seq = 8")
    c.sql("UPDATE audit_log SET seq = 8 WHERE seq = 9")
    c.sql("UPDATE audit_log SET seq = 9 WHERE seq = 1000")


# name -> (attack, (kind, first affected record, affected or missing range))
Attack = Callable[[Corpus], None]
ISSUE_CASES: dict[str, tuple[Attack, tuple[str, int, tuple[int, int] | None]]] = {
    "field edit: details": (
        lambda c: c.sql("UPDATE audit_log SET details = :d WHERE seq = 7", d='{"decision": "reject", "i": 7}'),
        ("edited", 7, None),
    ),
    "field edit: actor": (
        lambda c: c.sql("UPDATE audit_log SET actor = 'reviewer:bob' WHERE seq = 7"),
        ("edited", 7, None),
    ),
    "field edit: record time": (
        lambda c: c.sql(
            "UPDATE audit_log SET record_time = :t WHERE seq = 7", t=c.records()[6].record_time - timedelta(hours=1)
        ),
        ("edited", 7, None),
    ),
    "field edit: hash column": (
        lambda c: c.sql("UPDATE audit_log SET hash = :h WHERE seq = 7", h="f" * 64),
        ("edited", 7, None),
    ),
    "field edit: prev_hash column": (
        lambda c: c.sql("UPDATE audit_log SET prev_hash = :h WHERE seq = 7", h="e" * 64),
        ("edited", 7, None),
    ),
    "edit then re-hash the rest (SHA-256)": (
        lambda c: c.rewrite(lambda rs: rehash(edited(rs, 7, subject="apr_other"), 6)),
        ("edited", 7, None),
    ),
    "edit then re-hash the rest (a guessed key)": (
        lambda c: c.rewrite(lambda rs: rehash(edited(rs, 7, subject="apr_other"), 6, b"guess" * 6 + b"!!")),
        ("edited", 7, None),
    ),
    "deletion in the middle": (lambda c: c.sql("DELETE FROM audit_log WHERE seq = 8"), ("missing", 9, (8, 8))),
    "deletion, renumbering and re-hashing": (
        lambda c: c.rewrite(lambda rs: rehash(rs[:7] + rs[8:], 7)),
        ("edited", 8, None),
    ),
    "deletion of the newest records": (
        lambda c: c.sql("DELETE FROM audit_log WHERE seq >= 14"),
        ("truncated", 14, (14, 16)),
    ),
    "a forged appended approval": (
        lambda c: c.rewrite(lambda rs: rehash([*rs, forged(rs[-1], "apr_forged")], len(rs))),
        ("edited", 17, None),
    ),
    "insertion in the middle": (
        lambda c: c.rewrite(lambda rs: rehash([*rs[:7], forged(rs[7], "apr_inserted"), *rs[7:]], 7)),
        ("edited", 8, None),
    ),
    "reordering two records": (swap_8_and_9, ("edited", 8, None)),
    "database restored from an older copy": (
        lambda c: c.sql("DELETE FROM audit_log WHERE seq > 12"),
        ("truncated", 13, (13, 16)),
    ),
}


def restored_and_continued(c: Corpus) -> None:
    """The older copy came back and the sidecar went on writing: seq 13.. exist again, but other records."""
    c.sql("DELETE FROM audit_log WHERE seq > 12")
    approvals(c.trail(), c.clock, 100, 4)


def forged_checkpoint(c: Corpus) -> None:
    path = sorted(c.checkpoint_dir.glob("checkpoint-*.json"))[-1]
    obj = json.loads(path.read_text())
    obj["seq"] = 12  # vouch for less, hoping to hide records 13..16
    path.write_text(json.dumps(obj))


def checkpoint_signed_by_someone_else(c: Corpus) -> None:
    other = AuditKeys(b"\x01" * 32)
    cp = other.sign(20, "a" * 64, c.clock.utcnow())
    FileCheckpointStore(c.checkpoint_dir).write(dataclasses.replace(cp, public_key=c.keys.public_key))
    (c.checkpoint_dir / "checkpoint-extra.json").write_text(
        json.dumps(checkpoint_json(other.sign(21, "b" * 64, c.clock.utcnow())))
    )


OUR_CASES: dict[str, tuple[Attack, tuple[str, int, tuple[int, int] | None]]] = {
    "restored from an older copy, then continued": (restored_and_continued, ("checkpoint_mismatch", 16, (11, 16))),
    "the whole chain re-hashed with SHA-256 (downgrade)": (
        lambda c: c.rewrite(lambda rs: rehash(rs, 0)),
        ("checkpoint_mismatch", 10, (1, 10)),
    ),
    "the legacy part edited and re-hashed": (
        lambda c: c.rewrite(lambda rs: rehash(edited(rs, 2, actor="reviewer:bob"), 0)[:3] + rs[3:]),
        ("relinked", 4, None),
    ),
    "a legacy-rule record after the marker": (
        lambda c: c.rewrite(lambda rs: rehash(edited(rs, 9, subject="apr_x"), 8)),
        ("edited", 9, None),
    ),
    "deletion of the first record": (lambda c: c.sql("DELETE FROM audit_log WHERE seq = 1"), ("missing", 2, (1, 1))),
    "every record deleted": (lambda c: c.sql("DELETE FROM audit_log"), ("truncated", 1, (1, 16))),
}


def cli(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    add_audit_parser(sub, lambda q: q.add_argument("--db-url"))
    return p.parse_args(argv)


def verdict(c: Corpus, capsys: pytest.CaptureFixture[str], checkpoints: bool = True) -> tuple[int, str]:
    argv = ["audit", "verify", "--db-url", c.db_url, "--key-file", str(c.key_file)]
    if checkpoints:
        argv += ["--checkpoints", str(c.checkpoint_dir)]
    code = run_audit(cli(argv), Config(db_url=c.db_url, data_dir=c.key_file.parent / "unused"))
    return code, capsys.readouterr().out.strip()


def test_the_untouched_chain_verifies(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    assert verdict(corpus, capsys) == (
        0,
        "audit chain OK: 16 records; 3 from before the audit key (SHA-256 rule), keyed from record 4 on; "
        "2 signed checkpoints matched",
    )
    marker = corpus.records()[3]
    assert (marker.action, marker.details) == (
        "audit.keyed",
        {"rule": "hmac-sha256", "legacy_records": 3, "legacy_head": corpus.records()[2].hash},
    )


@pytest.mark.parametrize("name", list(ISSUE_CASES) + list(OUR_CASES))
def test_each_tampering_gets_its_exact_verdict(corpus: Corpus, capsys: pytest.CaptureFixture[str], name: str) -> None:
    attack, (kind, first, affected) = {**ISSUE_CASES, **OUR_CASES}[name]
    attack(corpus)
    result = corpus.trail().verify()
    assert (result.chain.kind, result.chain.first_broken_seq, result.chain.missing) == (kind, first, affected)
    code, out = verdict(corpus, capsys)
    where = f"records {affected[0]}..{affected[1]}" if affected else f"record {first}"
    assert code == 1 and out.startswith(f"audit chain BROKEN at {where} [{kind}]: "), out


def test_the_issue_has_fourteen_cases() -> None:
    assert len(ISSUE_CASES) == 14


@pytest.mark.parametrize("attack", [forged_checkpoint, checkpoint_signed_by_someone_else])
def test_checkpoints_that_are_not_ours_are_reported(
    corpus: Corpus, capsys: pytest.CaptureFixture[str], attack: Attack
) -> None:
    attack(corpus)
    result = corpus.trail().verify()
    assert result.chain.ok and result.kind == "bad_checkpoint" and not result.ok
    code, out = verdict(corpus, capsys)
    assert code == 1 and out.startswith("audit checkpoints BROKEN [bad_checkpoint]: checkpoint-"), out


def test_without_checkpoints_the_downgrade_is_still_caught(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    corpus.rewrite(lambda rs: rehash(rs, 0))
    code, out = verdict(corpus, capsys, checkpoints=False)
    assert code == 1 and out.startswith("audit chain BROKEN at record 1 [unkeyed]: "), out


def test_without_the_key_the_legacy_part_is_checked_and_the_rest_named(
    corpus: Corpus, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_audit(
        cli(["audit", "verify", "--db-url", corpus.db_url]),
        Config(db_url=corpus.db_url, data_dir=corpus.key_file.parent / "none"),
    )
    out = capsys.readouterr().out.strip()
    assert code == 1 and out.startswith("audit chain BROKEN at record 4 [needs_key]: records from 4 on are sealed"), out


def test_export_includes_the_checkpoints(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "export", "--db-url", corpus.db_url, "--checkpoints", str(corpus.checkpoint_dir)]
    assert run_audit(cli(argv), Config(db_url=corpus.db_url)) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["seq"] for o in lines if "checkpoint" not in o] == list(range(1, 17))
    assert [(o["checkpoint"]["seq"], o["checkpoint"]["head"]) for o in lines if "checkpoint" in o] == [
        (10, corpus.records()[9].hash),
        (16, corpus.records()[15].hash),
    ]
