"""Case 1 of issue 12: agent records are operator-owned. Re-registering must not move an agent out of the
group whose deny list holds it, nor rewrite the `owner` label that `prevent_self_review` reads, nor grant it
capabilities; an ejected agent must not register itself back into its group."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import grpc

from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.agents import AgentSettings, SelfRegistration
from tests.fakes import FakeClock
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, guardrail

from .helpers import agent, refused


def _record(s: RunningSidecar, agent_id: str) -> tuple[str, dict[str, str], list[str]]:
    a = s.stub.GetAgent(pb.GetAgentRequest(agent_id=agent_id)).agent
    return a.group, dict(a.labels), list(a.capabilities)


def test_an_agent_cannot_move_itself_out_of_a_group_deny_list(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("interns", "action_list", deny=["shell.*"], groups=["interns"]))
    s.stub.RegisterAgent(agent("mallory", "interns", ("read",), owner="alice"))
    me = s.as_agent("mallory")
    assert not me.stub.CheckAction(check("mallory", "shell.exec")).allowed
    for field, request in (
        ("agent.group", agent("mallory", "ops")),
        ("agent.labels", agent("mallory", owner="mallory")),
        ("agent.labels", agent("mallory", "interns", ("read",), owner="alice", tier="gold")),
        ("agent.capabilities", agent("mallory", capabilities=("read", "deploy"))),
    ):
        info = refused(lambda request=request: me.stub.RegisterAgent(request))
        assert (info.reason, info.metadata["field"]) == ("OPERATOR_OWNED_FIELD", field)
    assert not me.stub.CheckAction(check("mallory", "shell.exec")).allowed
    assert _record(s, "mallory") == ("interns", {"owner": "alice"}, ["read"])
    # Re-registering with nothing to change (or the very same values) is an idempotent no-op.
    for request in (agent("mallory"), agent("mallory", "interns", ("read",), owner="alice")):
        again = me.stub.RegisterAgent(request)
        assert not again.created and again.agent.group == "interns"
    # Operators own the record: they may change it.
    s.stub.RegisterAgent(agent("mallory", "ops", ("read",), owner="alice"))
    assert me.stub.CheckAction(check("mallory", "shell.exec")).allowed


def test_self_registration_creates_only_a_bare_record_in_the_default_group(s: RunningSidecar) -> None:
    me = s.as_agent("newbie")
    for field, request in (
        ("agent.group", agent("newbie", "ops")),
        ("agent.labels", agent("newbie", owner="newbie")),
        ("agent.capabilities", agent("newbie", capabilities=("deploy",))),
    ):
        info = refused(lambda request=request: me.stub.RegisterAgent(request))
        assert (info.reason, info.metadata["field"]) == ("OPERATOR_OWNED_FIELD", field)
    created = me.stub.RegisterAgent(agent("newbie", "default"))
    assert created.created and _record(s, "newbie") == ("default", {}, [])


def test_first_time_means_once_and_deny_means_never(tmp_path: Path, clock: FakeClock) -> None:
    with RunningSidecar(make_config(tmp_path / "a"), clock=clock) as s:
        me = s.as_agent("w1")
        assert me.stub.RegisterAgent(agent("w1")).created
        s.stub.DeregisterAgent(pb.DeregisterAgentRequest(agent_id="w1"))
        assert refused(lambda: me.stub.RegisterAgent(agent("w1"))).reason == "SELF_REGISTRATION_DISABLED"
        assert s.stub.RegisterAgent(agent("w1")).created  # an operator may
    settings = AgentSettings(self_registration=SelfRegistration.DENY)
    with RunningSidecar(replace(make_config(tmp_path / "b"), agents=settings), clock=clock) as s:
        assert refused(lambda: s.as_agent("w1").stub.RegisterAgent(agent("w1"))).reason == (
            "SELF_REGISTRATION_DISABLED"
        )
    settings = AgentSettings(self_registration=SelfRegistration.ALLOW, default_group="untrusted")
    with RunningSidecar(replace(make_config(tmp_path / "c"), agents=settings), clock=clock) as s:
        me = s.as_agent("w1")
        assert me.stub.RegisterAgent(agent("w1")).agent.group == "untrusted"
        s.stub.DeregisterAgent(pb.DeregisterAgentRequest(agent_id="w1"))
        assert me.stub.RegisterAgent(agent("w1")).created
        assert refused(lambda: me.stub.RegisterAgent(agent("w1", "default"))).metadata["field"] == "agent.group"


def test_an_ejected_agent_cannot_register_itself_back(s: RunningSidecar, clock: FakeClock) -> None:
    s.stub.RegisterAgent(agent("w1", "payments"))
    for _ in range(4):  # the builtin ladder: three restarts, then EJECT
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="w1"))
        clock.advance(5)
    assert _record(s, "w1")[0] == "ejected"
    me = s.as_agent("w1")
    info = refused(lambda: me.stub.RegisterAgent(agent("w1", "payments")))
    assert (info.reason, info.metadata["field"]) == ("OPERATOR_OWNED_FIELD", "agent.group")
    assert _record(s, "w1")[0] == "ejected"


def test_agent_ids_may_not_contain_the_key_separator(s: RunningSidecar) -> None:
    info = refused(lambda: s.stub.RegisterAgent(agent("evil:db")), grpc.StatusCode.INVALID_ARGUMENT)
    assert info.metadata["field"] == "agent.agent_id"


def test_registrations_and_record_changes_are_audited(s: RunningSidecar) -> None:
    s.as_agent("w1").stub.RegisterAgent(agent("w1"))
    s.stub.RegisterAgent(agent("w1", "ops", owner="alice"))
    s.stub.RegisterAgent(agent("w1", "ops", owner="alice"))  # no change, no record
    s.stub.DeregisterAgent(pb.DeregisterAgentRequest(agent_id="w1"))
    records = [(r.actor, r.action) for r in s.services.audit.repo.iter_all() if r.subject == "w1"]
    assert records == [
        ("agent:w1", "agent.register"),
        ("operator:test-operator", "agent.update"),
        ("operator:test-operator", "agent.deregister"),
    ]


def test_the_production_example_uses_the_safe_settings() -> None:
    from server.config import load_config

    root = Path(__file__).resolve().parents[2]
    production = load_config(str(root / "outrider.production.yaml"), env={}).agents
    assert production.require_registration and production.self_registration is SelfRegistration.DENY
    demo = load_config(str(root / "outrider.example.yaml"), env={}).agents
    assert demo == AgentSettings()  # `make run` keeps the permissive defaults, stated in the file
