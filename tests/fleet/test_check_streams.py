"""CheckActions streams in a fleet: a stream held open on one sidecar sees what the others do (a kill, a
decision, the fleet's rate window), as the unary call does. Every request of a stream is decided by the same
fleet-tested services; these tests make sure nothing about a long-lived stream keeps a stale view."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from outrider.v1 import access_pb2, common_pb2, supervisor_service_pb2_grpc
from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.checkstream import CheckStream
from tests.integration.creds import with_token
from tests.integration.rpc import check, error_info, guardrail

from .harness import Fleet, SidecarProc, admin_on, cli, guardrail_names, wait_everywhere, wait_until

pytestmark = pytest.mark.timeout(300)

DAY = "86400s"  # fleet windows are aligned to the epoch: a day-long one is not crossed during the test


def _agent_stub(fleet: Fleet, agent_id: str, s: SidecarProc) -> supervisor_service_pb2_grpc.SupervisorServiceStub:
    """The agent, registered on A, with its own credential, talking to `s`."""
    fleet.sidecars[0].supervisor.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)))
    issued = cli(fleet.tmp, fleet.db_url, "tokens", "issue", "--agent", agent_id)
    assert issued.returncode == 0, issued.stderr
    assert s.raw is not None
    return supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(s.raw, issued.stdout.strip()))


@pytest.fixture
def streams() -> Iterator[list[CheckStream]]:
    opened: list[CheckStream] = []
    yield opened
    for st in opened:
        st.cancel()


def test_a_kill_on_a_answers_the_agents_open_stream_on_b_by_the_kill_switch(
    shared_fleet: Fleet, streams: list[CheckStream]
) -> None:
    a, b, _ = shared_fleet.sidecars
    stream = CheckStream(_agent_stub(shared_fleet, "cs-kill", b))
    streams.append(stream)
    stream.send(1, check("cs-kill", "read"))
    assert stream.wait(1)[0].response.allowed
    killed = a.recovery.Kill(rpb.KillRequest(agent_id="cs-kill", reason=r.KILL_REASON_MANUAL), timeout=60).result
    # The stream was opened before the kill, on another sidecar: its next requests are refused by the kill
    # switch as soon as B has the change (the registry's NOTIFY bound, not the stream's lifetime), and once
    # nothing is in flight the stream ends PERMISSION_DENIED AGENT_TERMINATED (as the proto says).
    sent = [1]
    last: list[spb.CheckActionsResponse] = []

    def refused() -> bool:
        sent.append(sent[-1] + 1)
        stream.send(sent[-1], check("cs-kill", "read"))
        try:
            last[:] = stream.wait(sent[-1])
        except AssertionError:  # the stream ended: the kill reached B
            return stream.error is not None
        return not last[0].response.allowed

    # A stream that kept its opening-time view would never refuse: arriving at all is the proof (how fast is
    # the registry's notification latency, measured by `make bench`).
    wait_until(refused, "the stream on B answers the kill", timeout=30)
    if last and not last[0].response.allowed:
        assert last[0].response.guardrail == "kill-switch" and killed.kill_id in last[0].response.reason
    err = stream.ended(timeout=30)
    assert err is not None and err.code() == grpc.StatusCode.PERMISSION_DENIED, err
    assert error_info(err).reason == "AGENT_TERMINATED" and killed.kill_id in (err.details() or "")


def test_a_request_waiting_on_b_is_decided_on_c_while_the_stream_goes_on(
    shared_fleet: Fleet, streams: list[CheckStream]
) -> None:
    a, b, c = shared_fleet.sidecars
    a.supervisor.AddGuardrail(guardrail("cs-approve", "hitl", patterns=["cs-deploy"]))
    wait_everywhere(shared_fleet, "cs-approve")
    stream = CheckStream(_agent_stub(shared_fleet, "cs-hitl", b), timeout=60)
    streams.append(stream)
    stream.send(1, check("cs-hitl", "cs-deploy"))
    stream.send(2, check("cs-hitl", "read"))
    assert stream.wait(2)[0].response.allowed  # the waiting request holds up no other
    pending: list[str] = []

    def asked() -> bool:
        pending[:] = [
            ap.approval_id for ap in c.supervisor.ListApprovals(spb.ListApprovalsRequest(agent_id="cs-hitl")).approvals
        ]
        return bool(pending)

    wait_until(asked, "the request is pending, seen from C")
    assert 1 not in stream.answers
    c.supervisor.DecideApproval(spb.DecideApprovalRequest(approval_id=pending[0], approve=True, comment="ok"))
    [decided] = stream.wait(1, timeout=30)
    assert decided.response.allowed and decided.response.approval.approval_id == pending[0]
    stream.close()
    assert stream.ended() is None


def test_streams_on_two_sidecars_share_the_fleets_rate_window(shared_fleet: Fleet, streams: list[CheckStream]) -> None:
    a, b, _ = shared_fleet.sidecars
    a.supervisor.AddGuardrail(guardrail("cs-pace", "rate_limit", max=6, window=DAY))
    try:
        wait_everywhere(shared_fleet, "cs-pace")
        on_a = CheckStream(_agent_stub(shared_fleet, "cs-rate", a))
        on_b = CheckStream(_agent_stub(shared_fleet, "cs-rate", b))
        streams.extend([on_a, on_b])
        for i in range(1, 11):
            (on_a if i % 2 else on_b).send(i, check("cs-rate", "chat"))
        answers = on_a.wait(1, 3, 5, 7, 9) + on_b.wait(2, 4, 6, 8, 10)
        admitted = [x.id for x in answers if x.response.allowed]
        # max 6 for the fleet, not 6 per sidecar (slices of one: exactly max on one host)
        assert len(admitted) == 6, [(x.id, x.response.allowed, x.response.reason) for x in answers]
        assert {i % 2 for i in admitted} == {0, 1}  # both sidecars admitted some
        refused = [x.response for x in answers if not x.response.allowed]
        assert all(x.guardrail == "cs-pace" for x in refused), refused
    finally:
        a.supervisor.RemoveGuardrail(spb.RemoveGuardrailRequest(name="cs-pace"))
        for s in shared_fleet.sidecars:
            wait_until(lambda s=s: "cs-pace" not in guardrail_names(s), f"cs-pace gone from {s.name}")


def test_an_agent_streaming_on_a_cannot_check_for_another_on_b(shared_fleet: Fleet, streams: list[CheckStream]) -> None:
    _, b, _ = shared_fleet.sidecars
    shared_fleet.sidecars[0].supervisor.RegisterAgent(
        spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="cs-victim"))
    )
    stream = CheckStream(_agent_stub(shared_fleet, "cs-mallory", b))
    streams.append(stream)
    stream.send(1, check("cs-mallory", "read"))
    assert stream.wait(1)[0].response.allowed
    stream.send(2, check("cs-victim", "read"))  # registered on A, known on B: still not the caller's
    err = stream.ended()
    assert err is not None and err.code() is grpc.StatusCode.PERMISSION_DENIED


def test_a_token_revoked_on_a_ends_its_open_stream_on_b(shared_fleet: Fleet, streams: list[CheckStream]) -> None:
    """B's stream looks the credential up again only when B's credentials change: a revocation made on A
    reaches B through the change feed, and the stream, already past its first lookups, ends at a request
    after that."""
    a, b, _ = shared_fleet.sidecars
    admin = admin_on(shared_fleet, a, "cs-admin")
    assert b.raw is not None
    issued = admin.IssueToken(apb.IssueTokenRequest(kind=access_pb2.PRINCIPAL_KIND_AGENT, subject="cs-revoked"))
    as_agent = supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(b.raw, issued.secret))

    def b_knows_the_token() -> bool:
        try:
            as_agent.CheckAction(check("cs-revoked", "read"), timeout=30)
        except grpc.RpcError as err:
            if err.code() is not grpc.StatusCode.UNAUTHENTICATED:
                raise
            return False
        return True

    wait_until(b_knows_the_token, "B accepts the new token")
    stream = CheckStream(as_agent)
    streams.append(stream)
    for i in range(1, 6):
        stream.send(i, check("cs-revoked", "read"))
    assert all(x.response.allowed for x in stream.wait(*range(1, 6)))
    admin.RevokeToken(apb.RevokeTokenRequest(token_id=issued.token.token_id))
    sent = [5]

    def ended() -> bool:
        if stream.over(within=0.1):
            return True
        sent.append(sent[-1] + 1)
        stream.send(sent[-1], check("cs-revoked", "read"))  # allowed until B has seen the revocation
        return False

    wait_until(ended, "B's open stream ends after the revocation on A")
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert error_info(err).reason == "BAD_CREDENTIAL"
