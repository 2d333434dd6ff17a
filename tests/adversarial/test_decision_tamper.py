"""The tamper corpus for decisions: the decision log audits each written batch with ONE record that vouches
for every decision in it (server/domain/audit_batches.py); someone with write access to the database (not
the audit key) edits or deletes single decision rows, and `outrider audit verify` must name the decision.

The log under attack: 10 decisions written in three batches (d-0..d-3, d-4..d-7, d-8..d-9), two minutes
apart, into a keyed chain: seq 1 the `audit.keyed` marker, seq 2..4 the batch records.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from server.adapters.audit_files import FileCheckpointStore, load_or_create_key
from server.adapters.audit_keys import AuditKeys
from server.cli.audit import add_audit_parser, run_audit
from server.config import DEFAULT_SENSITIVE_KEYS, Config
from server.domain.audit_batches import DECISION_BATCH, batch_root
from server.domain.guardrails import Severity, Verdict
from server.domain.guardrails.chain import ShadowOutcome
from server.services.audit import AuditTrail, CheckpointSettings
from server.services.supervisor.decision_log import DecisionLog, DecisionLogSettings
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate
from server.storage.supervisor.repository import SqlDecisionRepository
from tests.fakes import FakeClock


@dataclass
class Log:
    engine: Engine
    db_url: str
    key_file: Path
    checkpoint_dir: Path

    def sql(self, statement: str, **params: object) -> None:
        with self.engine.begin() as conn:
            conn.execute(text(statement), params)

    def run(self, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
        argv = ["audit", *extra[:1], "--db-url", self.db_url, *extra[1:]]
        if extra[:1] == ("verify",):
            argv += ["--key-file", str(self.key_file), "--checkpoints", str(self.checkpoint_dir)]
        p = argparse.ArgumentParser()
        sub = p.add_subparsers(dest="command", required=True)
        add_audit_parser(sub, lambda q: q.add_argument("--db-url"))
        config = Config(db_url=self.db_url, data_dir=self.key_file.parent / "unused")
        code = run_audit(p.parse_args(argv), config)
        return code, capsys.readouterr().out.strip().splitlines()


def write_log(db_url: str, tmp_path: Path, audit_records: str, *, shadow_and_capture: bool = False) -> Log:
    engine = create_db_engine(db_url)
    migrate(engine)
    clock = FakeClock()
    keys = AuditKeys(load_or_create_key(tmp_path / "audit.key"))
    trail = AuditTrail(
        SqlAuditRepository(engine),
        clock,
        DEFAULT_SENSITIVE_KEYS,
        keys=keys,
        checkpoints=FileCheckpointStore(tmp_path / "checkpoints"),
        settings=CheckpointSettings(every_records=10_000, interval=3600),
    )
    trail.start()
    settings = DecisionLogSettings(
        batch_size=4,
        flush_interval=0.01,
        audit_records=audit_records,
        capture="masked" if shadow_and_capture else "none",
    )
    dlog = DecisionLog(SqlDecisionRepository(engine), clock, settings, trail, sensitive_keys=("password",))
    dlog.start()
    try:
        for first, n in ((0, 4), (4, 4), (8, 2)):
            for i in range(first, first + n):
                allowed = i % 3 != 0
                shadow = ShadowOutcome("strict", f"would block {i}") if shadow_and_capture and allowed else None
                v = Verdict(allowed, f"r{i}", Severity.INFO if allowed else Severity.BLOCK, "cap", (), shadow)
                context = {"cost": i, "password": "hunter2"} if shadow_and_capture else {"cost": i}
                dlog.submit(f"d-{i}", f"ag-{i % 2}", "pay", context, v, 10, f"req-{i}")
            assert dlog.flush(10)
            clock.advance(120)
    finally:
        dlog.stop()
    trail.close()
    assert dlog.stats.written == 10 and dlog.stats.audit_failed == 0
    return Log(engine, db_url, tmp_path / "audit.key", tmp_path / "checkpoints")


@pytest.fixture
def batched(db_url: str, tmp_path: Path) -> Iterator[Log]:
    log = write_log(db_url, tmp_path, "per_batch")
    try:
        yield log
    finally:
        log.engine.dispose()


def test_one_record_per_batch_vouches_for_every_decision(batched: Log, capsys: pytest.CaptureFixture[str]) -> None:
    records = list(SqlAuditRepository(batched.engine).iter_all())
    assert [r.action for r in records] == ["audit.keyed", DECISION_BATCH, DECISION_BATCH, DECISION_BATCH]
    ids = [[p[0] for p in r.details["decisions"]] for r in records[1:]]
    assert ids == [["d-0", "d-1", "d-2", "d-3"], ["d-4", "d-5", "d-6", "d-7"], ["d-8", "d-9"]]
    for r in records[1:]:
        assert r.details["count"] == len(r.details["decisions"])
        assert r.details["root"] == batch_root(p[1] for p in r.details["decisions"])
    assert batched.run(capsys, "verify") == (
        0,
        ["audit chain OK: 4 records; 1 signed checkpoints matched; 10 decisions proved by 3 records"],
    )


EDITS = {
    "allowed flipped": "UPDATE decisions SET allowed = NOT allowed WHERE decision_id = 'd-5'",
    "reason": "UPDATE decisions SET reason = 'fine' WHERE decision_id = 'd-5'",
    "agent": "UPDATE decisions SET agent_id = 'ag-9' WHERE decision_id = 'd-5'",
    "context digest": "UPDATE decisions SET context_digest = 'ab' WHERE decision_id = 'd-5'",
    "severity": "UPDATE decisions SET severity = 2 WHERE decision_id = 'd-5'",
    "severity out of range": "UPDATE decisions SET severity = 0 WHERE decision_id = 'd-5'",
    "decision id": "UPDATE decisions SET decision_id = 'd-55' WHERE decision_id = 'd-5'",
}


@pytest.mark.parametrize("name", list(EDITS))
def test_an_edit_of_one_decision_is_named(batched: Log, capsys: pytest.CaptureFixture[str], name: str) -> None:
    batched.sql(EDITS[name])
    code, out = batched.run(capsys, "verify")
    kind = "decision_missing" if name == "decision id" else "decision_edited"
    assert code == 1 and out[0].startswith(
        f"audit chain BROKEN at record 3 [{kind}]: decision d-5 (#2 of audit record 3)"
    )


def test_deleting_one_decision_in_the_middle_is_named(batched: Log, capsys: pytest.CaptureFixture[str]) -> None:
    batched.sql("DELETE FROM decisions WHERE decision_id = 'd-5'")
    code, out = batched.run(capsys, "verify")
    assert code == 1 and out[0].startswith("audit chain BROKEN at record 3 [decision_missing]: decision d-5 "), out
    assert out[0].endswith("(0 decisions edited, 1 missing)")


def test_deleting_the_newest_decision_is_named(batched: Log, capsys: pytest.CaptureFixture[str]) -> None:
    batched.sql("DELETE FROM decisions WHERE decision_id = 'd-9'")
    code, out = batched.run(capsys, "verify")
    assert code == 1 and out[0].startswith("audit chain BROKEN at record 4 [decision_missing]: decision d-9 "), out


def test_retention_removing_the_oldest_rows_is_not_tampering(batched: Log, capsys: pytest.CaptureFixture[str]) -> None:
    SqlDecisionRepository(batched.engine).prune(None, 5)  # keeps d-5..d-9
    assert batched.run(capsys, "verify") == (
        0,
        [
            "audit chain OK: 4 records; 1 signed checkpoints matched; "
            "5 decisions proved by 3 records (5 older ones pruned by retention)"
        ],
    )


def test_editing_what_the_batch_record_vouches_for_breaks_the_chain(
    batched: Log, capsys: pytest.CaptureFixture[str]
) -> None:
    record = list(SqlAuditRepository(batched.engine).iter_all())[2]
    details = dict(record.details)
    details["decisions"] = [[i, "0" * 64 if i == "d-5" else leaf] for i, leaf in details["decisions"]]
    details["root"] = batch_root(p[1] for p in details["decisions"])
    batched.sql("UPDATE audit_log SET details = :d WHERE seq = 3", d=json.dumps(details))
    code, out = batched.run(capsys, "verify")
    assert code == 1 and out[0].startswith("audit chain BROKEN at record 3 [edited]: "), out


def test_one_decision_is_checked_against_its_batch_record(batched: Log, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = batched.run(capsys, "verify", "--decision", "d-6")
    assert code == 0 and out[1] == "decision d-6 OK (#3 of 4 in audit record 3)", out
    code, out = batched.run(capsys, "verify", "--decision", "d-404")
    assert code == 1 and out[1] == "decision d-404 NOT PROVED: no audit record vouches for this decision", out
    batched.sql(EDITS["reason"].replace("d-5", "d-6"))
    code, out = batched.run(capsys, "verify", "--decision", "d-6")
    assert code == 1 and out[1] == (
        "decision d-6 NOT PROVED (#3 of 4 in audit record 3): "
        "its row does not match what the record vouches for (edited)"
    ), out


def test_the_export_keeps_one_line_per_decision(batched: Log, capsys: pytest.CaptureFixture[str]) -> None:
    batched.sql("DELETE FROM decisions WHERE decision_id = 'd-0'")
    code, lines = batched.run(capsys, "export")
    assert code == 0
    objs = [json.loads(line) for line in lines]
    decisions = [o for o in objs if o.get("action") == "decision"]
    assert [d["subject"] for d in decisions] == [f"d-{i}" for i in range(10)]
    assert [d["batch_seq"] for d in decisions] == [2] * 4 + [3] * 4 + [4] * 2
    assert decisions[0]["row"] == "missing" and "details" not in decisions[0]
    assert decisions[1]["actor"] == "agent:ag-1" and decisions[1]["details"]["reason"] == "r1"


def test_per_decision_records_are_proved_the_same_way(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write_log(db_url, tmp_path, "per_decision")
    try:
        actions = [r.action for r in SqlAuditRepository(log.engine).iter_all()]
        assert actions == ["audit.keyed"] + ["decision"] * 10
        assert log.run(capsys, "verify")[0] == 0
        log.sql(EDITS["reason"])
        code, out = log.run(capsys, "verify")
        assert code == 1 and out[0].startswith("audit chain BROKEN at record 7 [decision_edited]: decision d-5 "), out
    finally:
        log.engine.dispose()


SHADOW_EDITS = {
    "shadow outcome erased": "UPDATE decisions SET shadow_guardrail = '', shadow_reason = '' WHERE decision_id = 'd-5'",
    "shadow reason": "UPDATE decisions SET shadow_reason = 'harmless' WHERE decision_id = 'd-5'",
    "would ask": "UPDATE decisions SET shadow_needs_approval = NOT shadow_needs_approval WHERE decision_id = 'd-5'",
    "captured context": "UPDATE decisions SET context = '{\"cost\": 500}' WHERE decision_id = 'd-5'",
    "capture dropped": "UPDATE decisions SET context = NULL WHERE decision_id = 'd-5'",
}


@pytest.fixture
def shadowed(db_url: str, tmp_path: Path) -> Iterator[Log]:
    log = write_log(db_url, tmp_path, "per_batch", shadow_and_capture=True)
    try:
        yield log
    finally:
        log.engine.dispose()


def test_shadow_outcomes_and_captured_contexts_are_vouched_for(
    shadowed: Log, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {d.decision_id: d for d in SqlDecisionRepository(shadowed.engine).by_ids(["d-5", "d-6"]).values() if d}
    assert rows["d-5"].shadow_guardrail == "strict" and rows["d-5"].context == {"cost": 5, "password": "***"}
    assert shadowed.run(capsys, "verify")[0] == 0
    code, out = shadowed.run(capsys, "verify", "--decision", "d-5")
    assert code == 0 and out[1] == "decision d-5 OK (#2 of 4 in audit record 3)", out


@pytest.mark.parametrize("name", list(SHADOW_EDITS))
def test_an_edit_of_a_shadow_outcome_or_a_captured_context_is_named(
    shadowed: Log, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    shadowed.sql(SHADOW_EDITS[name])
    code, out = shadowed.run(capsys, "verify")
    assert code == 1 and out[0].startswith(
        "audit chain BROKEN at record 3 [decision_edited]: decision d-5 (#2 of audit record 3)"
    ), out
