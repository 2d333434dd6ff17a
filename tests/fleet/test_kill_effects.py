"""A kill's side effects are fleet-wide: issued on A for an agent attached to B, with a lease granted on B,
an approval pending on B and a waiter on C, the KillResult counts what really happened everywhere."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import common_pb2, recovery_service_pb2_grpc, supervisor_service_pb2_grpc
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.creds import with_token
from tests.integration.recovery_sim import SimAgent
from tests.integration.rpc import check, error_info, guardrail

from .conftest import fast_failover_fleet
from .harness import Fleet, cli, wait_until

# Three sidecar processes start in the module fixture: generous on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def effects_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    yield from fast_failover_fleet(tmp_path_factory, "kill-effects")


def _key(name: str) -> sg.IsolationKey:
    return sg.IsolationKey(scope=sg.ISOLATION_SCOPE_SESSION, id=name)


def test_a_kill_on_a_revokes_cancels_refuses_and_ends_the_stream_on_b(effects_fleet: Fleet) -> None:
    a, b, c = effects_fleet.sidecars[:3]
    a.supervisor.AddGuardrail(guardrail("fx-approve", "hitl", patterns=["fx-deploy"]))
    a.supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="fx-1")))
    issued = cli(effects_fleet.tmp, effects_fleet.db_url, "tokens", "issue", "--agent", "fx-1")
    assert issued.returncode == 0, issued.stderr
    own = {s.name: with_token(s.raw, issued.stdout.strip()) for s in (a, b, c)}  # type: ignore[arg-type]
    wait_until(
        lambda: "fx-approve" in [g.name for g in b.supervisor.ListGuardrails(spb.ListGuardrailsRequest()).guardrails],
        "B runs the guardrail",
    )
    # The agent, with its own token: attached to B, holding a lease granted on B, an approval pending on B.
    agent = SimAgent(recovery_service_pb2_grpc.RecoveryServiceStub(own["B"]), "fx-1")
    agent.wait_accepted()
    lease = b.safeguard.AcquireLease(
        pb.AcquireLeaseRequest(isolation_key=_key("fx-key"), agent_id="fx-1", ttl=Duration(seconds=60)), timeout=10
    ).lease
    waiting: dict[str, object] = {}

    def ask() -> None:
        try:
            waiting["check"] = b.supervisor.CheckAction(check("fx-1", "fx-deploy"), timeout=30)
        except grpc.RpcError as err:
            waiting["check"] = err

    def wait_for_lease() -> None:
        req = pb.AcquireLeaseRequest(isolation_key=_key("fx-key"), agent_id="fx-2", ttl=Duration(seconds=60))
        waiting["lease"] = c.safeguard.AcquireLease(req, timeout=30).lease

    threads = [threading.Thread(target=ask), threading.Thread(target=wait_for_lease)]
    for t in threads:
        t.start()
    try:
        wait_until(
            lambda: bool(a.supervisor.ListApprovals(spb.ListApprovalsRequest(agent_id="fx-1")).approvals),
            "the approval is pending",
        )
        wait_until(
            lambda: (
                b.safeguard.GetLease(pb.GetLeaseRequest(lease_id=lease.lease_id)).lease.state == sg.LEASE_STATE_ACTIVE
            ),
            "the lease is held",
        )
        result = a.recovery.Kill(rpb.KillRequest(agent_id="fx-1", reason=r.KILL_REASON_MANUAL), timeout=60).result
        for t in threads:
            t.join(30)
    finally:
        agent.close()
    assert result.terminated and result.detail == "ok", result
    assert (result.revoked_lease_count, result.cancelled_approval_count) == (1, 1), result
    # The stream on B ended ABORTED AGENT_KILLED.
    err = agent.wait_ended()
    assert err is not None and err.code() is grpc.StatusCode.ABORTED and error_info(err).reason == "AGENT_KILLED"
    # The lease is REVOKED and went to the waiter on C; the call waiting on B for its approval got its answer.
    assert b.safeguard.GetLease(pb.GetLeaseRequest(lease_id=lease.lease_id)).lease.state == sg.LEASE_STATE_REVOKED
    assert getattr(waiting.get("lease"), "agent_id", None) == "fx-2"
    answered = waiting.get("check")
    assert isinstance(answered, spb.CheckActionResponse) and not answered.allowed, answered
    # Its credentials are refused on every sidecar (terminated until an operator reinstates it); CheckAction
    # answers, blocked.
    for name, channel in own.items():
        with pytest.raises(grpc.RpcError) as refused:
            recovery_service_pb2_grpc.RecoveryServiceStub(channel).Heartbeat(rpb.HeartbeatRequest(agent_id="fx-1"))
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED, name
        assert error_info(refused.value).reason == "AGENT_TERMINATED", name
        stub = supervisor_service_pb2_grpc.SupervisorServiceStub(channel)
        assert not stub.CheckAction(check("fx-1", "read")).allowed, name
