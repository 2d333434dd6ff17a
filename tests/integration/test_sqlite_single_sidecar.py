"""SQLite is for one sidecar: a second `outrider serve` on the same file is refused, with the way out."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.storage.db import DatabaseInUse, lock_sqlite_for_serving

from .test_process import Proc, cli


def test_a_second_serve_on_the_same_sqlite_file_is_refused_until_the_first_stops(tmp_path: Path) -> None:
    first = Proc(tmp_path)
    try:
        r = cli(tmp_path, "serve", "--listen", "127.0.0.1:0", "--no-console")
        assert r.returncode == 2
        assert "already serves the SQLite database" in r.stderr
        assert "PostgreSQL" in r.stderr
        assert f"pid {first.p.pid}" in r.stderr
        # The CLI and a separate console still open the database.
        assert cli(tmp_path, "tokens", "list").returncode == 0
    finally:
        assert first.close() == 0
    second = Proc(tmp_path)  # the lock went with the first process
    second.close()


def test_the_lock_is_per_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'outrider.db'}"
    release = lock_sqlite_for_serving(url)
    try:
        with pytest.raises(DatabaseInUse, match="PostgreSQL"):
            lock_sqlite_for_serving(url)
        other = lock_sqlite_for_serving(f"sqlite:///{tmp_path / 'other.db'}")
        other()
    finally:
        release()
    lock_sqlite_for_serving(url)()
