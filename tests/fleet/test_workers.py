"""`outrider serve --workers N`: N real sidecar processes on one listen port (SO_REUSEPORT) and one PostgreSQL
database, supervised by a parent that starts a dead worker again (on one SQLite file: test_sqlite_workers.py)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import grpc
import pytest
from sqlalchemy import create_engine, text

from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc
from tests.integration.creds import with_token

from .harness import SidecarProc, operator_token, wait_until

pytestmark = pytest.mark.timeout(300)


def listening(port: int) -> set[int]:
    """The pids of the processes holding a listening TCP socket on `port` (from /proc)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rpartition(":")[2], 16) == port:
                inodes.add(f"socket:[{inode}]")
    pids: set[int] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                pids.add(int(proc.name))
        except OSError:
            continue
    return pids


def children(pid: int) -> set[int]:
    out: set[int] = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.add(int(proc.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def live_sidecar_pids(db_url: str) -> set[int]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return {int(r[0]) for r in conn.execute(text("SELECT pid FROM sidecars WHERE stop_time IS NULL"))}
    finally:
        engine.dispose()


def calls_succeed(target: str, token: str, n: int) -> None:
    """`n` calls, each on a fresh connection (the kernel picks a worker per connection)."""
    for _ in range(n):
        with grpc.insecure_channel(target) as raw:
            stub = supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(raw, token))
            stub.ListGuardrails(pb.ListGuardrailsRequest(), timeout=30)


def test_three_workers_serve_one_port_and_a_dead_one_is_started_again(tmp_path: Path, pg_url: str) -> None:
    token = operator_token(tmp_path, pg_url)
    parent = SidecarProc(tmp_path, pg_url, token, "W", "--workers", "3").wait_serving()
    workers: set[int] = set()
    try:
        port = int(parent.target.rpartition(":")[2])
        workers = children(parent.p.pid)
        assert len(workers) == 3
        assert listening(port) == workers  # three processes accept on the one port; the parent does not
        assert workers <= live_sidecar_pids(pg_url)  # each is a sidecar of the fleet
        calls_succeed(parent.target, token, 20)

        victim = sorted(workers)[1]
        os.kill(victim, signal.SIGKILL)
        wait_until(
            lambda: (
                victim not in children(parent.p.pid)
                and len(children(parent.p.pid)) == 3
                and listening(port) == children(parent.p.pid)
            ),
            "the parent starts the killed worker again",
            timeout=180,
        )
        workers = children(parent.p.pid)
        calls_succeed(parent.target, token, 20)
    finally:
        code = parent.close()
    assert code == 0
    wait_until(lambda: not any(alive(pid) for pid in workers), "every worker stops with the parent", timeout=60)
