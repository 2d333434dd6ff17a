"""The workers of `outrider serve --workers N` on one SQLite file keep the fleet's one-truth guarantees.

The fleet suite's own tests, run again here with sidecars A, B and C as workers sharing one SQLite file (the
harness holds the file's serve lock as the `--workers` parent does and starts each with `--worker I`): the
fixtures below replace the PostgreSQL ones for this module. The workers follow each other's changes through
`fleet_change_feed`, read every FEED_INTERVAL (server/storage/fleet/changes.py); these tests assert that a
change arrives, never how fast (bench/fleet.py measures it). Plus what only SQLite workers do: the serve lock
shared with the parent and refused to anyone else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from outrider.v1 import recovery_service_pb2 as rpb
from server.storage.db import DatabaseInUse, lock_sqlite_for_serving

from .conftest import fast_failover_fleet
from .harness import ROOT, Fleet, SidecarProc, operator_token, wait_until
from .test_approvals import test_a_decision_on_c_wakes_the_call_waiting_on_b_within_milliseconds  # noqa: F401
from .test_breakers import (  # noqa: F401
    test_force_open_on_a_stops_b_and_c,
    test_two_plus_two_failures_on_two_sidecars_open_it_with_one_event,
)
from .test_budgets import (  # noqa: F401
    test_a_reservation_made_on_a_is_settled_on_b,
    test_a_threshold_crossed_by_concurrent_sidecars_signals_once,
    test_allocate_on_a_consume_on_b_read_and_checked_on_c,
    test_concurrent_reserves_on_two_sidecars_never_overspend,
    test_fifty_concurrent_consumers_over_three_sidecars_are_exact,
)
from .test_chain import (  # noqa: F401
    test_a_chain_change_on_a_reaches_b_at_once,
    test_concurrent_changes_on_three_sidecars_are_all_kept_once,
)
from .test_events import test_concurrent_events_on_three_sidecars_reach_every_watcher_in_one_order  # noqa: F401
from .test_kill_effects import test_a_kill_on_a_revokes_cancels_refuses_and_ends_the_stream_on_b  # noqa: F401
from .test_leases import (  # noqa: F401
    test_a_one_slot_key_is_exclusive_across_a_b_and_c,
    test_fifo_across_sidecars_with_growing_fencing_tokens,
    test_the_reaper_never_overwrites_a_release,
)
from .test_rate_limits import test_max_300_is_the_fleets_not_each_sidecars  # noqa: F401
from .test_registry import (  # noqa: F401
    test_a_token_revoked_on_a_is_refused_by_b_at_once,
    test_an_intern_registered_on_a_is_blocked_on_a_b_and_c,
    test_kill_on_a_of_an_agent_registered_via_b_and_reinstate_reach_every_sidecar,
    test_retry_counts_of_concurrent_attempts_on_three_sidecars_are_all_counted,
)
from .test_routing import (
    kill_ends_the_stream_on_b,
    test_a_budget_signal_caused_on_a_reaches_the_agent_attached_to_b,  # noqa: F401
)
from .test_workers import live_sidecar_pids

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def shared_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    tmp = tmp_path_factory.mktemp("sqlite-fleet")
    f = Fleet(tmp, f"sqlite:///{tmp / 'outrider.db'}")
    try:
        yield f
    finally:
        f.close()


@pytest.fixture(scope="module")
def route_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    yield from fast_failover_fleet(tmp_path_factory, "sqlite-routing", sqlite=True)


@pytest.fixture(scope="module")
def effects_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    yield from fast_failover_fleet(tmp_path_factory, "sqlite-effects", sqlite=True)


def test_a_kill_on_a_reaches_the_agent_attached_to_b_and_ends_its_stream(route_fleet: Fleet) -> None:
    """test_routing's test of the same name, but B's refusal of the agent's heartbeats is waited for: B learns
    the TERMINATED standing A writes when the ack comes from the feed, within FEED_INTERVAL, while on PostgreSQL
    the notification is pushed as A commits."""
    b, agent = kill_ends_the_stream_on_b(route_fleet)
    try:
        refused: list[grpc.StatusCode] = []

        def heartbeat_refused() -> bool:
            try:
                b.recovery.Heartbeat(rpb.HeartbeatRequest(agent_id="route-kill-1"))
            except grpc.RpcError as exc:
                refused.append(exc.code())
                return True
            return False

        wait_until(heartbeat_refused, "B no longer takes its heartbeats")
        assert refused[-1] in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED)
    finally:
        agent.close()


def _serve(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "serve", "--listen", "127.0.0.1:0", "--no-console", *args],
        cwd=tmp,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OUTRIDER_DB_URL": ""},
        timeout=180,
    )


def test_two_workers_serve_one_sqlite_file_and_nobody_else_may(tmp_path: Path) -> None:
    db = tmp_path / ".outrider" / "outrider.db"
    url = f"sqlite:///{db}"
    db.parent.mkdir()
    token = operator_token(tmp_path, url)
    parent = SidecarProc(tmp_path, url, token, "W", "--workers", "2").wait_serving()
    try:
        wait_until(lambda: len(live_sidecar_pids(url)) == 2, "both workers registered in `sidecars`", timeout=120)
        second = _serve(tmp_path, "--db-url", url)  # a second sidecar on the file: refused
        assert second.returncode != 0
        assert f"already serves the SQLite database {db}" in second.stderr
        alone = _serve(tmp_path, "--db-url", url, "--worker", "0")  # a worker without its parent: refused
        assert alone.returncode != 0
        assert "already serves the SQLite database" in alone.stderr
        with pytest.raises(DatabaseInUse):
            lock_sqlite_for_serving(url)
    finally:
        assert parent.close() == 0
    lock_sqlite_for_serving(url)()  # released with the parent


def test_a_worker_alone_is_refused_before_serving(tmp_path: Path) -> None:
    r = _serve(tmp_path, "--worker", "0")
    assert r.returncode != 0
    assert "serves only under its `serve --workers` parent" in r.stderr
