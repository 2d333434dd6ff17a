"""The recovery ladder of the SupervisorAgent library over real gRPC: cooldown, EJECT / ESCALATE / default action,
EJECT and
REPLACE effects, RESTART over the control channel, policies, retry counts, history (durable)."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as spb
from server.config import load_config
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .recovery_sim import SimAgent, eventually, ping_check, register, seconds
from .rpc import error_info

EJECT, REPLACE, RESTART = r.RECOVERY_ACTION_EJECT, r.RECOVERY_ACTION_REPLACE, r.RECOVERY_ACTION_RESTART
RESTART_CLEAN, ESCALATE = r.RECOVERY_ACTION_RESTART_CLEAN, r.RECOVERY_ACTION_ESCALATE


def trigger(s: RunningSidecar, agent_id: str, reason: str = "manual", **kw: object) -> r.RecoveryResult:
    return s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id=agent_id, reason=reason, **kw)).result


def actions(s: RunningSidecar, clock: FakeClock, agent_id: str, n: int) -> list[int]:
    out = []
    for _ in range(n):
        out.append(trigger(s, agent_id).action_taken)
        clock.advance(5)
    return out


def test_defaults_restart_three_times_then_eject_without_escalating(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1", "payments")
    policy = s.recovery.GetRecoveryPolicy(rpb.GetRecoveryPolicyRequest(group="payments")).policy
    assert (policy.max_retries, policy.escalate_after, policy.cooldown.seconds, policy.default_action) == (
        3,
        3,
        5,
        RESTART,
    )
    assert policy.source == "builtin"
    assert actions(s, clock, "w1", 4) == [RESTART, RESTART, RESTART, EJECT]
    history = s.recovery.GetRecoveryHistory(rpb.GetRecoveryHistoryRequest(agent_id="w1")).results
    assert [h.action_taken for h in history] == [EJECT, RESTART, RESTART, RESTART]  # newest first
    assert [h.retry_count for h in history] == [4, 3, 2, 1]
    assert history[1].detail == "not connected: restart not sent" and history[1].success
    assert history[0].detail == "ejected from group payments"
    kinds = [e.type for e in s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest()).events]
    assert r.RECOVERY_EVENT_TYPE_ESCALATION not in kinds
    assert kinds.count(r.RECOVERY_EVENT_TYPE_RECOVERY_ATTEMPT) == 4


def test_escalate_after_below_max_retries_escalates_first(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1", "search")
    s.recovery.SetRecoveryPolicy(
        rpb.SetRecoveryPolicyRequest(
            policy=r.RecoveryPolicy(group="search", max_retries=3, escalate_after=1, default_action=RESTART_CLEAN)
        )
    )
    assert actions(s, clock, "w1", 4) == [RESTART_CLEAN, ESCALATE, ESCALATE, EJECT]
    events = s.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[r.RECOVERY_EVENT_TYPE_ESCALATION])
    ).events
    assert [(e.escalation.agent_id, e.escalation.failed_attempts, e.escalation.group) for e in reversed(events)] == [
        ("w1", 1, "search"),
        ("w1", 2, "search"),
    ]


def test_cooldown_refuses_without_changing_anything(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1")
    first = trigger(s, "w1")
    assert (first.action_taken, first.retry_count, first.in_cooldown) == (RESTART, 1, False)
    clock.advance(3.0)
    refused = trigger(s, "w1", reason="again")
    assert (refused.success, refused.in_cooldown, refused.action_taken, refused.recovery_id) == (False, True, 0, "")
    assert refused.detail == "within cooldown (2s left)" and refused.retry_count == 1
    assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id="w1")).retry_count == 1
    assert len(s.recovery.GetRecoveryHistory(rpb.GetRecoveryHistoryRequest(agent_id="w1")).results) == 1
    clock.advance(2.0)  # the cooldown has passed exactly
    assert trigger(s, "w1").retry_count == 2


def test_zero_cooldown_and_zero_thresholds(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1", "g")
    s.recovery.SetRecoveryPolicy(
        rpb.SetRecoveryPolicyRequest(policy=r.RecoveryPolicy(group="g", max_retries=0, cooldown=seconds(0)))
    )
    assert trigger(s, "w1").action_taken == EJECT  # 0 >= max_retries at once


def test_eject_removes_group_membership_health_check_and_retry_count(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1", "payments")
    s.recovery.AddHealthCheck(ping_check("w1"))
    s.recovery.SetRecoveryPolicy(
        rpb.SetRecoveryPolicyRequest(policy=r.RecoveryPolicy(group="payments", max_retries=1, escalate_after=5))
    )
    assert actions(s, clock, "w1", 2) == [RESTART, EJECT]
    agent = s.stub.GetAgent(spb.GetAgentRequest(agent_id="w1")).agent
    assert agent.group == "ejected"
    assert [a.agent_id for a in s.stub.ListAgents(spb.ListAgentsRequest(group="payments")).agents] == []
    status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="w1")).status
    assert not status.HasField("health_check") and status.retry_count == 0
    assert status.last_recovery.action_taken == EJECT and not status.escalated
    assert s.recovery.RunHealthChecks(rpb.RunHealthChecksRequest()).statuses == []  # skipped
    # RegisterAgent takes it back into its group.
    register(s, "w1", "payments")
    assert s.stub.GetAgent(spb.GetAgentRequest(agent_id="w1")).agent.group == "payments"


def test_replace_promotes_the_first_healthy_substitute(s: RunningSidecar, clock: FakeClock) -> None:
    for agent_id, group in (("w1", "payments"), ("sick", "spares"), ("spare", "spares"), ("later", "spares")):
        register(s, agent_id, group)
    s.recovery.SetRecoveryPolicy(
        rpb.SetRecoveryPolicyRequest(policy=r.RecoveryPolicy(group="payments", default_action=REPLACE))
    )
    for sub in ("sick", "spare", "later"):
        s.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(group="payments", agent_id=sub))
    s.recovery.AddHealthCheck(ping_check("sick", timeout=1))  # not connected: unhealthy
    with SimAgent(s.as_agent("spare").recovery, "spare") as spare:
        spare.wait_accepted()
        s.recovery.AddHealthCheck(ping_check("spare", timeout=1))
        result = trigger(s, "w1", reason="drift")
    assert (result.action_taken, result.replacement_agent_id, result.success) == (REPLACE, "spare", True)
    assert result.detail == "ejected from group payments; replaced by spare"
    groups = {a.agent_id: a.group for a in s.stub.ListAgents(spb.ListAgentsRequest()).agents}
    assert groups == {"w1": "ejected", "sick": "spares", "spare": "payments", "later": "spares"}
    subs = s.recovery.ListSubstitutes(rpb.ListSubstitutesRequest(group="payments")).substitutes
    assert [(x.agent_id, x.position) for x in subs] == [("sick", 0), ("later", 1)]
    # The next REPLACE in the group finds no healthy substitute but "later" (no check, never unhealthy).
    clock.advance(5)
    assert trigger(s, "spare").replacement_agent_id == "later"


def test_restart_is_sent_over_the_control_channel_and_acked(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1")
    with SimAgent(s.as_agent("w1").recovery, "w1") as agent:
        agent.wait_accepted()
        result = trigger(s, "w1", reason="stuck")
        command = agent.wait_command(r.CONTROL_COMMAND_TYPE_RESTART)
        assert result.command_id == command.command_id and result.success
        assert command.reason == "stuck" and result.detail == f"restart sent (command {command.command_id})"
        hub = s.services.recovery.hub
        eventually(lambda: hub.result_of(command.command_id) is not None, what="the ack")
        ack = hub.result_of(command.command_id)
        assert ack.succeeded and ack.detail == "ok"


def test_retry_count_survives_health_and_resets_only_on_request(s: RunningSidecar, clock: FakeClock) -> None:
    register(s, "w1")
    actions(s, clock, "w1", 2)
    assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id="w1")).retry_count == 2
    reset = s.recovery.ResetRetryCounter(rpb.ResetRetryCounterRequest(agent_id="w1"))
    assert reset.previous_retry_count == 2
    assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id="w1")).retry_count == 0
    assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id="nobody")).retry_count == 0
    audit = [rec.action for rec in s.services.audit.repo.iter_all()]
    assert audit.count("recovery.attempt") == 2 and "recovery.retry_count.reset" in audit


def test_policy_validation_and_listing(s: RunningSidecar) -> None:
    for bad, field in (
        (r.RecoveryPolicy(group="g", max_retries=-1), "policy.max_retries"),
        (r.RecoveryPolicy(group="g", escalate_after=-2), "policy.escalate_after"),
        (r.RecoveryPolicy(group="g", default_action=99), "policy.default_action"),  # type: ignore[arg-type]
    ):
        with pytest.raises(grpc.RpcError) as err:
            s.recovery.SetRecoveryPolicy(rpb.SetRecoveryPolicyRequest(policy=bad))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(err.value).metadata["field"] == field
    stored = s.recovery.SetRecoveryPolicy(
        rpb.SetRecoveryPolicyRequest(policy=r.RecoveryPolicy(group="b", escalate_after=2))
    ).policy
    assert (stored.max_retries, stored.escalate_after, stored.cooldown.seconds, stored.source) == (3, 2, 5, "runtime")
    s.recovery.SetRecoveryPolicy(rpb.SetRecoveryPolicyRequest(policy=r.RecoveryPolicy(group="a")))
    page = s.recovery.ListRecoveryPolicies(rpb.ListRecoveryPoliciesRequest(page_size=1))
    rest = s.recovery.ListRecoveryPolicies(rpb.ListRecoveryPoliciesRequest(page_token=page.next_page_token))
    assert [p.group for p in page.policies] + [p.group for p in rest.policies] == ["a", "b"]
    with pytest.raises(grpc.RpcError) as err:
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="ghost"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as err:
        s.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest())
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_trigger_retry_with_the_same_request_id_returns_the_first_result(s: RunningSidecar) -> None:
    register(s, "w1")
    first = trigger(s, "w1", request_id="req-1")
    again = trigger(s, "w1", request_id="req-1")
    assert again.recovery_id == first.recovery_id and not again.in_cooldown


def test_policy_file_sets_group_policies(tmp_path: Path) -> None:
    cfg = tmp_path / "outrider.yaml"
    cfg.write_text(
        "recovery:\n  policies:\n"
        "    - {group: payments, max_retries: 4, escalate_after: 2, cooldown: 10s, default_action: replace}\n"
    )
    recovery = load_config(str(cfg), env={}).recovery
    with RunningSidecar(make_config(tmp_path, config_path=cfg, recovery=recovery)) as s:
        p = s.recovery.GetRecoveryPolicy(rpb.GetRecoveryPolicyRequest(group="payments")).policy
        assert (p.max_retries, p.escalate_after, p.cooldown.seconds, p.default_action, p.source) == (
            4,
            2,
            10,
            REPLACE,
            "policy",
        )


def test_history_retry_counts_and_events_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config, clock=clock) as s:
        register(s, "w1", "g")
        s.recovery.SetRecoveryPolicy(rpb.SetRecoveryPolicyRequest(policy=r.RecoveryPolicy(group="g", escalate_after=1)))
        actions(s, clock, "w1", 2)
        latest = s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest()).latest_sequence
    with RunningSidecar(config, clock=clock) as s:
        history = s.recovery.GetRecoveryHistory(rpb.GetRecoveryHistoryRequest(agent_id="w1")).results
        assert [h.action_taken for h in history] == [ESCALATE, RESTART]
        assert s.recovery.GetRetryCount(rpb.GetRetryCountRequest(agent_id="w1")).retry_count == 2
        status = s.recovery.GetAgentRecoveryStatus(rpb.GetAgentRecoveryStatusRequest(agent_id="w1")).status
        assert status.escalated and status.last_recovery.action_taken == ESCALATE
        assert s.recovery.GetRecoveryPolicy(rpb.GetRecoveryPolicyRequest(group="g")).policy.escalate_after == 1
        events = s.recovery.ListRecoveryEvents(rpb.ListRecoveryEventsRequest()).events
        assert events[0].sequence == latest and len(events) == 3  # two attempts and one escalation
        # The cooldown runs on across the restart, and the ladder goes on where it was.
        assert trigger(s, "w1").action_taken == ESCALATE
        only = s.recovery.GetRecoveryHistory(
            rpb.GetRecoveryHistoryRequest(agent_id="w1", action_taken=RESTART, page_size=1)
        )
        assert len(only.results) == 1 and only.next_page_token == ""
