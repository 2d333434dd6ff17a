"""A frozen process's open transaction does not stall the fleet: PostgreSQL ends a session of ours that idles in
a transaction past `IDLE_IN_TRANSACTION_SECONDS`, so its locks (the audit chain's advisory lock, a row) are
released for every other sidecar. Found by the fault suite: a sidecar SIGSTOPped mid-transaction held the audit
lock, and a ForceOpen on another sidecar waited for as long as the pause lasted."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import text

from server.domain.errors import StorageUnavailable
from server.storage.db import IDLE_IN_TRANSACTION_SECONDS, create_db_engine

LOCK = 7_000_001  # an advisory lock key of this test's own


def test_every_session_has_the_idle_in_transaction_timeout(pg_url: str) -> None:
    engine = create_db_engine(pg_url)
    try:
        with engine.connect() as conn:
            shown = str(conn.execute(text("SHOW idle_in_transaction_session_timeout")).scalar_one())
        assert shown == f"{int(IDLE_IN_TRANSACTION_SECONDS)}s"
    finally:
        engine.dispose()


def test_a_transaction_left_idle_by_a_frozen_process_releases_its_locks(pg_url: str) -> None:
    frozen = create_db_engine(pg_url, idle_in_transaction=1.0)
    other = create_db_engine(pg_url)
    try:
        conn = frozen.connect()
        conn.begin()
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK})  # ... and then the process freezes
        took = threading.Event()

        def write_elsewhere() -> None:
            with other.begin() as c:
                c.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK})
            took.set()

        threading.Thread(target=write_elsewhere, daemon=True).start()
        assert took.wait(60), "the other session still waits behind the frozen transaction"
        with pytest.raises(StorageUnavailable):  # resumed: its transaction is gone, nothing of it committed
            conn.execute(text("SELECT 1"))
        conn.invalidate()
    finally:
        frozen.dispose()
        other.dispose()
