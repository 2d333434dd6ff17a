"""The agent escalation matrix (issue 12), generated from the service descriptors.

Every field of every request an agent credential may send is classified in FIELDS. A field that names an
agent, a key or an object is then set to someone else's value, over real gRPC with a real agent token, and
the call must be refused (or leave the other party untouched). A new RPC, or a new field in an
agent-callable request, fails `test_every_agent_callable_field_has_a_rule` until it is classified here."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, MethodDescriptor

from outrider.v1 import (
    access_service_pb2,
    recovery_pb2,
    recovery_service_pb2,
    safeguard_pb2,
    safeguard_service_pb2,
    supervisor_service_pb2,
)
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import Scope
from server.rpc.access_rules import RULES
from tests.integration.harness import RunningSidecar
from tests.integration.rpc import check, guardrail

from .helpers import agent

SEED = 12  # the victim's and attacker's ids are drawn from it: a failure reproduces
MODULES = {
    "SupervisorService": supervisor_service_pb2,
    "RecoveryService": recovery_service_pb2,
    "SafeguardService": safeguard_service_pb2,
    "AccessService": access_service_pb2,
}

SELF = "self"  # must be the caller's own agent id (the access rule refuses anything else)
KEY = "key"  # a breaker key: "<own id>" or "<own id>:<dependency>"
OWNED = "owned"  # an object id (approval, permit, reservation, lease): another agent's is refused
AGENT_SCOPE = "agent_scope"  # an isolation key id: with scope AGENT, only the caller's own
RECORD = "record"  # an operator-owned part of the agent record: the agent cannot change it
REPORTED = "reported"  # names another agent as a claim: acted on only when corroborated (test_framing.py)
CONNECTION = "connection"  # scoped to the caller's own stream (an ack answers a command sent to it)
FILTER = "filter"  # narrows a query a SELF field already scopes to the caller
DATA = "data"  # the caller's own data: actions, contexts, amounts, durations, paging, request ids
SHARED = "shared"  # deliberately shared between agents (episodic memory, reversibility rules, budgets)

FIELDS: dict[str, dict[str, str]] = {
    "RegisterAgent": {
        "agent.agent_id": SELF, "agent.group": RECORD, "agent.capabilities": RECORD, "agent.labels": RECORD,
        "agent.create_time": DATA, "agent.update_time": DATA, "request_id": DATA,
    },
    "GetAgent": {"agent_id": SELF},
    "CheckAction": {
        "agent_id": SELF, "action": DATA, "context": DATA, "request_id": DATA, "binary_context": DATA,
        "wait_mode": DATA,
    },
    "CheckActions": {
        "id": CONNECTION, "check.agent_id": SELF, "check.action": DATA, "check.context": DATA,
        "check.request_id": DATA, "check.binary_context": DATA, "check.wait_mode": DATA, "traceparent": DATA,
    },
    "ExplainAction": {"agent_id": SELF, "action": DATA, "context": DATA, "binary_context": DATA},
    "ListDecisions": {
        "agent_id": SELF, "action": FILTER, "outcome": FILTER, "guardrail": FILTER, "start_time": FILTER,
        "end_time": FILTER, "page_size": DATA, "page_token": DATA, "shadow_outcome": FILTER,
        "shadow_guardrail": FILTER,
    },
    "GetApproval": {"approval_id": OWNED},
    "WatchApproval": {"approval_id": OWNED},
    "ListApprovals": {
        "agent_id": SELF, "action": FILTER, "state": FILTER, "reviewer": FILTER, "start_time": FILTER,
        "end_time": FILTER, "page_size": DATA, "page_token": DATA,
    },
    "CancelApproval": {"approval_id": OWNED, "reason": DATA, "request_id": DATA},
    "Attach": {
        "hello.agent_id": SELF, "hello.instance_id": DATA, "hello.client": DATA, "ack.command_id": CONNECTION,
        "ack.outcome": DATA, "ack.detail": DATA,
    },
    "Heartbeat": {"agent_id": SELF},
    "GetAgentRecoveryStatus": {"agent_id": SELF},
    "GetRecoveryHistory": {
        "agent_id": SELF, "group": FILTER, "action_taken": FILTER, "trigger": FILTER, "start_time": FILTER,
        "end_time": FILTER, "page_size": DATA, "page_token": DATA,
    },
    "GetRetryCount": {"agent_id": SELF},
    "ReportFailure": {"from_agent": REPORTED, "to_agent": SELF, "detail": DATA, "request_id": DATA},
    "AcquirePermit": {"key": KEY, "request_id": DATA},
    "ReportOutcome": {"permit_id": OWNED, "outcome": DATA, "result": DATA, "request_id": DATA},
    "ReportOutcomes": {"permit_id": OWNED, "outcome": DATA, "result": DATA, "request_id": DATA},
    "ReleasePermit": {"permit_id": OWNED, "request_id": DATA},
    "GetBreaker": {"key": KEY},
    "Consume": {"agent_id": SELF, "tokens": DATA, "request_id": DATA},
    "CanConsume": {"agent_id": SELF, "tokens": DATA},
    "Remaining": {"agent_id": SELF},
    "GlobalRemaining": {},
    "UsagePercent": {"agent_id": SELF},
    "GlobalUsagePercent": {},
    "GetAllocation": {"agent_id": SELF},
    "Reserve": {"agent_id": SELF, "estimate": DATA, "ttl": DATA, "request_id": DATA},
    "Settle": {"reservation_id": OWNED, "actual": DATA, "request_id": DATA},
    "RecordEpisode": {
        "episode.agent_id": SELF, "episode.episode_id": DATA, "episode.task_id": DATA, "episode.task_type": DATA,
        "episode.outcome": DATA, "episode.metadata": DATA, "episode.episode_time": DATA, "request_id": DATA,
    },
    "QuerySimilar": {"task_type": SHARED, "limit": DATA},
    "QueryByAgent": {"agent_id": SELF, "limit": DATA},
    "QueryByOutcome": {"outcome": SHARED, "limit": DATA},
    "AcquireLease": {
        "isolation_key.scope": DATA, "isolation_key.id": AGENT_SCOPE, "agent_id": SELF, "ttl": DATA,
        "request_id": DATA,
    },
    "RenewLease": {"lease_id": OWNED, "ttl": DATA, "request_id": DATA},
    "ReleaseLease": {"lease_id": OWNED, "request_id": DATA},
    "GetLease": {"lease_id": OWNED},
    "AssessReversibility": {"action": SHARED, "parameters": DATA},
    "ListReversibilityRules": {"page_size": DATA, "page_token": DATA},
    "ValidatePlan": {
        "plan.plan_id": DATA, "plan.steps.step_id": DATA, "plan.steps.action": DATA, "plan.steps.params": DATA,
        "plan.steps.depends_on": DATA, "plan.metadata": DATA, "capabilities": DATA, "agent_id": SELF,
    },
    "WhoAmI": {},
}  # fmt: skip


# DATA values a request needs to get past validation to the ownership check.
VALID: dict[str, dict[str, Any]] = {
    "ReportOutcome": {"outcome": safeguard_pb2.CALL_OUTCOME_SUCCESS},
    "ReportOutcomes": {"outcome": safeguard_pb2.CALL_OUTCOME_SUCCESS},
    "Settle": {"actual": 1},
}


def _method(full: str) -> MethodDescriptor:
    service, name = full.strip("/").split("/")
    short = service.split(".")[-1]
    return MODULES[short].DESCRIPTOR.services_by_name[short].methods_by_name[name]


def _paths(d: Descriptor, prefix: str = "") -> Iterator[str]:
    for f in d.fields:
        nested = f.message_type
        if (
            nested is not None
            and not nested.full_name.startswith("google.protobuf")
            and not nested.GetOptions().map_entry
        ):
            yield from _paths(nested, f"{prefix}{f.name}.")
        else:
            yield prefix + f.name


AGENT_CALLABLE = sorted(m for m, r in RULES.items() if r.scope not in (Scope.OPERATOR, Scope.ADMIN))


def test_every_agent_callable_field_has_a_rule() -> None:
    described = {m.rsplit("/", 1)[1]: set(_paths(_method(m).input_type)) for m in AGENT_CALLABLE}
    assert set(described) == set(FIELDS), "classify every agent-callable RPC in FIELDS (and drop stale ones)"
    for name, paths in described.items():
        assert paths == set(FIELDS[name]), f"{name}: unclassified {paths - set(FIELDS[name])}"
    # The classification agrees with the access rules.
    for m in AGENT_CALLABLE:
        name, rule = m.rsplit("/", 1)[1], RULES[m]
        own = {p for p, c in FIELDS[name].items() if c in (SELF, KEY)}
        assert own == set(rule.fields), f"{name}: FIELDS says {own}, the access rule checks {rule.fields}"


def _set(message: Any, path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    for part in parents:
        message = getattr(message, part)
    target = getattr(message, leaf)
    if isinstance(value, dict):
        target.update(value)
    elif isinstance(value, list):
        target.extend(value)
    else:
        setattr(message, leaf, value)


def _invoke(channel: grpc.Channel, full: str, request: Any) -> grpc.StatusCode:
    m = _method(full)
    out = getattr(MODULES[full.split(".")[-1].split("/")[0]], m.output_type.name)
    stream = {"request_serializer": type(request).SerializeToString, "response_deserializer": out.FromString}
    try:
        if m.client_streaming and m.server_streaming:
            list(channel.stream_stream(full, **stream)(iter([request]), timeout=5))
        elif m.client_streaming:
            channel.stream_unary(full, **stream)(iter([request]), timeout=5)
        elif m.server_streaming:
            next(iter(channel.unary_stream(full, **stream)(request, timeout=5)))
        else:
            channel.unary_unary(full, **stream)(request, timeout=5)
    except grpc.RpcError as err:
        return err.code()
    return grpc.StatusCode.OK


def _cases(*kinds: str) -> list[tuple[str, str, str]]:
    return [(m, p, c) for m in AGENT_CALLABLE for p, c in FIELDS[m.rsplit("/", 1)[1]].items() if c in kinds]


class World:
    """A victim with one object of every kind, and an attacker with its own token."""

    def __init__(self, s: RunningSidecar) -> None:
        rng = random.Random(SEED)
        self.victim, self.attacker = f"victim-{rng.randrange(10**6)}", f"attacker-{rng.randrange(10**6)}"
        s.stub.AddGuardrail(guardrail("h", "hitl", patterns=["deploy"]))
        for who in (self.victim, self.attacker):
            s.stub.RegisterAgent(agent(who))
        self.s, self.v, self.a = s, s.as_agent(self.victim), s.as_agent(self.attacker)
        v = self.v
        self.approval = v.stub.CheckAction(check(self.victim, "deploy", wait_mode=pb.WAIT_MODE_NON_BLOCKING)).approval
        self.permit = v.safeguard.AcquirePermit(spb.AcquirePermitRequest(key=f"{self.victim}:db")).permit_id
        s.safeguard.Allocate(spb.AllocateRequest(agent_id=self.victim, tokens=100))
        reserved = v.safeguard.Reserve(spb.ReserveRequest(agent_id=self.victim, estimate=1))
        self.reservation = reserved.reservation.reservation_id
        key = safeguard_pb2.IsolationKey(scope=safeguard_pb2.ISOLATION_SCOPE_AGENT, id=self.victim)
        self.lease = v.safeguard.AcquireLease(spb.AcquireLeaseRequest(isolation_key=key, agent_id=self.victim)).lease
        self.objects = {
            "approval_id": self.approval.approval_id,
            "permit_id": self.permit,
            "reservation_id": self.reservation,
            "lease_id": self.lease.lease_id,
        }

    def request(self, full: str) -> Any:
        """The RPC's request with every SELF field set to the attacker's own id."""
        name = full.rsplit("/", 1)[1]
        message = getattr(MODULES[full.split(".")[-1].split("/")[0]], _method(full).input_type.name)()
        for path, kind in FIELDS[name].items():
            if kind == SELF:
                _set(message, path, self.attacker)
        for path, value in VALID.get(name, {}).items():
            _set(message, path, value)
        return message

    def victim_untouched(self) -> None:
        v, victim = self.v, self.victim
        approval = v.stub.GetApproval(pb.GetApprovalRequest(approval_id=self.approval.approval_id)).approval
        assert approval.state == self.approval.state
        lease = v.safeguard.GetLease(spb.GetLeaseRequest(lease_id=self.lease.lease_id)).lease
        assert (lease.agent_id, lease.state) == (victim, self.lease.state)
        v.safeguard.ReleasePermit(spb.ReleasePermitRequest(permit_id=self.permit))  # still the victim's
        v.safeguard.Settle(spb.SettleRequest(reservation_id=self.reservation, actual=1))


@pytest.fixture
def world(s: RunningSidecar) -> World:
    return World(s)


@pytest.mark.parametrize(("method", "path", "kind"), _cases(SELF, KEY, AGENT_SCOPE, RECORD))
def test_naming_someone_else_is_refused(world: World, method: str, path: str, kind: str) -> None:
    request = world.request(method)
    if kind == KEY:
        _set(request, path, f"{world.victim}:db")
    elif kind == AGENT_SCOPE:
        _set(request, path.rsplit(".", 1)[0] + ".scope", safeguard_pb2.ISOLATION_SCOPE_AGENT)
        _set(request, path, world.victim)
    elif kind == RECORD:
        _set(request, path, {"group": "ops", "labels": {"owner": world.attacker}, "capabilities": ["deploy"]}[
            path.rsplit(".", 1)[1]
        ])  # fmt: skip
    else:
        _set(request, path, world.victim)
    assert _invoke(world.a.channel, method, request) == grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.parametrize(("method", "path", "kind"), _cases(OWNED))
def test_another_agents_objects_are_out_of_reach(world: World, method: str, path: str, kind: str) -> None:
    request = world.request(method)
    _set(request, path, world.objects[path])
    code = _invoke(world.a.channel, method, request)
    assert code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND), code
    world.victim_untouched()


@pytest.mark.parametrize(("method", "path", "kind"), _cases(REPORTED))
def test_claims_about_another_agent_change_nothing_alone(world: World, method: str, path: str, kind: str) -> None:
    s = world.s
    s.recovery.SetCascadePolicy(
        rpb.SetCascadePolicyRequest(policy=recovery_pb2.CascadePolicy(action=recovery_pb2.CASCADE_ACTION_KILL_ROOT))
    )
    for _ in range(5):
        request = world.request(method)
        _set(request, path, world.victim)
        assert _invoke(world.a.channel, method, request) == grpc.StatusCode.OK
    assert s.recovery.ListKills(rpb.ListKillsRequest(agent_id=world.victim)).kills == []
    world.victim_untouched()
