"""A sidecar SIGKILLed while it holds a lease's grant or agents' pending approvals, and approval traffic through
a 10 s PostgreSQL stop: nothing acknowledged is lost, a lease is never held twice at once, a waiting agent
re-attaches with its request_id and gets the decision, every error is UNAVAILABLE with the fixed message,
and `audit verify` passes. Real `outrider serve` processes on a PostgreSQL of the module's own; every wait
is bounded and no test asserts how long anything took."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from tests.fleet.harness import SidecarProc, cli, operator_token, wait_until
from tests.integration.rpc import check, guardrail

from .conftest import OwnPostgres, fresh_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(900)]

FIXED = "storage unavailable, retry"
PENDING = supervisor_pb2.APPROVAL_STATE_PENDING
APPROVED = supervisor_pb2.APPROVAL_STATE_APPROVED
ACTIVE = sg.LEASE_STATE_ACTIVE


def _dsn(db_url: str) -> str:
    return db_url.replace("postgresql+psycopg://", "postgresql://")


def _rows(dsn: str, sql: str, *args: object) -> list[tuple[Any, ...]]:
    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            return list(conn.execute(sql, args))
    except psycopg.OperationalError:
        return []


def _verify(tmp: Path, db_url: str) -> None:
    r = cli(tmp, db_url, "audit", "verify")
    assert r.returncode == 0, f"audit verify failed:\n{r.stdout}\n{r.stderr}"


# ---- a sidecar SIGKILLed mid-lease -------------------------------------------------------------------------


class ActiveWatch:
    """Polls the key's ACTIVE leases in the database on a thread; keeps the most ever seen at once."""

    def __init__(self, dsn: str, key_id: str) -> None:
        self.dsn, self.key_id, self.most = dsn, key_id, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sql = "SELECT count(*) FROM safeguard_leases WHERE key_id = %s AND state = 1"
        while not self._stop.is_set():
            for (n,) in _rows(self.dsn, sql, self.key_id):
                self.most = max(self.most, int(n))
            time.sleep(0.01)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(30)
        return self.most


def test_a_lease_outlives_the_sigkilled_sidecar_that_granted_it_and_is_never_held_twice(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    """The lease is the database's: after its sidecar dies it stays ACTIVE (the holder renews it through
    another sidecar), the waiter queued on the other sidecar keeps waiting, and gets the slot — with the next
    fencing token — only once the lease lapsed."""
    db_url = fresh_database(pg)
    dsn = _dsn(db_url)
    token = operator_token(tmp_path, db_url)
    key_id = f"mid-lease-{uuid.uuid4().hex[:8]}"
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_USER, id=key_id)
    a = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    b = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    watch = ActiveWatch(dsn, key_id)
    try:
        held = a.safeguard.AcquireLease(
            spb.AcquireLeaseRequest(isolation_key=key, agent_id="holder", ttl=Duration(seconds=4), request_id="h-1"),
            timeout=60,
        ).lease
        waiter = b.safeguard.AcquireLease.future(
            spb.AcquireLeaseRequest(isolation_key=key, agent_id="waiter", ttl=Duration(seconds=30), request_id="w-1"),
            timeout=300,
        )
        queued = "SELECT count(*) FROM safeguard_lease_waiters WHERE agent_id = 'waiter'"
        wait_until(lambda: _rows(dsn, queued) == [(1,)], "the waiter queued on B", 60)
        assert a.close(signal.SIGKILL) == -signal.SIGKILL
        # Acknowledged, not lost: the grant is still the holder's, and it can renew it through B.
        assert b.safeguard.GetLease(spb.GetLeaseRequest(lease_id=held.lease_id)).lease.state in (
            ACTIVE,
            sg.LEASE_STATE_EXPIRED,  # a very slow machine may have let the 4 s pass already
        )
        try:
            renewed = b.safeguard.RenewLease(
                spb.RenewLeaseRequest(lease_id=held.lease_id, ttl=Duration(seconds=3), request_id="r-1"), timeout=30
            ).lease
            assert renewed.fencing_token == held.fencing_token
            assert not waiter.done(), "the waiter was granted a slot its holder had just renewed"
        except grpc.RpcError as err:  # lapsed before the renewal reached it (a very slow machine)
            assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err
        got = waiter.result(240).lease
        assert got.fencing_token == held.fencing_token + 1
        ended = b.safeguard.GetLease(spb.GetLeaseRequest(lease_id=held.lease_id)).lease
        assert ended.state == sg.LEASE_STATE_EXPIRED  # it lapsed: nobody took it away from its holder
        # One lease per request: neither retry nor take-over granted a second one.
        [(n,)] = _rows(dsn, "SELECT count(*) FROM safeguard_leases WHERE key_id = %s", key_id)
        assert n == 2
    finally:
        most = watch.stop()
        a.close(signal.SIGKILL)
        b.close()
    assert most <= 1, f"{most} leases of a one-slot key were ACTIVE at once"


# ---- a sidecar SIGKILLed mid-approval ---------------------------------------------------------------------


def _pending(s: SidecarProc, n: int) -> list[Any]:
    request = pb.ListApprovalsRequest(state=PENDING, page_size=100)
    wait_until(lambda: len(s.supervisor.ListApprovals(request).approvals) == n, f"{n} pending approvals", 120)
    return list(s.supervisor.ListApprovals(request).approvals)


def test_pending_approvals_of_a_sigkilled_sidecar_are_decided_elsewhere_and_reach_their_agents(
    pg: OwnPostgres, tmp_path: Path
) -> None:
    db_url = fresh_database(pg)
    token = operator_token(tmp_path, db_url)
    a = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    b = SidecarProc(tmp_path, db_url, token, "B").wait_serving()
    restarted: SidecarProc | None = None
    try:
        a.supervisor.AddGuardrail(guardrail("mid-hitl", "hitl", patterns=["deploy"]))
        wait_until(lambda: _has_guardrail(b, "mid-hitl"), "the guardrail reached B", 60)
        asks = {i: check(f"mid-agent-{i}", "deploy", {"i": i}, request_id=f"mid-req-{i}") for i in range(6)}
        lost = [a.supervisor.CheckAction.future(r, timeout=300) for r in asks.values()]
        _pending(b, 6)
        assert a.close(signal.SIGKILL) == -signal.SIGKILL
        for f in lost:
            assert f.exception(60) is not None  # the agents lost their calls with the process
        # Still pending after the crash; two agents re-attach on B before anyone decides.
        items = {x.agent_id: x for x in _pending(b, 6)}
        early = {i: b.supervisor.CheckAction.future(asks[i], timeout=300) for i in (0, 1)}
        time.sleep(0.5)  # let them attach (they wait either way; not a timing assertion)
        for i in range(6):
            approve = i % 2 == 0
            b.supervisor.DecideApproval(
                pb.DecideApprovalRequest(
                    approval_id=items[f"mid-agent-{i}"].approval_id,
                    approve=approve,
                    comment="" if approve else "not now",
                    request_id=f"mid-decide-{i}",
                ),
                timeout=60,
            )
        for i, f in early.items():
            r = f.result(120)
            assert r.allowed == (i % 2 == 0) and r.approval.request_id == f"mid-req-{i}", i
        # The others re-attach later: two on B, two on the restarted sidecar.
        restarted = SidecarProc(tmp_path, db_url, token, "A2").wait_serving()
        for i in range(2, 6):
            via = b if i < 4 else restarted
            r = via.supervisor.CheckAction(asks[i], timeout=60)
            assert r.allowed == (i % 2 == 0) and r.approval.request_id == f"mid-req-{i}", i
        assert _pending(b, 0) == []
        # One approval per request: re-attaching never opened a second one.
        rows = _rows(_dsn(db_url), "SELECT request_id, count(*) FROM approvals GROUP BY request_id")
        assert sorted(rows) == [(f"mid-req-{i}", 1) for i in range(6)]
    finally:
        a.close(signal.SIGKILL)
        b.close()
        if restarted is not None:
            restarted.close()
    _verify(tmp_path, db_url)


def _has_guardrail(s: SidecarProc, name: str) -> bool:
    return name in [g.name for g in s.supervisor.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]


# ---- approval traffic through a 10 s PostgreSQL stop -------------------------------------------------------

OUTAGE = 10.0
# What a new approval that could not be stored was answered before CheckAction waited for storage (a BLOCK):
# never again; the call waits within its deadline, then fails UNAVAILABLE.
NOT_WRITTEN = "Guardrail error: storage unavailable, retry"


class ApprovalLoad:
    """Agents ask for approval (each with its request_id, re-sent after an error until answered) and one
    reviewer decides whatever is pending (each decision with its request_id, re-sent after an error)."""

    def __init__(self, s: SidecarProc, agents: int) -> None:
        self.s = s
        self.errors: list[tuple[grpc.StatusCode, str, str]] = []
        self.answered: dict[str, bool] = {}
        self.reasons: dict[str, str] = {}
        self.not_written = 0
        self.asked: set[str] = set()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._agent, args=(i,), daemon=True) for i in range(agents)]
        self.threads.append(threading.Thread(target=self._reviewer, daemon=True))

    def _error(self, method: str, err: grpc.RpcError) -> None:
        with self._lock:
            self.errors.append((err.code(), err.details() or "", method))
        time.sleep(0.1)

    def _agent(self, n: int) -> None:
        k = 0
        while not self._stop.is_set():
            request_id = f"load-{n}-{k}"
            req = check(f"load-agent-{n}", "deploy", {"k": k}, request_id=request_id)
            with self._lock:
                self.asked.add(request_id)
            while True:  # the same request until answered: a re-attach, never a second request
                try:
                    r = self.s.supervisor.CheckAction(req, timeout=60)
                except grpc.RpcError as err:
                    self._error("CheckAction", err)
                    continue
                if not r.allowed and r.reason == NOT_WRITTEN:
                    with self._lock:
                        self.not_written += 1
                    time.sleep(0.1)
                    continue
                with self._lock:
                    self.answered[request_id] = r.allowed
                    self.reasons[request_id] = r.reason
                break
            k += 1
            time.sleep(0.05)  # under the operator's rate limit (limits.requests_per_second)

    def _reviewer(self) -> None:
        listing = pb.ListApprovalsRequest(state=PENDING, page_size=100)
        while not self._stop.is_set() or self._open():
            try:
                pending = self.s.supervisor.ListApprovals(listing, timeout=10).approvals
            except grpc.RpcError as err:
                self._error("ListApprovals", err)
                continue
            for item in pending:
                decide = pb.DecideApprovalRequest(
                    approval_id=item.approval_id, approve=True, request_id=f"decide-{item.approval_id}"
                )
                while True:
                    try:
                        self.s.supervisor.DecideApproval(decide, timeout=10)
                        break
                    except grpc.RpcError as err:
                        self._error("DecideApproval", err)
            time.sleep(0.05)

    def _open(self) -> bool:
        with self._lock:
            return len(self.answered) < len(self.asked)

    def __enter__(self) -> ApprovalLoad:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        for t in self.threads:
            t.join(180)
        assert not any(t.is_alive() for t in self.threads), "a load thread did not finish"


def test_approval_traffic_through_a_ten_second_outage_loses_no_request(pg: OwnPostgres, tmp_path: Path) -> None:
    db_url = fresh_database(pg)
    token = operator_token(tmp_path, db_url)
    s = SidecarProc(tmp_path, db_url, token, "A").wait_serving()
    try:
        s.supervisor.AddGuardrail(guardrail("load-hitl", "hitl", patterns=["deploy"]))
        load = ApprovalLoad(s, agents=4)
        with load:
            wait_until(lambda: len(load.answered) >= 8, "approvals answered before the outage", 120)
            pg.stop()
            stopped = time.monotonic()
            wait_until(lambda: time.monotonic() - stopped >= OUTAGE, "the outage", OUTAGE + 60)
            pg.start()
            before = len(load.answered)
            wait_until(lambda: len(load.answered) >= before + 8, "approvals answered after the outage", 180)
            load.stop()
        for code, details, method in load.errors:
            assert (code, details) == (grpc.StatusCode.UNAVAILABLE, FIXED), (method, code, details)
        # Every request was answered with its decision (approved), and each is one approval in the database.
        assert load.asked == set(load.answered)
        assert all(load.answered.values()), {k: v for k, v in load.reasons.items() if not load.answered[k]}
        # A new approval asked during the outage waits for storage (within its 60 s deadline) and is created
        # once it is back: never a BLOCK for an approval that could not be stored (tests/faults/
        # test_waiting_calls.py asks one during the outage on purpose).
        assert load.not_written == 0
        assert load.errors, "the outage refused nothing: was storage really stopped?"
        rows = _rows(_dsn(db_url), "SELECT request_id, state, count(*) FROM approvals GROUP BY request_id, state")
        assert sorted(rows) == sorted((rid, "APPROVED", 1) for rid in load.asked)
    finally:
        s.close()
    _verify(tmp_path, db_url)
