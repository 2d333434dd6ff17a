"""Calls that can wait for storage do (RegisterAgent across a PostgreSQL restart answers once it is back,
within its deadline); the console answers 503 with the fixed message while storage is down."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from console import create_app
from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.consolekit import add_reviewers, sign_in
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import error_info

from .conftest import OwnPostgres, fresh_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(600)]

FIXED = "storage unavailable, retry"


def _register(s: RunningSidecar, agent_id: str, timeout: float) -> pb.RegisterAgentResponse:
    req = pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id, group="g"))
    answer: pb.RegisterAgentResponse = s.stub.RegisterAgent(req, timeout=timeout)
    return answer


def test_register_agent_waits_for_a_restarting_database_then_gives_up_unavailable(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    with RunningSidecar(make_config(tmp_path, db_url=fresh_database(pg))) as s:
        _register(s, "wait-0", 30)
        pg.stop()
        out: dict[str, Any] = {}

        def call() -> None:
            try:
                out["answer"] = _register(s, "wait-1", 120)  # a deadline long enough to outlast the restart
            except grpc.RpcError as err:
                out["error"] = err

        t = threading.Thread(target=call)
        t.start()
        time.sleep(2)  # the call is waiting for storage meanwhile
        assert t.is_alive(), f"RegisterAgent did not wait for storage: {out}"
        pg.start()
        t.join(120)
        assert "error" not in out, out["error"].details()
        assert out["answer"].agent.agent_id == "wait-1"
        # With a short deadline and storage still down, it gives up before the deadline: UNAVAILABLE.
        pg.stop()
        with pytest.raises(grpc.RpcError) as refused:
            _register(s, "wait-2", 3)
        assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.UNAVAILABLE, FIXED)
        assert error_info(refused.value).reason == "STORAGE_UNAVAILABLE"
        pg.start()


def test_the_console_answers_503_with_the_fixed_message(pg: OwnPostgres, tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, db_url=fresh_database(pg))) as s:
        add_reviewers(s)
        app = create_app(s.services)
        app.testing = True
        c = app.test_client()
        sign_in(c, "ada")
        assert c.get("/history").status_code == 200
        pg.stop()
        try:
            r = c.get("/history")
            assert r.status_code == 503
            assert FIXED in r.text
            assert "127.0.0.1" not in r.text and str(pg.port) not in r.text
        finally:
            pg.start()
