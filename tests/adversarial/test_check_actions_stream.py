"""CheckActions attacked as an agent with one token would: a long-lived stream must give no more than the
unary call gives. Every request is authorized, rate-limited and capped per message; a stream opened before
a kill or a revocation does not outlive it; a poisoned request ends the stream with INVALID_ARGUMENT,
never INTERNAL."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2

from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc
from server.domain.access.principals import PrincipalKind
from tests.integration.checkstream import CheckStream
from tests.integration.creds import with_token
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, error_info, guardrail
from tests.integration.test_approvals import hitl, pending


def test_a_request_for_another_agent_ends_the_stream_and_decides_nothing(sidecar: RunningSidecar) -> None:
    stream = CheckStream(sidecar.as_agent("mallory").stub)
    stream.send(1, check(agent_id="mallory"))
    stream.wait(1)
    stream.send(2, check(agent_id="victim", action="shell.exec"))
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.PERMISSION_DENIED
    info = error_info(err)
    assert (info.reason, info.metadata["field"]) == ("NOT_YOUR_AGENT", "check.agent_id")
    assert 2 not in stream.answers
    sidecar.services.decisions.flush()
    assert sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id="victim")).decisions == []


def test_every_request_counts_against_the_credentials_rate_limit(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, requests_per_second=2.0, burst=5)) as s:
        stream = CheckStream(s.as_agent("agent-1").stub)
        for i in range(30):
            stream.send(i, check())
        answers = stream.wait(*range(30))
        decided = [a for a in answers if a.HasField("response")]
        limited = [a for a in answers if a.HasField("error")]
        # The stream's opening took one token of the burst; a few more refill while the 30 arrive.
        assert 3 <= len(decided) <= 8, len(decided)
        assert {(a.error.code, a.error.reason) for a in limited} == {(code_pb2.RESOURCE_EXHAUSTED, "RATE_LIMITED")}
        time.sleep(1.0)
        stream.send(99, check())  # the stream survived: refilled tokens are taken again
        assert stream.wait(99)[0].response.allowed
        stream.close()
        assert stream.ended() is None


def test_a_stream_holds_no_more_decisions_than_the_agents_in_flight_cap(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_inflight_per_agent=3)) as s:
        hitl(s)
        me = s.as_agent("agent-1")
        stream = CheckStream(me.stub)
        for i in range(10):
            stream.send(i, check(action="deploy", request_id=f"r{i}"))
        waiting = pending(s, 3)
        time.sleep(0.3)
        assert len(pending(s, 3)) == 3  # the stream stopped reading at the cap: no fourth request
        with pytest.raises(grpc.RpcError) as err:
            me.stub.CheckAction(check(action="read"), timeout=5)  # the cap counts unary calls too
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_info(err.value).reason == "TOO_MANY_IN_FLIGHT"
        for a in waiting:
            s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=a.approval_id, approve=True))
        stream.wait(*(int(a.request_id[1:]) for a in waiting))
        pending(s, 3)  # the next three are read now
        stream.cancel()


def test_a_second_stream_of_the_same_agent_shares_its_cap(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_inflight_per_agent=2)) as s:
        hitl(s)
        first, second = CheckStream(s.as_agent("agent-1").stub), CheckStream(s.as_agent("agent-1").stub)
        first.send(1, check(action="deploy", request_id="a"))
        first.send(2, check(action="deploy", request_id="b"))
        pending(s, 2)
        second.send(1, check(action="deploy", request_id="c"))
        [refused] = second.wait(1)
        assert (refused.error.code, refused.error.reason) == (code_pb2.RESOURCE_EXHAUSTED, "TOO_MANY_IN_FLIGHT")
        first.cancel()
        second.cancel()


def test_a_stream_opened_before_a_kill_is_answered_by_the_kill_switch(s: RunningSidecar) -> None:
    stream = CheckStream(s.as_agent("w1").stub)
    stream.send(1, check("w1", "read"))
    assert stream.wait(1)[0].response.allowed
    killed = s.recovery.Kill(rpb.KillRequest(agent_id="w1", reason=r.KILL_REASON_MANUAL), timeout=30).result
    stream.send(2, check("w1", "read"))
    [after] = stream.wait(2)
    assert not after.response.allowed and after.response.guardrail == "kill-switch"
    assert killed.kill_id in after.response.reason
    stream.close()
    assert stream.ended() is None


def test_a_stream_opened_before_its_token_was_revoked_ends_at_the_next_request(sidecar: RunningSidecar) -> None:
    secret, token = sidecar.services.access.issue(PrincipalKind.AGENT, "agent-1", "t", "test")
    stub = supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(sidecar.raw_channel, secret))
    stream = CheckStream(stub)
    stream.send(1, check())
    assert stream.wait(1)[0].response.allowed
    admin = sidecar.as_operator("root", admin=True)
    admin.access.RevokeToken(apb.RevokeTokenRequest(token_id=token.token_id))
    stream.send(2, check(action="shell.exec"))
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert 2 not in stream.answers


def test_a_revocation_after_many_requests_ends_the_stream_at_the_next_one(sidecar: RunningSidecar) -> None:
    """The credential is looked up again only when the credentials changed: a stream whose lookups were
    skipped for a while still ends at the first request after its token is revoked."""
    secret, token = sidecar.services.access.issue(PrincipalKind.AGENT, "agent-1", "t", "test")
    stream = CheckStream(supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(sidecar.raw_channel, secret)))
    for i in range(1, 6):
        stream.send(i, check())
    assert all(a.response.allowed for a in stream.wait(*range(1, 6)))
    sidecar.services.access.revoke(token.token_id, "test")
    stream.send(6, check(action="shell.exec"))
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert 6 not in stream.answers


def test_a_revocation_by_the_cli_ends_an_open_stream(sidecar: RunningSidecar) -> None:
    """Revoked by another process (the CLI writes the database): the sidecar's mirror follows, and the
    stream ends at its first request after that, though nothing about the stream itself changed."""
    secret, token = sidecar.services.access.issue(PrincipalKind.AGENT, "agent-1", "t", "test")
    stream = CheckStream(supervisor_service_pb2_grpc.SupervisorServiceStub(with_token(sidecar.raw_channel, secret)))
    for i in range(1, 4):
        stream.send(i, check())
    assert all(a.response.allowed for a in stream.wait(*range(1, 4)))
    cfg = sidecar.config
    cli = subprocess.run(
        [sys.executable, "-m", "server", "tokens", "revoke", token.token_id,
         "--db-url", cfg.database_url(), "--data-dir", str(cfg.data_dir)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    deadline = time.monotonic() + 30
    next_id = 4
    while not stream.over(within=0.2) and time.monotonic() < deadline:
        stream.send(next_id, check())  # answered (allowed) until the sidecar has seen the revocation
        next_id += 1
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    assert error_info(err).reason == "BAD_CREDENTIAL"


def test_a_reused_id_in_flight_ends_the_stream(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    stream = CheckStream(sidecar.as_agent("agent-1").stub)
    stream.send(7, check(action="deploy"))
    pending(sidecar, 1)
    stream.send(7, check(action="read"))
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err).metadata["field"] == "id"


@pytest.mark.parametrize("poison", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_number_is_that_requests_invalid_argument_and_the_log_keeps_writing(
    sidecar: RunningSidecar, poison: float
) -> None:
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    me = sidecar.as_agent("agent-1")
    stream = CheckStream(me.stub)
    stream.send(1, check())
    stream.send(2, check(context={"cost": poison}))
    stream.send(3, check(context={"cost": 1}))
    first, bad, after = stream.wait(1, 2, 3)
    assert (bad.error.code, bad.error.field) == (code_pb2.INVALID_ARGUMENT, "check.context.cost")
    assert "not a finite number" in bad.error.message and "Traceback" not in bad.error.message
    assert after.response.allowed
    stream.close()
    assert stream.ended() is None
    sidecar.services.decisions.flush()
    ids = {d.decision_id for d in sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id="agent-1")).decisions}
    assert {first.response.decision_id, after.response.decision_id} <= ids


def test_a_request_that_does_not_parse_ends_the_stream_with_invalid_argument(sidecar: RunningSidecar) -> None:
    # check {agent_id: "agent-1", action: <bytes that are not UTF-8>}: no client library can send it.
    inner = b"\x0a\x07agent-1" + b"\x12\x02\xff\xfe"
    raw = b"\x08\x01\x12" + bytes([len(inner)]) + inner
    good = pb.CheckActionsRequest(id=2, check=check()).SerializeToString()
    channel = with_token(sidecar.raw_channel, sidecar.issue(PrincipalKind.AGENT, "agent-1"))
    call = channel.stream_stream(
        "/outrider.v1.SupervisorService/CheckActions",
        request_serializer=lambda b: b,
        response_deserializer=pb.CheckActionsResponse.FromString,
    )(iter([good, raw, good]), timeout=10)
    answers, err = [], None
    try:
        answers = list(call)
    except grpc.RpcError as exc:
        err = exc
    assert err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err).reason == "MALFORMED_REQUEST" and "Traceback" not in (err.details() or "")
    assert [a.id for a in answers] in ([], [2])  # the first good one may be answered before the end
    assert sidecar.as_agent("agent-1").stub.CheckAction(check()).allowed


def test_a_context_too_deep_is_that_requests_answer(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_context_depth=4)) as s:
        stream = CheckStream(s.as_agent("agent-1").stub)
        stream.send(1, check(context={"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}))
        stream.send(2, check())
        deep, fine = stream.wait(1, 2)
        assert deep.error.code == code_pb2.INVALID_ARGUMENT and deep.error.field.startswith("check.context")
        assert fine.response.allowed
        stream.close()
        assert stream.ended() is None


def test_an_agent_cannot_hold_more_than_its_share_of_open_streams(tmp_path: Path) -> None:
    """Before: each idle stream cost one request of the rate limit to open and then nothing, so one agent
    could pile up streams (and their memory) without bound."""
    with RunningSidecar(make_config(tmp_path, max_check_streams_per_agent=2)) as s:
        me = s.as_agent("agent-1")
        held = [CheckStream(me.stub), CheckStream(me.stub)]
        for i, st in enumerate(held):
            st.send(i, check())
            st.wait(i)
        third = CheckStream(me.stub)
        third.send(9, check())
        err = third.ended()
        assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_info(err).reason == "TOO_MANY_STREAMS"
        other = CheckStream(s.as_agent("agent-2").stub)  # another agent's share is its own
        other.send(1, check("agent-2"))
        assert other.wait(1)[0].response.allowed
        operator = CheckStream(s.stub)  # operators are not counted
        operator.send(1, check())
        assert operator.wait(1)[0].response.allowed
        held[0].close()
        assert held[0].ended() is None
        again = CheckStream(me.stub)  # a closed stream gives its place back
        again.send(1, check())
        assert again.wait(1)[0].response.allowed
        for st in (held[1], other, operator, again):
            st.cancel()
