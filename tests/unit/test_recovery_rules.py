"""The pure recovery rules: the source's ladder and cooldown, the handoff state machine, the cascade window,
kill ids, policy parsing, and the storage codec."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.config import ConfigError, load_config
from server.domain.errors import InvalidArgument
from server.domain.recovery.cascade import (
    AgentFailure,
    CascadeAction,
    CascadePolicy,
    CascadeWindow,
    Evidence,
    agents_involved,
    chain_root,
    corroboration,
    parse_cascade_policy,
)
from server.domain.recovery.codec import from_json, to_json
from server.domain.recovery.health import CheckKind, heartbeat_verdict, new_check
from server.domain.recovery.kill import (
    CompensatingAction,
    HandoffStatus,
    KillReason,
    KillResult,
    SagaStep,
    begin_attempt,
    compensate,
    complete_kill,
    handoff_candidates,
    interrupt_attempt,
    new_kill_id,
    settle_attempt,
    start_kill,
    with_handoff,
)
from server.domain.recovery.ladder import (
    RecoveryAction,
    RecoveryPolicy,
    RecoveryResult,
    RecoveryState,
    RecoveryTrigger,
    new_policy,
    parse_policies,
    plan_attempt,
    state_after,
)
from server.services.recovery.feature import parse_recovery_settings

T0 = datetime(2026, 1, 1, tzinfo=UTC)
A = RecoveryAction


def ladder(policy: RecoveryPolicy, n: int) -> list[RecoveryAction | None]:
    return [plan_attempt(policy, retries, None, T0).action for retries in range(n)]


def test_the_seed_defaults_eject_without_escalating() -> None:
    p = RecoveryPolicy()
    assert (p.max_retries, p.escalate_after, p.cooldown, p.default_action) == (3, 3, 5.0, A.RESTART)
    assert ladder(p, 5) == [A.RESTART, A.RESTART, A.RESTART, A.EJECT, A.EJECT]


def test_escalate_after_below_max_retries_and_eject_winning_ties() -> None:
    assert ladder(RecoveryPolicy(escalate_after=1, default_action=A.REPLACE), 4) == [
        A.REPLACE,
        A.ESCALATE,
        A.ESCALATE,
        A.EJECT,
    ]
    assert ladder(RecoveryPolicy(max_retries=1, escalate_after=1), 2) == [A.RESTART, A.EJECT]
    assert ladder(RecoveryPolicy(max_retries=0, escalate_after=0), 1) == [A.EJECT]


def test_cooldown_is_measured_from_the_previous_attempt() -> None:
    p = RecoveryPolicy(cooldown=5)
    refused = plan_attempt(p, 2, T0, T0 + timedelta(seconds=4))
    assert refused.action is None and refused.cooldown_left == pytest.approx(1.0) and refused.retries_before == 2
    assert plan_attempt(p, 2, T0, T0 + timedelta(seconds=5)).action is A.RESTART
    assert plan_attempt(RecoveryPolicy(cooldown=0), 0, T0, T0).action is A.RESTART


def test_state_after_counts_up_and_eject_removes_the_count() -> None:
    def result(action: RecoveryAction, count: int) -> RecoveryResult:
        return RecoveryResult("r", "a", "g", action, True, "", "", RecoveryTrigger.MANUAL, count, attempt_time=T0)

    s = state_after(RecoveryState(), result(A.RESTART, 1))
    assert (s.retry_count, s.last_attempt_time, s.escalated) == (1, T0, False)
    s = state_after(s, result(A.ESCALATE, 2))
    assert s.escalated
    for removing in (A.EJECT, A.REPLACE):
        gone = state_after(s, result(removing, 3))
        assert (gone.retry_count, gone.last_attempt_time) == (0, T0)  # the cooldown still applies


def test_policy_validation_and_file_parsing() -> None:
    with pytest.raises(InvalidArgument) as err:
        new_policy("g", max_retries=-1)
    assert err.value.field == "policy.max_retries"
    policies = parse_policies(
        [{"group": "pay", "max_retries": 4, "cooldown": "10s", "default_action": "restart_clean"}, {"group": ""}]
    )
    assert [(p.group, p.max_retries, p.cooldown, p.default_action, p.source) for p in policies] == [
        ("pay", 4, 10.0, A.RESTART_CLEAN, "policy"),
        ("default", 3, 5.0, A.RESTART, "policy"),
    ]
    for bad, field in (
        ([{"group": "g", "bogus": 1}], "recovery.policies[0]"),
        ([{"group": "g", "default_action": "reboot"}], "recovery.policies[0].default_action"),
        ([{"group": "g"}, {"group": "g"}], "recovery.policies[1]"),
        ([{"group": "g", "max_retries": "3"}], "recovery.policies[0].max_retries"),
    ):
        with pytest.raises(InvalidArgument) as err:
            parse_policies(bad)
        assert err.value.field == field


def test_recovery_settings_and_cascade_policy_parsing() -> None:
    settings = parse_recovery_settings(
        {"cascade": {"window": "30s", "threshold": 2, "action": "kill_root"}, "callback_timeout": "2s"}
    )
    assert settings.cascade is not None
    assert (settings.cascade.window, settings.cascade.threshold, settings.cascade.action) == (
        30.0,
        2,
        CascadeAction.KILL_ROOT,
    )
    assert (settings.callback_timeout, settings.handoff_timeout) == (2.0, 5.0)
    with pytest.raises(InvalidArgument) as err:
        parse_recovery_settings({"cascade": {"threshold": 0}})
    assert err.value.field == "recovery.cascade.threshold"
    with pytest.raises(InvalidArgument) as err:
        parse_recovery_settings({"nope": 1})
    assert err.value.field == "recovery.nope"
    assert parse_cascade_policy(None) is None


def test_checks_and_heartbeat_verdicts() -> None:
    assert new_check(CheckKind.PING).timeout == 5.0
    assert new_check(CheckKind.HEARTBEAT).heartbeat_interval == 15.0
    with pytest.raises(InvalidArgument):
        new_check(CheckKind.GRPC, target="no-port")
    assert heartbeat_verdict(30, last_seen=100, now=129.9) == (True, "")
    assert heartbeat_verdict(30, last_seen=100, now=130) == (False, "silent for 30s")


# ---- the kill switch -------------------------------------------------------------------------------


def test_kill_ids_are_kill_colon_eight_hex() -> None:
    assert new_kill_id("0A1b2C3d") == "kill:0a1b2c3d"
    for bad in ("123", "0a1b2c3d4", "zzzzzzzz"):
        with pytest.raises(ValueError):
            new_kill_id(bad)


def test_steps_need_saga_and_step_ids_once_each() -> None:
    with pytest.raises(InvalidArgument) as err:
        start_kill("kill:00000000", "a", "", KillReason.MANUAL, [SagaStep("", "s")], T0)
    assert err.value.field == "in_flight_steps[0].saga_id"
    with pytest.raises(InvalidArgument) as err:
        start_kill("kill:00000000", "a", "", KillReason.MANUAL, [SagaStep("o", "s"), SagaStep("o", "s")], T0)
    assert err.value.field == "in_flight_steps[1]"


def test_the_handoff_state_machine() -> None:
    k = start_kill(
        "kill:00000000", "dead", "sess", KillReason.RING_BREACH, [SagaStep("o", "s1"), SagaStep("o", "s2")], T0
    )
    assert [h.status for h in k.handoffs] == [HandoffStatus.PENDING, HandoffStatus.PENDING]
    h = begin_attempt(k.handoffs[0], "sub-1", "c1", T0)
    with pytest.raises(ValueError):
        begin_attempt(h, "sub-2", "c2", T0)  # one attempt at a time
    with pytest.raises(ValueError):
        compensate(h, [], T0)  # not while an attempt is in flight
    h = settle_attempt(h, False, "ack timeout", T0)
    assert h.status is HandoffStatus.PENDING and h.attempts[0].status is HandoffStatus.FAILED
    h = settle_attempt(begin_attempt(h, "sub-2", "c2", T0), True, "ok", T0)
    assert (h.status, h.to_agent) == (HandoffStatus.HANDED_OFF, "sub-2")
    with pytest.raises(ValueError):
        begin_attempt(h, "sub-3", "c3", T0)
    k = with_handoff(k, 0, h)
    undo = (CompensatingAction(description="undo", action="rollback"),)
    s2 = compensate(interrupt_attempt(begin_attempt(k.handoffs[1], "sub-1", "c4", T0), T0), undo, T0)
    assert s2.status is HandoffStatus.COMPENSATED and s2.attempts[0].detail == "interrupted by a restart"
    k = complete_kill(with_handoff(k, 1, s2), False, "not connected", 1, 2, T0)
    assert (k.handoff_success_count, k.compensation_triggered, k.complete) == (1, True, True)
    again = from_json(KillResult, to_json(k))
    assert again == k


def test_substitute_candidates() -> None:
    eligible = {"b", "c", "dead"}.__contains__
    assert handoff_candidates(["dead", "a", "b", "b", "c"], "dead", eligible) == ["b", "c"]


# ---- cascades -------------------------------------------------------------------------------------


def f(src: str, dst: str) -> AgentFailure:
    return AgentFailure(src, dst, "", "report", T0)


def test_cascade_window_counts_related_failures_inside_the_window() -> None:
    w, p = CascadeWindow(), CascadePolicy(window=60, threshold=3)
    assert w.record(f("a", "b"), 0, p) is None
    assert w.record(f("x", "y"), 1, p) is None
    assert w.record(f("b", "c"), 59, p) is None
    chain = w.record(f("c", "d"), 59.5, p)
    assert chain is not None and [(x.from_agent, x.to_agent) for x in chain] == [("a", "b"), ("b", "c"), ("c", "d")]
    assert len(w) == 1  # only x -> y remains
    assert w.record(f("y", "z"), 61, p) is None  # x -> y (t=1) is 60 s old: out of the window


def test_cascade_root_and_agents() -> None:
    chain = [f("b", "c"), f("a", "b"), f("c", "d")]
    assert chain_root(chain) == "a"
    assert agents_involved(chain) == ("b", "c", "a", "d")
    assert chain_root([f("p", "q"), f("q", "p")]) == ""
    # An agent's own breaker opening (a failure from it to itself) leaves it the root of what it failed.
    assert chain_root([f("x", "x"), f("x", "me"), f("x", "me")]) == "x"


def voice(src: str, dst: str, reporter: str) -> AgentFailure:
    return AgentFailure(src, dst, "", "report", T0, reporter)


def test_corroboration_needs_distinct_other_voices_or_an_unforgeable_fact() -> None:
    one = [voice("x", "me", "agent:me")] * 3
    assert corroboration("x", one, 3) is None  # one voice, three times
    own = [voice("x", "a", "agent:a"), voice("x", "b", "agent:b"), voice("x", "x", "agent:x")]
    assert corroboration("x", own, 3) is None  # the accused's own voice does not count against it
    three = [voice("x", w, f"agent:{w}") for w in ("a", "b", "c")]
    assert corroboration("x", three, 3) is Evidence.REPORTERS
    assert corroboration("x", [voice("x", "me", "operator:ada")], 3) is Evidence.OPERATOR_REPORT
    assert corroboration("x", one, 3, (Evidence.BREAKER_OPENED,)) is Evidence.BREAKER_OPENED
    assert corroboration("x", one, 3, (Evidence.HEALTH_CHECK_FAILED,)) is Evidence.HEALTH_CHECK_FAILED


def test_config_errors_name_the_file_the_key_and_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "outrider.yaml"
    path.write_text("recovery:\n  policies:\n    - {group: g, default_action: reboot}\n")
    with pytest.raises(ConfigError) as err:
        load_config(str(path), env={})
    assert str(err.value).startswith(f"{path}: recovery.policies[0].default_action: 'reboot' is not a recovery action")
    path.write_text("recovery:\n  monitor_interval: 10s\n  policies: [{group: g, escalate_after: 1}]\n")
    cfg = load_config(str(path), env={})
    assert cfg.recovery.monitor_interval == 10.0 and cfg.recovery.policies[0].escalate_after == 1
