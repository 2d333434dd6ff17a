"""Shadow mode over real gRPC: a guardrail in `mode: shadow` (or the policy's `chain.mode: shadow`) is evaluated and
recorded, never enforced. The agent gets the enforced answer; the decision log records "would have blocked by X";
ListDecisions filters on it; ExplainAction reports it; a shadow hitl asks nobody, a shadow breaker takes no permit;
promoting a guardrail to enforce is an audited policy reload. On SQLite and PostgreSQL."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import common_pb2
from outrider.v1 import safeguard_service_pb2 as sg
from outrider.v1 import supervisor_service_pb2 as pb
from server.telemetry.settings import TelemetrySettings

from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail, struct
from .test_metrics import get, parse, value

BLOCK = common_pb2.SEVERITY_BLOCK


def listed(s: RunningSidecar, **flt: Any) -> list[Any]:
    s.services.decisions.flush()
    return list(s.stub.ListDecisions(pb.ListDecisionsRequest(**flt)).decisions)


def test_a_shadow_block_is_allowed_recorded_and_filterable(sidecar_any_db: RunningSidecar) -> None:
    s = sidecar_any_db
    s.stub.AddGuardrail(guardrail("new-deny", "action_list", deny=["shell.*"], mode="shadow"))
    s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    agent = s.as_agent("agent-1").stub

    r = agent.CheckAction(check(action="shell.exec", context={"cost": 1}))
    # The enforced chain answers: the shadow guardrail neither blocks nor warns.
    assert (r.allowed, r.guardrail, list(r.warnings)) == (True, "cap", [])
    assert agent.CheckAction(check(action="read", context={"cost": 1})).allowed
    # An enforcing block before the shadow guardrail would have run: no shadow outcome (it would not have run).
    s.stub.AddGuardrail(guardrail("late-shadow", "cost_cap", max=1, mode="shadow"))
    blocked = agent.CheckAction(check(action="read", context={"cost": 500}))
    assert not blocked.allowed and blocked.guardrail == "cap"

    everything = listed(s)
    assert len(everything) == 3
    by_id = {d.decision_id: d for d in everything}
    shadowed = by_id[r.decision_id]
    assert shadowed.allowed and shadowed.guardrail == "cap"
    assert shadowed.HasField("shadow")
    assert (shadowed.shadow.guardrail, shadowed.shadow.reason, shadowed.shadow.severity) == (
        "new-deny",
        "Action 'shell.exec' is denied by new-deny",
        BLOCK,
    )
    assert shadowed.shadow.summary == "would have blocked by new-deny: Action 'shell.exec' is denied by new-deny"
    assert not shadowed.shadow.needs_approval
    # cap blocked before late-shadow's turn: enforced, late-shadow would not have run, so nothing differs.
    assert not by_id[blocked.decision_id].HasField("shadow")

    assert [d.decision_id for d in listed(s, shadow_outcome="blocked")] == [r.decision_id]
    assert [d.decision_id for d in listed(s, shadow_guardrail="new-deny")] == [r.decision_id]
    assert listed(s, shadow_guardrail="cap") == []
    assert len(listed(s, shadow_outcome="none")) == 2
    assert listed(s, shadow_outcome="would_ask") == []
    with pytest.raises(grpc.RpcError) as err:
        s.stub.ListDecisions(pb.ListDecisionsRequest(shadow_outcome="maybe"))
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).metadata["field"] == "shadow_outcome"


def test_a_later_shadow_block_is_recorded_when_an_enforced_guardrail_blocks_after_it(
    sidecar: RunningSidecar,
) -> None:
    sidecar.stub.AddGuardrail(guardrail("candidate", "cost_cap", max=10, mode="shadow"))
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    r = sidecar.stub.CheckAction(check(context={"cost": 500}))
    assert (r.allowed, r.guardrail, r.reason) == (False, "cap", "Cost 500 is over the cap")
    (d,) = listed(sidecar)
    # Enforced, the candidate would have decided first, with its own reason.
    assert (d.shadow.guardrail, d.shadow.reason) == ("candidate", "Cost 500 is over the cap")


def test_a_shadow_hitl_asks_nobody_and_records_that_it_would_have(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("review", "hitl", patterns=["deploy"], mode="shadow"))
    r = sidecar.stub.CheckAction(check(action="deploy-prod"))  # blocking mode: it would wait if anyone were asked
    assert r.allowed and not r.HasField("approval")
    assert list(sidecar.stub.ListApprovals(pb.ListApprovalsRequest()).approvals) == []
    (d,) = listed(sidecar, shadow_outcome="would_ask")
    assert d.shadow.needs_approval and d.shadow.guardrail == "review"
    assert d.shadow.summary == "would have asked a human (review)"


def test_a_shadow_breaker_takes_no_permit_and_creates_no_breaker(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("circuit", "breaker", mode="shadow"))
    r = sidecar.stub.CheckAction(check())
    assert r.allowed and r.permit_id == ""
    with pytest.raises(grpc.RpcError) as err:
        sidecar.safeguard.GetBreaker(sg.GetBreakerRequest(key="agent-1"))
    assert err.value.code() is grpc.StatusCode.NOT_FOUND
    sidecar.safeguard.ForceOpen(sg.ForceOpenRequest(key="agent-1", reason="test"))
    before = sidecar.safeguard.GetBreaker(sg.GetBreakerRequest(key="agent-1")).breaker
    r = sidecar.stub.CheckAction(check())
    assert r.allowed
    assert sidecar.safeguard.GetBreaker(sg.GetBreakerRequest(key="agent-1")).breaker == before
    newest = listed(sidecar)[0]
    assert newest.shadow.guardrail == "circuit" and newest.shadow.reason.startswith("Circuit 'agent-1' is OPEN")


def test_a_shadow_rate_limit_counts_in_its_own_window_only(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("candidate-pace", "rate_limit", max=2, window="1h", mode="shadow"))
    sidecar.stub.AddGuardrail(guardrail("pace", "rate_limit", max=3, window="1h"))
    answers = [sidecar.stub.CheckAction(check()) for _ in range(4)]
    assert [a.allowed for a in answers] == [True, True, True, False]  # the enforced limit alone decides
    assert answers[3].guardrail == "pace"
    shadows = [d.shadow.guardrail for d in reversed(listed(sidecar))]
    assert shadows == ["", "", "candidate-pace", "candidate-pace"]


def test_explain_reports_the_shadow_verdicts(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("candidate", "cost_cap", max=10, mode="shadow"))
    sidecar.stub.AddGuardrail(guardrail("second", "cost_cap", max=20, mode="shadow"))
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    r = sidecar.stub.ExplainAction(pb.ExplainActionRequest(agent_id="a", action="act", context=struct({"cost": 50})))
    assert (r.allowed, r.guardrail) == (True, "cap")
    assert [(g.guardrail, g.shadow, g.evaluated, g.decided, g.allowed) for g in r.guardrails] == [
        ("candidate", True, True, False, False),
        ("second", True, False, False, False),  # the shadow outcome is known: enforced, it would not have run
        ("cap", False, True, True, True),
    ]
    assert r.shadow.guardrail == "candidate"
    assert r.shadow.summary == "would have blocked by candidate: Cost 50 is over the cap"
    same = sidecar.stub.CheckAction(check(agent_id="a", context={"cost": 50}))
    assert (same.allowed, same.guardrail) == (r.allowed, r.guardrail)
    assert listed(sidecar)[0].shadow.guardrail == r.shadow.guardrail


def test_chain_mode_shadow_enforces_nothing_and_promotion_is_an_audited_reload(tmp_path: Path) -> None:
    policy = tmp_path / "outrider.yaml"
    body = """\
        chain: {mode: shadow}
        guardrails:
          - {name: tools, kind: action_list, deny: ['shell.*']}
          - {name: cap, kind: cost_cap, max: 100}
        """
    policy.write_text(textwrap.dedent(body))
    with RunningSidecar(make_config(tmp_path, config_path=policy)) as s:
        assert [g.options["mode"] for g in s.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails] == [
            "shadow",
            "shadow",
        ]
        r = s.stub.CheckAction(check(action="shell.exec", context={"cost": 500}))
        assert (r.allowed, r.guardrail) == (True, "")
        assert listed(s)[0].shadow.guardrail == "tools"

        # Promote: the same policy without the chain-level shadow is an ordinary, audited reload.
        policy.write_text(textwrap.dedent(body).replace("chain: {mode: shadow}\n", ""))
        s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        r = s.stub.CheckAction(check(action="shell.exec", context={"cost": 500}))
        assert (r.allowed, r.guardrail) == (False, "tools")
        reloads = [rec for rec in s.services.audit.repo.iter_all() if rec.action == "policy.reload"]
        assert len(reloads) == 1
        assert [g.get("mode") for g in reloads[0].details["guardrails"]] == [None, None]
        applied = [rec for rec in s.services.audit.repo.iter_all() if rec.action == "policy.apply"]
        assert [g["mode"] for g in applied[0].details["guardrails"]] == ["shadow", "shadow"]

        policy.write_text("chain: {mode: loud}\nguardrails: []\n")
        with pytest.raises(grpc.RpcError) as err:
            s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "chain.mode" in (err.value.details() or "")


def test_a_bad_mode_is_invalid_argument_naming_the_option(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=1, mode="quiet"))
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).metadata["field"] == "mode"


def test_metrics_count_shadow_outcomes_by_guardrail(tmp_path: Path) -> None:
    config = make_config(tmp_path, telemetry=TelemetrySettings(metrics_listen="127.0.0.1:0"))
    with RunningSidecar(config, with_scheduler=False) as s:
        s.stub.AddGuardrail(guardrail("candidate", "cost_cap", max=10, mode="shadow"))
        s.stub.AddGuardrail(guardrail("review", "hitl", patterns=["deploy"], mode="shadow"))
        for cost in (50, 60, 1):
            assert s.stub.CheckAction(check(context={"cost": cost})).allowed
        assert s.stub.CheckAction(check(action="deploy", context={"cost": 1})).allowed
        series, _ = parse(get(s.services.health["metrics_url"])[0])
    name = "outrider_shadow_decisions_total"
    assert value(series, name, guardrail="candidate", outcome="blocked") == 2
    assert value(series, name, guardrail="review", outcome="would_ask") == 1
    assert value(series, "outrider_decisions_total", outcome="allowed", guardrail="none") == 4
