"""Three writer processes append to one chain at once: one unforked keyed chain, and each record's time
was read inside the chain lock, so time never goes backwards along seq (the bug: times read before the
lock, 11 of 1,590 records under load were older than the record before them)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from server.adapters.audit_files import load_or_create_key
from server.adapters.audit_keys import AuditKeys
from server.config import DEFAULT_SENSITIVE_KEYS
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate

ROOT = Path(__file__).resolve().parents[2]
PER_WRITER = 150


def test_three_writer_processes_keep_seq_and_time_in_step(db_url: str, tmp_path: Path) -> None:
    engine = create_db_engine(db_url)
    try:
        migrate(engine)
        keys = AuditKeys(load_or_create_key(tmp_path / "audit.key"))
        trail = AuditTrail(SqlAuditRepository(engine), SystemClock(), DEFAULT_SENSITIVE_KEYS, keys=keys)
        trail.start()
        str(tmp_path / "audit.key")
        writers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.adversarial.audit_writer",
                    db_url,
                    str(tmp_path / "audit.key"),
                    str(PER_WRITER),
                    name,
                ],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            for name in ("a", "b", "c")
        ]
        assert [w.wait(240) for w in writers] == [0, 0, 0]
        records = list(trail.repo.iter_all())
        per_writer = PER_WRITER - PER_WRITER // 10 + 3 * (PER_WRITER // 10)
        assert len(records) == 1 + 3 * per_writer
        assert [r.seq for r in records] == list(range(1, len(records) + 1))
        backwards = [r.seq for prev, r in itertools.pairwise(records) if r.record_time < prev.record_time]
        assert backwards == []
        writers_seen = {r.actor for r in records[1:]}
        assert writers_seen == {"writer:a", "writer:b", "writer:c"}
        result = trail.verify()
        assert result.ok and result.checked == len(records) and result.chain.keyed_from == 1
    finally:
        engine.dispose()
