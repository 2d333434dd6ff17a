"""A decision log that cannot silently die.

Before: one record whose digest could not be computed (a NaN in its context) killed the writer thread;
from then on every decision was lost while health said `failed 0` and the queue grew without bound.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from typing import Any

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.guardrails import Severity, Verdict
from server.domain.guardrails.decisions import Decision
from tests.integration.harness import RunningSidecar
from tests.integration.rpc import check

HEALTH = "outrider.decision_log"


def _health(s: RunningSidecar) -> int:
    stub = health_pb2_grpc.HealthStub(s.raw_channel)
    return int(stub.Check(health_pb2.HealthCheckRequest(service=HEALTH), timeout=5).status)


def _wait_for(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


def _decision_ids(s: RunningSidecar) -> set[str]:
    return {d.decision_id for d in s.stub.ListDecisions(pb.ListDecisionsRequest(page_size=100)).decisions}


def test_a_record_that_cannot_be_written_is_counted_and_the_writer_goes_on(
    sidecar: RunningSidecar, caplog: pytest.LogCaptureFixture
) -> None:
    log = sidecar.services.decisions
    # The edge refuses NaN now; a record that still cannot become a row must not stop the writer.
    with caplog.at_level(logging.ERROR):
        log.submit("poison-0001", "agent-1", "act", {"cost": math.nan}, Verdict(True, "", Severity.INFO, "", ()), 1, "")
        after = sidecar.stub.CheckAction(check()).decision_id
        assert log.flush(10), "the writer stopped"
    assert after in _decision_ids(sidecar)
    assert (log.stats.failed, log.stats.up) == (1, True)
    assert any("poison-0001" in r.getMessage() for r in caplog.records)


class _Killed(BaseException):
    """Not an Exception: it passes every `except Exception`, as a thread-killing fault does."""


class _FaultyRepo:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.kills = 0

    def insert_many(self, rows: Sequence[Decision]) -> None:
        if self.kills > 0:
            self.kills -= 1
            raise _Killed("killed on purpose")
        self.inner.insert_many(rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_killed_writer_is_restarted_and_reported(sidecar: RunningSidecar, caplog: pytest.LogCaptureFixture) -> None:
    log = sidecar.services.decisions
    faulty = _FaultyRepo(log.repo)
    log.repo = faulty
    log.max_backoff = 1.0
    assert _health(sidecar) == health_pb2.HealthCheckResponse.SERVING
    faulty.kills = 4  # the writer dies on each of its next four batches
    seen_down = False
    deadline = time.monotonic() + 20
    with caplog.at_level(logging.ERROR):
        while faulty.kills > 0:
            assert time.monotonic() < deadline, "the writer did not come back to take its next batch"
            sidecar.stub.CheckAction(check())
            log._wake.set()
            seen_down = seen_down or _health(sidecar) == health_pb2.HealthCheckResponse.NOT_SERVING
            time.sleep(0.05)
    assert seen_down, "the gRPC health of outrider.decision_log never said NOT_SERVING"
    survivor = sidecar.stub.CheckAction(check()).decision_id
    assert log.flush(10)
    assert survivor in _decision_ids(sidecar)
    _wait_for(lambda: _health(sidecar) == health_pb2.HealthCheckResponse.SERVING)
    assert log.stats.restarts >= 1 and log.stats.up and log.stats.failed >= 1
    assert "killed on purpose" in log.stats.last_error
    audited = [r for r in sidecar.services.audit.repo.iter_all() if r.action == "decision_log.writer_restarted"]
    assert audited and audited[0].details["restarts"] == 1
    assert any(r.getMessage().startswith("decision log: the writer stopped") for r in caplog.records)


def test_a_vanished_writer_thread_is_started_again(sidecar: RunningSidecar) -> None:
    log = sidecar.services.decisions
    log.stop()  # the thread ends; nobody asked for a shutdown of the sidecar
    log._stopping = False
    log._thread = type("Dead", (), {"is_alive": lambda self: False, "join": lambda self, t=None: None})()
    _wait_for(lambda: log.stats.restarts == 1 and log._thread is not None and log._thread.is_alive())
    decision = sidecar.stub.CheckAction(check()).decision_id
    assert log.flush(10) and decision in _decision_ids(sidecar)
