"""Case 6 of issue 12: small leaks. ValidatePlan with another agent's id revealed its capabilities; an agent
could take another agent's AGENT-scope lease key and block it; agent ids containing ':' confused the
breaker key ownership check."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from server.domain.access.principals import PrincipalKind
from server.domain.errors import InvalidArgument
from tests.integration.harness import RunningSidecar
from tests.integration.rpc import check

from .helpers import agent, refused


def _plan(*actions: str) -> sg.ExecutionPlan:
    return sg.ExecutionPlan(steps=[sg.PlanStep(step_id=f"s{i}", action=a) for i, a in enumerate(actions)])


def test_validate_plan_only_for_oneself(s: RunningSidecar) -> None:
    s.stub.RegisterAgent(agent("victim", capabilities=("payments.refund",)))
    s.stub.RegisterAgent(agent("me", capabilities=("read",)))
    me = s.as_agent("me")
    info = refused(lambda: me.safeguard.ValidatePlan(spb.ValidatePlanRequest(plan=_plan("x"), agent_id="victim")))
    assert (info.reason, info.metadata["field"]) == ("NOT_YOUR_AGENT", "agent_id")
    mine = me.safeguard.ValidatePlan(spb.ValidatePlanRequest(plan=_plan("read"), agent_id="me"))
    assert mine.valid
    # Capabilities given in the request need no agent id at all.
    given = me.safeguard.ValidatePlan(spb.ValidatePlanRequest(plan=_plan("read"), capabilities=["read"]))
    assert given.valid


def test_agent_scope_lease_keys_are_their_own(s: RunningSidecar) -> None:
    me = s.as_agent("me")

    def take(ident: str) -> spb.AcquireLeaseResponse:
        key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_AGENT, id=ident)
        return me.safeguard.AcquireLease(spb.AcquireLeaseRequest(isolation_key=key, agent_id="me"), timeout=5)

    info = refused(lambda: take("victim"))
    assert (info.reason, info.metadata["field"]) == ("NOT_YOUR_AGENT", "isolation_key.id")
    assert take("me").lease.lease_id
    # The victim's own lease is free to take.
    victim = s.as_agent("victim").safeguard
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_AGENT, id="victim")
    assert victim.AcquireLease(spb.AcquireLeaseRequest(isolation_key=key, agent_id="victim"), timeout=5).lease.lease_id


def test_agent_ids_never_contain_the_key_separator(s: RunningSidecar) -> None:
    info = refused(lambda: s.stub.CheckAction(check("me:db")), grpc.StatusCode.INVALID_ARGUMENT)
    assert info.metadata["field"] == "agent_id"
    # No agent credential can be issued for such an id, so "me:db" keys always belong to "me".
    with pytest.raises(InvalidArgument, match="may not contain ':'"):
        s.issue(PrincipalKind.AGENT, "victim:db")
    me = s.as_agent("me")
    assert me.access.WhoAmI(apb.WhoAmIRequest()).subject == "me"
    assert refused(lambda: me.safeguard.AcquirePermit(spb.AcquirePermitRequest(key="victim:me"))).reason == (
        "NOT_YOUR_AGENT"
    )
