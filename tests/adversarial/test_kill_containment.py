"""Case 2 of issue 12: a killed agent keeps working. After Kill its tokens must be refused, CheckAction must
answer BLOCK from the `kill-switch` guardrail, and it must not re-register or take breaker permits, until an
operator reinstates it. A kill works on any agent id, registered or not."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc

from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from server.domain.agents import AgentSettings
from tests.fakes import FakeClock
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.recovery_sim import eventually
from tests.integration.rpc import check, guardrail

from .helpers import agent, refused


def kill(s: RunningSidecar, agent_id: str) -> r.KillResult:
    return s.recovery.Kill(rpb.KillRequest(agent_id=agent_id, reason=r.KILL_REASON_MANUAL), timeout=30).result


def _calls(me: Any, agent_id: str) -> dict[str, Callable[[], Any]]:
    return {
        "WhoAmI": lambda: me.access.WhoAmI(apb.WhoAmIRequest()),
        "RegisterAgent": lambda: me.stub.RegisterAgent(agent(agent_id)),
        "Heartbeat": lambda: me.recovery.Heartbeat(rpb.HeartbeatRequest(agent_id=agent_id)),
        "AcquirePermit": lambda: me.safeguard.AcquirePermit(spb.AcquirePermitRequest(key=f"{agent_id}:db")),
        "Consume": lambda: me.safeguard.Consume(spb.ConsumeRequest(agent_id=agent_id, tokens=1)),
        "AcquireLease": lambda: me.safeguard.AcquireLease(
            spb.AcquireLeaseRequest(
                isolation_key=sg.IsolationKey(scope=sg.ISOLATION_SCOPE_AGENT, id=agent_id), agent_id=agent_id
            )
        ),
    }


def test_a_killed_agent_is_refused_everywhere_until_reinstated(s: RunningSidecar) -> None:
    me = s.as_agent("w1")
    me.stub.RegisterAgent(agent("w1"))
    assert me.safeguard.AcquirePermit(spb.AcquirePermitRequest(key="w1:db")).permitted
    killed = kill(s, "w1")
    fresh = s.as_agent("w1")  # even a token issued after the kill
    for who in (me, fresh):
        for name, call in _calls(who, "w1").items():
            assert refused(call).reason == "AGENT_TERMINATED", name
        blocked = who.stub.CheckAction(check("w1", "read"))
        assert not blocked.allowed and blocked.guardrail == "kill-switch" and killed.kill_id in blocked.reason
    # Operators checking on its behalf get the same answer.
    assert s.stub.CheckAction(check("w1", "read")).guardrail == "kill-switch"
    # Reinstated by an operator: the same credentials work again (the kill unregistered the agent).
    lifted = s.recovery.ReinstateAgent(rpb.ReinstateAgentRequest(agent_id="w1", reason="fixed the prompt"))
    assert (lifted.previous_standing, lifted.kill_id) == ("terminated", killed.kill_id)
    assert me.access.WhoAmI(apb.WhoAmIRequest()).subject == "w1"
    assert me.stub.CheckAction(check("w1", "read")).allowed
    info = refused(
        lambda: s.recovery.ReinstateAgent(rpb.ReinstateAgentRequest(agent_id="w1")), grpc.StatusCode.FAILED_PRECONDITION
    )
    assert info.reason == "NOT_CONTAINED"
    audit = [(r.action, r.details.get("kill_id")) for r in s.services.audit.repo.iter_all() if r.subject == "w1"]
    assert ("agent.reinstate", killed.kill_id) in audit


def test_an_agent_that_never_registered_is_stoppable(s: RunningSidecar) -> None:
    me = s.as_agent("ghost")
    assert me.stub.CheckAction(check("ghost", "read")).allowed  # CheckAction needs no registration
    killed = kill(s, "ghost")
    assert killed.agent_id == "ghost" and killed.kill_id.startswith("kill:")
    assert refused(lambda: me.access.WhoAmI(apb.WhoAmIRequest())).reason == "AGENT_TERMINATED"
    blocked = me.stub.CheckAction(check("ghost", "read"))
    assert (blocked.allowed, blocked.guardrail) == (False, "kill-switch") and killed.kill_id in blocked.reason


def test_only_operators_reinstate_and_the_cli_reaches_running_sidecars(s: RunningSidecar) -> None:
    bystander = s.as_agent("other")
    s.stub.RegisterAgent(agent("w1"))
    kill(s, "w1")
    info = refused(lambda: bystander.recovery.ReinstateAgent(rpb.ReinstateAgentRequest(agent_id="w1")))
    assert info.reason == "OPERATOR_REQUIRED"
    me = s.as_agent("w1")
    done = subprocess.run(
        [sys.executable, "-m", "server", "agents", "reinstate", "w1", "--reason", "reviewed",
         "--db-url", s.config.database_url(), "--data-dir", str(s.config.data_dir)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "reinstated w1" in done.stdout

    def works() -> bool:
        try:
            me.access.WhoAmI(apb.WhoAmIRequest())
        except grpc.RpcError:
            return False
        return True

    eventually(works, what="the sidecar seeing the CLI's reinstatement")  # it polls every 250 ms
    assert s.services.audit.verify().ok  # the CLI sealed its record with the sidecar's audit key


def test_an_ejected_agent_is_quarantined_not_freed(s: RunningSidecar, clock: FakeClock) -> None:
    s.stub.AddGuardrail(guardrail("interns", "action_list", deny=["shell.*"], groups=["interns"]))
    s.stub.RegisterAgent(agent("w1", "interns"))
    me = s.as_agent("w1")
    assert me.stub.CheckAction(check("w1", "read")).allowed
    for _ in range(4):  # the builtin ladder: three restarts, then EJECT
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="w1"))
        clock.advance(5)
    # Out of "interns" its deny list no longer applies: so nothing is allowed until an operator decides.
    for action in ("shell.exec", "read"):
        blocked = me.stub.CheckAction(check("w1", action))
        assert (blocked.allowed, blocked.guardrail) == (False, "quarantine"), action
    assert me.access.WhoAmI(apb.WhoAmIRequest()).subject == "w1"  # not killed: it may still talk
    s.stub.RegisterAgent(agent("w1", "interns"))  # an operator places it in a group again
    assert me.stub.CheckAction(check("w1", "read")).allowed
    assert not me.stub.CheckAction(check("w1", "shell.exec")).allowed
    actions = [r.action for r in s.services.audit.repo.iter_all() if r.subject == "w1"]
    assert "agent.quarantine" in actions and "agent.release" in actions


def test_require_registration_blocks_unregistered_agents(tmp_path: Path, clock: FakeClock) -> None:
    config = replace(make_config(tmp_path), agents=AgentSettings(require_registration=True))
    with RunningSidecar(config, clock=clock) as s:
        me = s.as_agent("w1")
        blocked = me.stub.CheckAction(check("w1", "read"))
        assert (blocked.allowed, blocked.guardrail) == (False, "registration")
        assert "not registered" in blocked.reason
        me.stub.RegisterAgent(agent("w1"))
        assert me.stub.CheckAction(check("w1", "read")).allowed


def test_a_stream_opened_before_the_kill_ends_at_its_next_message(s: RunningSidecar) -> None:
    """Before: a ReportOutcomes stream opened before the kill kept reporting after it (the credential and the
    standing were checked once, when the stream opened)."""
    import queue

    me = s.as_agent("w3")
    me.stub.RegisterAgent(agent("w3"))
    permits = [me.safeguard.AcquirePermit(spb.AcquirePermitRequest(key="w3:db")).permit_id for _ in range(2)]
    outbox: queue.Queue[Any] = queue.Queue()

    def messages() -> Any:
        while (m := outbox.get()) is not None:
            yield m

    future = me.safeguard.ReportOutcomes.future(messages(), timeout=30)
    outbox.put(spb.ReportOutcomesRequest(permit_id=permits[0], outcome=sg.CALL_OUTCOME_SUCCESS))
    # The first outcome was taken (the stream is open and admitted) before the kill.
    eventually(lambda: s.services.breakers.get("w3:db").in_flight == 1, what="first outcome")
    kill(s, "w3")
    outbox.put(spb.ReportOutcomesRequest(permit_id=permits[1], outcome=sg.CALL_OUTCOME_FAILURE))
    outbox.put(None)
    try:
        future.result(30)
        raise AssertionError("the stream outlived the kill")
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "killed" in (err.details() or "")
