"""Sidecar identity: `outrider fleet status` lists every sidecar sharing the database with its health."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from .harness import Fleet, cli


def _status(fleet: Fleet) -> tuple[int, list[dict[str, object]]]:
    r = cli(fleet.tmp, fleet.db_url, "fleet", "status", "--json")
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, [json.loads(line) for line in r.stdout.splitlines()]


def test_fleet_status_lists_the_three_sidecars_alive(fleet: Fleet) -> None:
    code, rows = _status(fleet)
    assert code == 0
    assert [r["health"] for r in rows] == ["alive"] * 3
    assert {r["pid"] for r in rows} == {p.p.pid for p in fleet.sidecars}
    assert {r["listen"] for r in rows} == {p.target for p in fleet.sidecars}
    text = cli(fleet.tmp, fleet.db_url, "fleet", "status").stdout
    assert "3 alive of 3 listed" in text


def test_a_killed_sidecar_is_gone_once_its_heartbeat_lapses_and_a_stopped_one_is_stopped(
    tmp_path: Path, pg_url: str
) -> None:
    cfg = tmp_path / "outrider.yaml"
    cfg.write_text("fleet:\n  heartbeat_interval: 200ms\n  sidecar_timeout: 1s\n")
    fleet = Fleet(tmp_path, pg_url, count=3, config=cfg)
    try:
        killed, stopped = fleet[1], fleet[2]
        assert killed.close(signal.SIGKILL) == -signal.SIGKILL
        assert stopped.close(signal.SIGTERM) == 0
        time.sleep(1.5)  # the real clock: the dead sidecar's last heartbeat ages past the timeout
        r = cli(tmp_path, pg_url, "fleet", "status", "--json", "--config", str(cfg))
        rows = {row["pid"]: row["health"] for row in map(json.loads, r.stdout.splitlines())}
        assert rows == {fleet[0].p.pid: "alive", killed.p.pid: "gone", stopped.p.pid: "stopped"}
        assert r.returncode == 1  # a gone sidecar is worth an alert
    finally:
        fleet.close()
