"""The audit trail on SQLite and the real PostgreSQL: the chain, hand edits, masking, export, concurrency,
the decision log feeding it, and the `outrider audit` commands."""

from __future__ import annotations

import argparse
import json
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from server.cli.audit import add_audit_parser, run_audit
from server.config import DEFAULT_SENSITIVE_KEYS, Config
from server.domain.audit import AuditEntry, from_json, verify_chain
from server.domain.guardrails import Severity, Verdict
from server.domain.values import digest
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.services.supervisor.decision_log import DecisionLog, DecisionLogSettings
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine
from server.storage.supervisor.repository import SqlDecisionRepository
from tests.fakes import FakeClock

SECRETS = ("hunter2-pw", "sk-live-abcdef", "Bearer tok-xyz")


def trail(engine: Engine, clock: Any = None) -> AuditTrail:
    return AuditTrail(SqlAuditRepository(engine), clock or FakeClock(), DEFAULT_SENSITIVE_KEYS)


def fill(t: AuditTrail, n: int) -> None:
    for i in range(n):
        t.record("operator:ann", "guardrail.add", f"g-{i}", {"i": i, "options": {"max": i * 10}})


def sql(engine: Engine, statement: str) -> None:
    with engine.begin() as conn:
        conn.execute(text(statement))


def raw_details(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return [str(v) for v in conn.execute(text("SELECT CAST(details AS TEXT) FROM audit_log ORDER BY seq"))]


def export_lines(t: AuditTrail) -> list[str]:
    lines: list[str] = []
    t.export(lines.append)
    return lines


def test_records_append_in_order_and_verify(engine: Engine) -> None:
    clock = FakeClock()
    t = trail(engine, clock)
    assert t.verify().ok and t.verify().checked == 0
    fill(t, 3)
    clock.advance(0.000001)
    t.record("agent:a", "decision", "d-1", {"allowed": True})
    records = list(t.repo.iter_all())
    assert [r.seq for r in records] == [1, 2, 3, 4]
    assert [r.subject for r in records] == ["g-0", "g-1", "g-2", "d-1"]
    assert records[3].record_time == clock.utcnow() and records[3].record_time.tzinfo is not None
    assert t.count() == 4
    result = t.verify()
    assert (result.ok, result.checked) == (True, 4)


def test_iter_all_pages_in_seq_order(engine: Engine) -> None:
    repo = SqlAuditRepository(engine)
    clock = FakeClock()
    repo.append_many([AuditEntry("system", "x", str(i), {}, clock.utcnow()) for i in range(7)])
    assert [r.seq for r in repo.iter_all(batch=3)] == list(range(1, 8))
    assert [r.seq for r in repo.iter_all(batch=7)] == list(range(1, 8))
    assert verify_chain(repo.iter_all(batch=2)).ok
    assert repo.append_many([]) == []


def test_a_row_edited_by_hand_breaks_the_chain_at_exactly_that_record(engine: Engine) -> None:
    t = trail(engine)
    fill(t, 6)
    sql(engine, """UPDATE audit_log SET details = '{"i": 3, "options": {"max": 0}}' WHERE seq = 4""")
    result = t.verify()
    assert (result.ok, result.first_broken_seq, result.checked) == (False, 4, 3)
    assert "edited" in result.problem


def test_other_hand_edits_are_caught_too(engine: Engine) -> None:
    t = trail(engine)
    fill(t, 4)
    sql(engine, "UPDATE audit_log SET actor = 'operator:mallory' WHERE seq = 2")
    assert t.verify().first_broken_seq == 2
    sql(engine, "UPDATE audit_log SET actor = 'operator:ann' WHERE seq = 2")
    assert t.verify().ok  # put back exactly: intact again
    old_hash = next(r.hash for r in t.repo.iter_all() if r.seq == 2)
    sql(engine, f"UPDATE audit_log SET hash = '{'a' * 64}' WHERE seq = 2")
    assert t.verify().first_broken_seq == 2
    sql(engine, f"UPDATE audit_log SET hash = '{old_hash}' WHERE seq = 2")
    if engine.dialect.name == "postgresql":
        sql(engine, "UPDATE audit_log SET record_time = record_time + INTERVAL '1 microsecond' WHERE seq = 3")
    else:
        sql(engine, "UPDATE audit_log SET record_time = '2020-01-01 00:00:00.000000' WHERE seq = 3")
    assert t.verify().first_broken_seq == 3


def test_a_deleted_row_is_reported_at_the_record_after_the_gap(engine: Engine) -> None:
    t = trail(engine)
    fill(t, 5)
    sql(engine, "DELETE FROM audit_log WHERE seq = 3")
    result = t.verify()
    assert (result.ok, result.first_broken_seq) == (False, 4)
    assert result.problem == "gap in seq: record 3 is missing (deleted)"


def test_appending_after_a_tail_delete_still_leaves_evidence(engine: Engine) -> None:
    # Deleting the newest row and appending again: the new record reuses the seq, but the row before it
    # is intact, so the chain verifies; the export already handed out is what proves the deletion.
    t = trail(engine)
    fill(t, 3)
    before = export_lines(t)
    sql(engine, "DELETE FROM audit_log WHERE seq = 3")
    t.record("system", "x", "y", {})
    assert t.verify().ok
    after = export_lines(t)
    assert before[:2] == after[:2] and before[2] != after[2]


def test_export_writes_json_lines_whose_hashes_reverify(engine: Engine) -> None:
    t = trail(engine)
    fill(t, 4)
    t.record("agent:b", "decision", "d-9", {"warnings": [["w", "é ünïcode"]], "ratio": 0.1})
    lines = export_lines(t)
    assert len(lines) == 5 and all("\n" not in line for line in lines)
    objs = [json.loads(line) for line in lines]
    assert set(objs[0]) == {"seq", "record_time", "actor", "action", "subject", "details", "prev_hash", "hash"}
    assert objs[4]["details"] == {"warnings": [["w", "é ünïcode"]], "ratio": 0.1}
    assert verify_chain(from_json(o) for o in objs).ok
    assert [o["hash"] for o in objs] == [r.hash for r in t.repo.iter_all()]
    # An edited export line fails verification at that record.
    objs[1]["subject"] = "g-forged"
    assert verify_chain(from_json(o) for o in objs).first_broken_seq == 2


def test_sensitive_keys_never_reach_the_database_or_the_export(engine: Engine) -> None:
    t = trail(engine)
    t.record(
        "operator:ann",
        "token.issue",
        "tok-1",
        {
            "password": SECRETS[0],
            "config": {"api_key": SECRETS[1], "headers": {"Authorization": SECRETS[2]}},
            "tokens": 1500,
            "note": "kept",
        },
    )
    stored = raw_details(engine)
    exported = "\n".join(export_lines(t))
    for secret in SECRETS:
        assert secret not in stored[0]
        assert secret not in exported
    details = next(t.repo.iter_all()).details
    assert details == {
        "password": "***",
        "config": {"api_key": "***", "headers": {"Authorization": "***"}},
        "tokens": 1500,
        "note": "kept",
    }
    assert t.verify().ok


def test_details_that_are_not_plain_json_are_stored_as_text(engine: Engine) -> None:
    t = trail(engine)
    odd: dict[Any, Any] = {"when": FakeClock().utcnow(), "nan": float("nan"), "ids": ("a", "b"), 1: "one"}
    t.record("system", "x", "y", odd)
    assert next(t.repo.iter_all()).details == {
        "when": "2026-01-01T00:16:40+00:00",
        "nan": "nan",
        "ids": ["a", "b"],
        "1": "one",
    }
    assert t.verify().ok


def test_concurrent_writers_keep_one_unforked_chain(
    db_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    # Each thread has its own engine, as separate sidecars sharing one database would. The lock makes
    # them queue: no writer should even need the retry on a duplicate seq.
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def writer(n: int) -> None:
        own = create_db_engine(db_url)
        try:
            t = trail(own, SystemClock())
            start.wait()
            for i in range(50):
                t.record(f"agent:w{n}", "decision", f"{n}-{i}", {"i": i})
        except BaseException as exc:
            errors.append(exc)
        finally:
            own.dispose()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert errors == []
    assert "raced another writer" not in caplog.text
    t = trail(engine)
    assert t.count() == 200
    result = t.verify()
    assert (result.ok, result.checked) == (True, 200)
    subjects = [r.subject for r in t.repo.iter_all()]
    assert sorted(subjects) == sorted(f"{n}-{i}" for n in range(4) for i in range(50))


# The decision log feeding the trail.


def verdict(allowed: bool = True, reason: str = "ok", warnings: tuple[tuple[str, str], ...] = ()) -> Verdict:
    return Verdict(allowed, reason, Severity.INFO if allowed else Severity.BLOCK, "cap", warnings)


def decision_log(engine: Engine, audit: Any, **settings: Any) -> DecisionLog:
    return DecisionLog(SqlDecisionRepository(engine), FakeClock(), DecisionLogSettings(**settings), audit)


def test_each_written_decision_gets_one_audit_record(engine: Engine) -> None:
    t = trail(engine)
    dlog = decision_log(engine, t, batch_size=3, flush_interval=0.01, audit_records="per_decision")
    dlog.start()
    ids = [uuid.uuid4().hex for _ in range(7)]
    try:
        for i, did in enumerate(ids):
            v = verdict(i % 2 == 0, f"r{i}", (("w", "careful"),) if i == 1 else ())
            dlog.submit(did, f"ag-{i % 2}", "pay", {"cost": i, "api_key": "sk"}, v, 10, f"req-{i}")
        assert dlog.flush(10)
    finally:
        dlog.stop()
    assert dlog.stats.written == 7 and dlog.stats.audit_failed == 0
    records = list(t.repo.iter_all())
    assert [r.action for r in records] == ["decision"] * 7
    assert [r.subject for r in records] == ids
    first, second = records[0], records[1]
    assert first.actor == "agent:ag-0" and second.actor == "agent:ag-1"
    assert second.details == {
        "agent_id": "ag-1",
        "action": "pay",
        "allowed": False,
        "reason": "r1",
        "severity": "BLOCK",
        "guardrail": "cap",
        "context_digest": digest({"cost": 1, "api_key": "sk"}),
        "warnings": [["w", "careful"]],
    }
    assert t.verify().ok


def test_dropped_decisions_leave_a_notice_in_the_trail(engine: Engine) -> None:
    t = trail(engine)
    dlog = decision_log(engine, t, queue_size=2, audit_records="per_decision")
    for i in range(5):  # the writer is not running yet: 2 queued, 3 dropped
        dlog.submit(f"d-{i}", "ag", "act", {}, verdict(), 1, "")
    assert dlog.stats.dropped == 3
    dlog.start()
    assert dlog.flush(10)
    dlog.submit("d-later", "ag", "act", {}, verdict(), 1, "")  # no new drops: no second notice
    dlog.stop()
    records = list(t.repo.iter_all())
    assert [(r.action, r.subject) for r in records] == [
        ("decision", "d-0"),
        ("decision", "d-1"),
        ("decision_log.dropped", "decision_log"),
        ("decision", "d-later"),
    ]
    assert records[2].actor == "system" and records[2].details == {"count": 3, "dropped_total": 3}
    assert t.verify().ok


class _FailingSink:
    def __init__(self) -> None:
        self.calls = 0

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        self.calls += 1
        raise RuntimeError("audit store down")


def test_audit_failures_are_counted_not_raised(engine: Engine) -> None:
    sink = _FailingSink()
    dlog = decision_log(engine, sink, queue_size=1)
    dlog.submit("d-0", "ag", "act", {}, verdict(), 1, "")
    dlog.submit("d-1", "ag", "act", {}, verdict(), 1, "")  # dropped
    dlog.start()
    assert dlog.flush(10)
    dlog.submit("d-2", "ag", "act", {}, verdict(), 1, "")
    assert dlog.flush(10)
    dlog.stop()
    # Decisions are still written; the audit failures are counted, and the drop notice is retried:
    # batch 1 lost [d-0, notice], batch 2 lost [d-2, notice again].
    assert dlog.stats.written == 2 and dlog.stats.failed == 0
    assert dlog.stats.audit_failed == 4 and sink.calls == 2
    assert dlog.stats.last_error == "audit: RuntimeError: audit store down"


def test_the_per_record_port_is_enough(engine: Engine) -> None:
    class OnlyRecord:
        def __init__(self, inner: AuditTrail) -> None:
            self.inner = inner

        def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
            self.inner.record(actor, action, subject, details)

    t = trail(engine)
    dlog = decision_log(engine, OnlyRecord(t), audit_records="per_decision")
    dlog.start()
    for i in range(3):
        dlog.submit(f"d-{i}", "ag", "act", {}, verdict(), 1, "")
    dlog.stop()
    assert [r.subject for r in t.repo.iter_all()] == ["d-0", "d-1", "d-2"]


def test_no_audit_sink_keeps_the_old_behaviour(engine: Engine) -> None:
    dlog = DecisionLog(SqlDecisionRepository(engine), FakeClock(), DecisionLogSettings())
    dlog.start()
    dlog.submit("d-0", "ag", "act", {}, verdict(), 1, "")
    dlog.stop()
    assert dlog.stats.written == 1
    assert SqlAuditRepository(engine).count() == 0


# `outrider audit verify|export`


def cli(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="outrider")
    sub = p.add_subparsers(dest="command", required=True)
    add_audit_parser(sub, lambda q: q.add_argument("--db-url"))
    return p.parse_args(argv)


def test_cli_verify_ok_then_broken(
    db_url: str, engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Config(db_url=db_url, data_dir=tmp_path)  # no audit key or checkpoints from the working directory
    fill(trail(engine), 3)
    assert run_audit(cli(["audit", "verify", "--db-url", db_url]), config) == 0
    assert capsys.readouterr().out == "audit chain OK: 3 records\n"
    sql(engine, """UPDATE audit_log SET details = '{"i": 99}' WHERE seq = 2""")
    assert run_audit(cli(["audit", "verify"]), config) == 1
    assert capsys.readouterr().out == (
        "audit chain BROKEN at record 2 [edited]: hash does not match the record's content under SHA-256 "
        "(the record was edited, re-hashed without the key, forged or inserted)\n"
    )


def test_cli_export_to_stdout_and_file(
    db_url: str, engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Config(db_url=db_url)
    t = trail(engine)
    fill(t, 2)
    t.record("operator:ann", "token.issue", "tok-1", {"secret": SECRETS[1]})
    assert run_audit(cli(["audit", "export"]), config) == 0
    out = capsys.readouterr().out
    assert out == "".join(line + "\n" for line in export_lines(t))
    assert SECRETS[1] not in out
    target = tmp_path / "audit.jsonl"
    assert run_audit(cli(["audit", "export", "--output", str(target)]), config) == 0
    assert "wrote 3 audit records" in capsys.readouterr().err
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines == export_lines(t)
    assert verify_chain(from_json(json.loads(line)) for line in lines).ok


def test_cli_reports_an_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    code = run_audit(cli(["audit", "export", "-o", str(tmp_path / "no" / "such" / "dir")]), Config(db_url=url))
    assert code == 2 and "cannot write" in capsys.readouterr().err


def test_cli_needs_a_sub_command() -> None:
    with pytest.raises(SystemExit):
        cli(["audit"])
