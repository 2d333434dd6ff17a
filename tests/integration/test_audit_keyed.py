"""The keyed audit trail in a real sidecar: the key file made on first start (0600), the audit.keyed marker,
a signed checkpoint at clean shutdown, a sidecar with another key refused; checkpoints every N records or
T seconds (on the injected clock)."""

from __future__ import annotations

import argparse
import asyncio
import json
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from server.adapters.audit_files import FileCheckpointStore
from server.adapters.audit_keys import AuditKeys
from server.cli.audit import add_audit_parser, run_audit
from server.config import DEFAULT_SENSITIVE_KEYS
from server.domain.errors import FailedPrecondition
from server.services.audit import AuditTrail, CheckpointSettings
from server.sidecar import build_server
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryAuditLog

from .harness import RunningSidecar, make_config
from .rpc import guardrail


def test_first_start_makes_the_key_and_shutdown_signs_a_checkpoint(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path, db_url=db_url)
    key_file = config.audit_key_path()
    assert not key_file.exists()
    with RunningSidecar(config) as s:
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        first = next(iter(s.services.audit.repo.iter_all()))
        assert (first.seq, first.action, first.details["legacy_records"]) == (1, "audit.keyed", 0)
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=10))
        head = s.services.audit.repo.head()
    files = sorted(config.audit_checkpoint_path().glob("checkpoint-*.json"))
    assert files, "no checkpoint at clean shutdown"
    last = json.loads(files[-1].read_text())
    assert last["seq"] >= head[0]
    assert (config.audit_checkpoint_path() / "audit-checkpoint.pub").read_text().strip() == last["public_key"]
    p = argparse.ArgumentParser()
    add_audit_parser(p.add_subparsers(dest="command"), lambda q: None)
    assert run_audit(p.parse_args(["audit", "verify"]), config) == 0
    out = capsys.readouterr().out
    assert out.startswith("audit chain OK: ") and "signed checkpoints matched" in out and " 0 signed" not in out


def test_a_sidecar_with_another_key_is_refused(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config):
        pass
    other = replace(config, audit_key_file=tmp_path / "another.key")
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(FailedPrecondition) as err:
            loop.run_until_complete(build_server(other))
    finally:
        loop.close()
    assert err.value.reason == "AUDIT_KEY_MISMATCH"
    assert "copy audit.key_file" in err.value.message


def test_checkpoints_every_n_records_or_t_seconds(tmp_path: Path) -> None:
    clock = FakeClock()
    store = FileCheckpointStore(tmp_path / "cp")
    trail = AuditTrail(
        MemoryAuditLog(),
        clock,
        DEFAULT_SENSITIVE_KEYS,
        keys=AuditKeys(b"\x07" * 32),
        checkpoints=store,
        settings=CheckpointSettings(every_records=5, interval=30.0),
    )
    trail.start()  # the marker: 1 record
    assert trail.checkpoint_due() is None
    for i in range(4):
        trail.record("operator:x", "thing", str(i), {})
    cp = trail.checkpoint_due()  # 5 records
    assert cp is not None and cp.seq == 5
    trail.record("operator:x", "thing", "late", {})
    clock.advance(29)
    assert trail.checkpoint_due() is None
    clock.advance(1)
    cp = trail.checkpoint_due()  # 30 s
    assert cp is not None and cp.seq == 6
    clock.advance(60)
    assert trail.checkpoint_due() is None  # nothing new: no checkpoint
    assert [cp.seq for _, cp in store.read_all() if not isinstance(cp, str)] == [5, 6]
