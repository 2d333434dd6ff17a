"""Secrets in an agent's context never reach the log, the database or the exported audit trail."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

from .rpc import check, guardrail
from .test_process import Proc, cli

SECRETS = {
    "password": "hunter2-SECRET-1",
    "api_key": "sk-SECRET-2",
    "nested": {"Authorization": "Bearer SECRET-3", "items": [{"refresh_token": "SECRET-4"}]},
    "X-Api-Key": "SECRET-5",
}


def test_masked_keys_absent_from_log_database_and_export(tmp_path: Path) -> None:
    p = Proc(tmp_path, "--log-format", "json", "--log-level", "debug")
    try:
        p.stub.AddGuardrail(guardrail("cap", "cost_cap", max=10))
        context = {**SECRETS, "cost": 50, "tokens": 1200}
        blocked = p.stub.CheckAction(check("worker-1", "pay", context))
        assert not blocked.allowed
        assert p.stub.CheckAction(check("worker-1", "pay", {**SECRETS, "cost": 1})).allowed
    finally:
        assert p.close(signal.SIGTERM) == 0
    log = (tmp_path / "serve.log").read_text()
    assert '"message": "action blocked"' in log and '"password": "***"' in log and '"tokens": 1200' in log
    export = cli(tmp_path, "audit", "export")
    assert export.returncode == 0, export.stderr
    lines = [json.loads(line) for line in export.stdout.splitlines()]
    records = [r for r in lines if "checkpoint" not in r]  # the signed checkpoints follow the records
    decisions = [r for r in records if r["action"] == "decision"]
    assert len(decisions) == 2 and all(len(d["details"]["context_digest"]) == 64 for d in decisions)
    data = b"".join(f.read_bytes() for f in (tmp_path / "data").iterdir() if f.is_file())
    for n in range(1, 6):
        needle = f"SECRET-{n}" if n > 1 else "hunter2-SECRET-1"
        assert needle not in log, needle
        assert needle not in export.stdout, needle
        assert needle.encode() not in data, needle
    verify = cli(tmp_path, "audit", "verify")
    assert verify.returncode == 0 and "audit chain OK" in verify.stdout


def test_audit_verify_finds_the_exact_record_edited_by_hand(tmp_path: Path) -> None:
    p = Proc(tmp_path)
    try:
        for i in range(5):
            p.stub.AddGuardrail(guardrail(f"g{i}", "cost_cap", max=i + 1))
    finally:
        p.close()
    db = tmp_path / "data" / "outrider.db"
    with sqlite3.connect(db) as conn:  # an edit by hand, behind the sidecar's back
        conn.execute("UPDATE audit_log SET actor='operator:mallory' WHERE action='guardrail.add' AND subject='g2'")
        seq = conn.execute("SELECT seq FROM audit_log WHERE subject='g2'").fetchone()[0]
    verify = cli(tmp_path, "audit", "verify")
    assert verify.returncode == 1
    assert f"audit chain BROKEN at record {seq} [edited]:" in verify.stdout
