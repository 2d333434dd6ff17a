"""Case 4 of issue 12: nobody is framed by one voice. Three ReportFailure(from_agent=innocent, to_agent=me)
calls from one agent made `innocent` the cascade root: killed with `kill_root`, its breaker opened with
`open_breakers`. A cascade action against an agent now needs `threshold` distinct reporters other than the
accused, or evidence no other agent can forge: an operator's report, the accused's failed health check, one of
the accused's own breakers opened on failures the sidecar recorded. The event still fires, marked
`corroborated: false`."""

from __future__ import annotations

import grpc

from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.harness import RunningSidecar
from tests.integration.recovery_sim import ping_check

from .helpers import agent, refused


def policy(s: RunningSidecar, action: int) -> None:
    s.recovery.SetCascadePolicy(rpb.SetCascadePolicyRequest(policy=r.CascadePolicy(threshold=3, action=action)))


def accuse(me: object, reporter: str, accused: str = "innocent") -> rpb.ReportFailureResponse:
    return me.recovery.ReportFailure(  # type: ignore[attr-defined, no-any-return]
        rpb.ReportFailureRequest(from_agent=accused, to_agent=reporter, detail="it broke me")
    )


def test_an_agent_reports_only_failures_it_suffered(s: RunningSidecar) -> None:
    me = s.as_agent("me")
    info = refused(lambda: me.recovery.ReportFailure(rpb.ReportFailureRequest(from_agent="innocent", to_agent="x")))
    assert (info.reason, info.metadata["field"]) == ("NOT_YOUR_AGENT", "to_agent")


def test_one_voice_cannot_kill_a_neighbour(s: RunningSidecar) -> None:
    policy(s, r.CASCADE_ACTION_KILL_ROOT)
    s.stub.RegisterAgent(agent("innocent"))
    me = s.as_agent("me")
    responses = [accuse(me, "me") for _ in range(3)]
    cascade = responses[-1].cascade
    assert responses[-1].HasField("cascade") and cascade.root_agent == "innocent"
    assert not cascade.corroborated and cascade.kill_id == ""
    assert {f.reporter for f in cascade.failures} == {"agent:me"}
    assert s.recovery.ListKills(rpb.ListKillsRequest()).kills == []
    assert s.stub.GetAgent(pb.GetAgentRequest(agent_id="innocent")).agent.agent_id == "innocent"


def test_one_voice_cannot_open_a_neighbours_breaker(s: RunningSidecar) -> None:
    policy(s, r.CASCADE_ACTION_OPEN_BREAKERS)
    me = s.as_agent("me")
    cascade = [accuse(me, "me") for _ in range(3)][-1].cascade
    assert not cascade.corroborated and list(cascade.opened_breakers) == []
    try:
        assert s.safeguard.GetBreaker(spb.GetBreakerRequest(key="innocent")).breaker.state == sg.BREAKER_STATE_CLOSED
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.NOT_FOUND  # never created, so never opened


def test_distinct_voices_or_an_operator_corroborate(s: RunningSidecar) -> None:
    policy(s, r.CASCADE_ACTION_OPEN_BREAKERS)
    cascade = [accuse(s.as_agent(who), who, "flaky") for who in ("a", "b", "c")][-1].cascade
    assert cascade.corroborated and list(cascade.opened_breakers) == ["flaky"]
    # Two voices are not three, and the accused's own report does not count against it.
    me, quiet = s.as_agent("me"), s.as_agent("quiet")
    accuse(me, "me", "quiet")
    accuse(s.as_agent("you"), "you", "quiet")
    cascade = accuse(quiet, "quiet", "quiet").cascade
    assert cascade.agent_ids and not cascade.corroborated and list(cascade.opened_breakers) == []
    # An operator's report is evidence of its own.
    policy(s, r.CASCADE_ACTION_KILL_ROOT)
    s.stub.RegisterAgent(agent("root"))
    for sufferer in ("mid", "leaf", "end"):
        s.recovery.ReportFailure(rpb.ReportFailureRequest(from_agent="root", to_agent=sufferer))
    assert [k.agent_id for k in s.recovery.ListKills(rpb.ListKillsRequest()).kills] == ["root"]


def fail_calls(stubs: object, key: str, count: int = 3) -> None:
    """`count` failed calls on breaker `key` (the default failure threshold opens it), recorded by the sidecar."""
    safeguard = stubs.safeguard  # type: ignore[attr-defined]
    for _ in range(count):
        permit = safeguard.AcquirePermit(spb.AcquirePermitRequest(key=key))
        assert permit.permitted
        safeguard.ReportOutcome(spb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=sg.CALL_OUTCOME_FAILURE))


def kills(s: RunningSidecar) -> list[str]:
    return [k.agent_id for k in s.recovery.ListKills(rpb.ListKillsRequest()).kills]


def test_an_agent_whose_breaker_opened_is_acted_on_with_fewer_reporters(s: RunningSidecar) -> None:
    policy(s, r.CASCADE_ACTION_KILL_ROOT)
    me = s.as_agent("me")
    # My own breaker towards `innocent` opening is my voice again, not a fact about `innocent`.
    fail_calls(me, "me:innocent")
    assert s.safeguard.GetBreaker(spb.GetBreakerRequest(key="me:innocent")).breaker.state == sg.BREAKER_STATE_OPEN
    cascade = [accuse(me, "me") for _ in range(2)][-1].cascade
    assert cascade.root_agent == "innocent" and not cascade.corroborated and cascade.kill_id == ""
    assert kills(s) == []
    # `flaky`'s own breaker opened on the failures it reported itself: one other voice is then enough.
    fail_calls(s.as_agent("flaky"), "flaky")
    assert s.safeguard.GetBreaker(spb.GetBreakerRequest(key="flaky")).breaker.state == sg.BREAKER_STATE_OPEN
    cascade = [accuse(me, "me", "flaky") for _ in range(2)][-1].cascade
    assert cascade.root_agent == "flaky" and cascade.corroborated and cascade.kill_id
    assert {f.reporter for f in cascade.failures} == {"agent:me", "agent:flaky"}
    assert kills(s) == ["flaky"]
    detected = [e for e in s.services.audit.repo.iter_all() if e.action == "cascade.detected"]
    assert detected[-1].details["evidence"] == {"flaky": "breaker_opened"}


def test_an_agent_whose_health_check_failed_is_acted_on_with_fewer_reporters(s: RunningSidecar) -> None:
    policy(s, r.CASCADE_ACTION_KILL_ROOT)
    for who in ("healthy", "down"):
        s.stub.RegisterAgent(agent(who))
    s.recovery.AddHealthCheck(ping_check("down"))
    statuses = s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest()).statuses
    assert [(st.agent_id, st.healthy) for st in statuses] == [("down", False)]  # not connected
    me = s.as_agent("me")
    cascade = [accuse(me, "me", "healthy") for _ in range(3)][-1].cascade
    assert cascade.root_agent == "healthy" and not cascade.corroborated and kills(s) == []
    cascade = [accuse(me, "me", "down") for _ in range(3)][-1].cascade
    assert cascade.root_agent == "down" and cascade.corroborated and cascade.kill_id
    assert kills(s) == ["down"]
