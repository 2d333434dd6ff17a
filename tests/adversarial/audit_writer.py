"""One audit writer process for the concurrency test: `python -m tests.adversarial.audit_writer DB_URL KEY_FILE
N NAME` appends N records as fast as it can, through the production trail (key, lock, clock)."""

from __future__ import annotations

import sys

from server.adapters.audit_files import read_key
from server.adapters.audit_keys import AuditKeys
from server.config import DEFAULT_SENSITIVE_KEYS
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine


def main(db_url: str, key_file: str, n: int, name: str) -> int:
    engine = create_db_engine(db_url)
    try:
        from pathlib import Path

        keys = AuditKeys(read_key(Path(key_file)))
        trail = AuditTrail(SqlAuditRepository(engine), SystemClock(), DEFAULT_SENSITIVE_KEYS, keys=keys)
        for i in range(n):
            if i % 10 == 0:
                trail.record_many([(f"writer:{name}", "load", f"{name}-{i}-{j}", {"j": j}) for j in range(3)])
            else:
                trail.record(f"writer:{name}", "load", f"{name}-{i}", {"i": i})
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
