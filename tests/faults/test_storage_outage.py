"""PostgreSQL goes away under load: the decision log loses nothing it accepted (journal, replay, `audit
verify`), every error a caller sees is UNAVAILABLE with the one fixed message, a SIGKILL during the outage
loses nothing journaled, and a full journal refuses (block) or answers (allow) as configured."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from pathlib import Path

import grpc
import psycopg
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.v1 import safeguard_service_pb2 as spb
from tests.fleet.harness import SidecarProc, cli, operator_token, wait_until
from tests.integration.rpc import check, error_info

from .conftest import OwnPostgres, fresh_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(900)]

FIXED = "storage unavailable, retry"
OUTAGE = 10.0  # seconds PostgreSQL stays stopped
DEADLINE = 5.0  # of each call under load: storage-waiting calls give up before it, UNAVAILABLE


def _stored_ids(pg: OwnPostgres, db_url: str, ids: set[str]) -> set[str]:
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            rows = conn.execute("SELECT decision_id FROM decisions WHERE decision_id = ANY(%s)", (list(ids),))
            return {r[0] for r in rows}
    except psycopg.OperationalError:
        return set()


def _journal_bytes(tmp: Path) -> int:
    return sum(p.stat().st_size for p in (tmp / ".outrider" / "decision-journal").glob("journal-*.jsonl"))


def _verify(tmp: Path, db_url: str) -> None:
    r = cli(tmp, db_url, "audit", "verify")
    assert r.returncode == 0, f"audit verify failed:\n{r.stdout}\n{r.stderr}"


class Load:
    """CheckAction and Consume callers on their own threads, each call with a deadline; what was accepted
    and every error (code, details) are kept."""

    def __init__(self, s: SidecarProc, agent: str) -> None:
        self.s, self.agent = s, agent
        self.accepted: set[str] = set()
        self.errors: list[tuple[grpc.StatusCode, str, str]] = []
        self.consumed = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._checks, daemon=True),
            threading.Thread(target=self._checks, daemon=True),
            threading.Thread(target=self._consumes, daemon=True),
        ]

    def _error(self, method: str, err: grpc.RpcError) -> None:
        with self._lock:
            self.errors.append((err.code(), err.details() or "", method))
        time.sleep(0.05)

    def _checks(self) -> None:
        while not self._stop.is_set():
            try:
                r = self.s.supervisor.CheckAction(check(self.agent, "search"), timeout=DEADLINE)
            except grpc.RpcError as err:
                self._error("CheckAction", err)
                continue
            with self._lock:
                self.accepted.add(r.decision_id)
            time.sleep(0.02)  # under the operator's rate limit (limits.requests_per_second)

    def _consumes(self) -> None:
        while not self._stop.is_set():
            req = spb.ConsumeRequest(agent_id=self.agent, tokens=1, request_id=uuid.uuid4().hex)
            try:
                self.s.safeguard.Consume(req, timeout=DEADLINE)
            except grpc.RpcError as err:
                self._error("Consume", err)
                continue
            with self._lock:
                self.consumed += 1
            time.sleep(0.02)

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for t in self.threads:
            t.join(60)


def test_a_ten_second_outage_under_load_loses_no_decision_and_says_one_thing(pg: OwnPostgres, tmp_path: Path) -> None:
    db_url = fresh_database(pg)
    token = operator_token(tmp_path, db_url)
    s = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        s.safeguard.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=10_000_000))
        s.safeguard.Allocate(spb.AllocateRequest(agent_id="outage-1", tokens=1_000_000))
        with Load(s, "outage-1") as load:
            wait_until(lambda: len(load.accepted) >= 20 and load.consumed >= 5, "load before the outage", 120)
            pg.stop()
            stopped = time.monotonic()
            wait_until(lambda: time.monotonic() - stopped >= OUTAGE, "the outage", OUTAGE + 60)
            during = len(load.accepted)
            pg.start()
            # Storage is back: Consume answers again and the journal drains.
            consumed_after = load.consumed
            wait_until(lambda: load.consumed > consumed_after + 3, "Consume after the outage", 120)
        assert during > 20, "CheckAction stopped answering during the outage"
        accepted = set(load.accepted)
        wait_until(lambda: _stored_ids(pg, db_url, accepted) == accepted, "every accepted decision stored", 120)
        assert load.errors, "the outage produced no error at all: was storage really stopped?"
        for code, details, method in load.errors:
            assert (code, details) == (grpc.StatusCode.UNAVAILABLE, FIXED), (method, code, details)
        log = s.log_path.read_text()
        assert "storage unavailable:" in log  # the driver's text is in the log, for the operator
        wait_until(lambda: _journal_bytes(tmp_path) == 0, "the journal emptied", 60)
    finally:
        s.close()
    _verify(tmp_path, db_url)


def test_a_sigkill_during_the_outage_loses_nothing_journaled(pg: OwnPostgres, tmp_path: Path) -> None:
    db_url = fresh_database(pg)
    token = operator_token(tmp_path, db_url)
    s = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        pg.stop()
        ids = {s.supervisor.CheckAction(check("killed-1", "search"), timeout=30).decision_id for _ in range(25)}
        # Accepted while storage is down: the writer journals them (fsync'd) once its write is refused.
        wait_until(lambda: all(i.encode() in _journal_text(tmp_path) for i in ids), "the decisions journaled", 120)
        s.close(signal.SIGKILL)
    finally:
        s.close(signal.SIGKILL)
    pg.start()
    assert _stored_ids(pg, db_url, ids) == set()
    again = SidecarProc(tmp_path, db_url, token, "A2").wait_serving()  # same data dir: the journal is found
    try:
        wait_until(lambda: _stored_ids(pg, db_url, ids) == ids, "the journal replayed at restart", 120)
        wait_until(lambda: _journal_bytes(tmp_path) == 0, "the journal emptied", 60)
    finally:
        again.close()
    _verify(tmp_path, db_url)


def _journal_text(tmp: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (tmp / ".outrider" / "decision-journal").glob("journal-*.jsonl"))


def _health(s: SidecarProc) -> int:
    assert s.raw is not None
    stub = health_pb2_grpc.HealthStub(s.raw)
    return int(stub.Check(health_pb2.HealthCheckRequest(service="outrider.decision_log"), timeout=10).status)


def _config(tmp: Path, on_full: str) -> Path:
    path = tmp / f"outrider-{on_full}.yaml"
    # A journal with room for a few batches of one decision, a writer that flushes often.
    path.write_text(f"decision_log:\n  journal_max_bytes: 3000\n  on_journal_full: {on_full}\n  flush_interval: 50ms\n")
    return path


@pytest.mark.parametrize("on_full", ["block", "allow"])
def test_a_full_journal_refuses_or_answers_as_configured(pg: OwnPostgres, tmp_path: Path, on_full: str) -> None:
    db_url = fresh_database(pg)
    token = operator_token(tmp_path, db_url)
    s = SidecarProc(tmp_path, db_url, token, "A", config=_config(tmp_path, on_full)).wait_serving()
    agent = f"full-{on_full}"
    try:
        pg.stop()
        refused: list[grpc.RpcError] = []
        answered = 0
        deadline = time.monotonic() + 180
        while not refused and answered < 200:
            assert time.monotonic() < deadline, "the journal never filled"
            try:
                s.supervisor.CheckAction(check(agent, "search"), timeout=30)
                answered += 1
            except grpc.RpcError as err:
                refused.append(err)
            time.sleep(0.06)  # one decision per writer batch: the journal fills batch by batch
        if on_full == "block":
            assert refused, "a full journal with on_journal_full: block still answered CheckAction"
            first = refused[0]
            assert first.code() == grpc.StatusCode.UNAVAILABLE
            assert error_info(first).reason == "DECISION_LOG_FULL"
            not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
            wait_until(lambda: _health(s) == not_serving, "outrider.decision_log NOT_SERVING", 30)
        else:
            assert not refused, [e.details() for e in refused]
            assert _health(s) == health_pb2.HealthCheckResponse.SERVING
        pg.start()
        # Storage back: the journal drains and CheckAction answers again (block mode included).
        wait_until(lambda: _journal_bytes(tmp_path) == 0, "the journal emptied", 120)
        wait_until(lambda: _answers(s, agent), "CheckAction answers again", 60)
        wait_until(lambda: _health(s) == health_pb2.HealthCheckResponse.SERVING, "health SERVING", 60)
    finally:
        s.close()
    _verify(tmp_path, db_url)


def _answers(s: SidecarProc, agent: str) -> bool:
    try:
        s.supervisor.CheckAction(check(agent, "search"), timeout=10)
    except grpc.RpcError:
        return False
    return True
