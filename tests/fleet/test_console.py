"""The fleet console: a separate `outrider console` process on the fleet's PostgreSQL is a member of the fleet
(a row in `sidecars`), shows where each agent is attached, and its actions work on agents attached to any
sidecar: a Kill reaches the agent through the sidecar holding its channel, a Force open stops the sidecars'
permits."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sqlalchemy import create_engine, text

from outrider.v1 import common_pb2
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import safeguard_service_pb2 as sgpb
from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.console_process import Browserless, console_process
from tests.integration.recovery_sim import SimAgent
from tests.integration.rpc import error_info

from .conftest import _pg
from .harness import ROOT, Fleet, wait_until

pytestmark = pytest.mark.timeout(300)
PASSWORD = "correct horse battery"
ADD_ADMIN = (sys.executable, "-m", "server", "users", "add")


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    for url in _pg():
        f = Fleet(tmp_path_factory.mktemp("console"), url, count=2)
        try:
            yield f
        finally:
            f.close()


def consoles(db_url: str) -> list[tuple[str, bool]]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT listen, stop_time IS NULL FROM sidecars WHERE listen LIKE 'console %'"))
            return [(str(listen), bool(up)) for listen, up in rows]
    finally:
        engine.dispose()


def admin(fleet: Fleet, name: str) -> None:
    r_ = subprocess.run(
        [*ADD_ADMIN, name, "--role", "admin", "--password-stdin", "--db-url", fleet.db_url],
        input=PASSWORD + "\n",
        cwd=fleet.tmp,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=180,
    )
    assert r_.returncode == 0, r_.stderr


def signed_in(url: str, name: str) -> Browserless:
    c = Browserless(url)
    assert c.sign_in(name, PASSWORD) == 303
    return c


def test_a_separate_console_kills_an_agent_attached_to_a_sidecar_and_is_a_fleet_member(pair: Fleet) -> None:
    b = pair.sidecars[1]
    admin(pair, "root1")
    b.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="con-kill-1")))
    agent = SimAgent(b.recovery, "con-kill-1")
    agent.wait_accepted()
    try:
        with console_process(pair.tmp, "--db-url", pair.db_url, name="console-kill") as url:
            [(listen, up)] = consoles(pair.db_url)
            assert listen == f"console {url}" and up  # the console is in `sidecars`: its kills are taken over
            c = signed_in(url, "root1")
            wait_until(
                lambda: (
                    re.search(
                        r"con-kill-1.*?connected</span> <span class=\"muted\">to sidecar", c.request("/agents")[1], re.S
                    )
                    is not None
                ),
                "the agents page shows the agent connected to another sidecar",
                timeout=30,
            )
            token = c.csrf("/agents")
            form = {"agent": "con-kill-1", "reason": "MANUAL", "details": "", "confirm": "yes", "csrf_token": token}
            status, page, _ = c.request("/agents/kill", form)
            assert status == 200, page[:500]
            assert len(agent.of(r.CONTROL_COMMAND_TYPE_KILL)) == 1  # through B, the sidecar holding its channel
            err = agent.wait_ended()
            assert err is not None and err.code() is grpc.StatusCode.ABORTED
            assert error_info(err).reason == "AGENT_KILLED"
        assert consoles(pair.db_url) == [(listen, False)]  # stopped cleanly
    finally:
        agent.close()


def test_a_separate_console_force_opens_a_breaker_for_every_sidecar(pair: Fleet) -> None:
    a, b = pair.sidecars[:2]
    admin(pair, "root2")
    assert a.safeguard.AcquirePermit(sgpb.AcquirePermitRequest(key="con-key")).permitted
    with console_process(pair.tmp, "--db-url", pair.db_url, name="console-breaker") as url:
        c = signed_in(url, "root2")
        token = c.csrf("/breakers")
        form = {"key": "con-key", "op": "force_open", "reason": "maintenance", "csrf_token": token}
        status, page, _ = c.request("/breakers/control", form)
        assert status in (200, 303), page[:500]
        for s in (a, b):
            wait_until(
                lambda s=s: not s.safeguard.AcquirePermit(sgpb.AcquirePermitRequest(key="con-key")).permitted,
                "the sidecars refuse permits once the console opened the breaker",
                timeout=5,
            )


def test_on_sqlite_a_separate_console_still_refuses_the_actions(tmp_path: Path) -> None:
    with console_process(tmp_path, "--data-dir", str(tmp_path / "data"), name="console-sqlite") as url:
        body = Browserless(url).request("/login")[1]
        assert "csrf-token" in body  # it serves; the SQLite banner and refusal are covered by the console tests
    engine = create_engine(f"sqlite:///{tmp_path / 'data' / 'outrider.db'}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM sidecars")).scalar() == 0  # not a fleet member
    finally:
        engine.dispose()
