"""ExplainAction: CheckAction's verdict for the guardrails it can run without side effects, and no effects."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb

from .harness import RunningSidecar
from .rpc import check, guardrail, struct

E = pb.ExplainStepOutcome


def explain(
    stub: object, agent_id: str, action: str, context: dict[str, object] | None = None
) -> pb.ExplainActionResponse:
    return stub.ExplainAction(  # type: ignore[attr-defined, no-any-return]
        pb.ExplainActionRequest(agent_id=agent_id, action=action, context=struct(context))
    )


def test_explain_matches_checkaction_and_leaves_no_trace(sidecar: RunningSidecar) -> None:
    s = sidecar.stub
    s.AddGuardrail(guardrail("slow", "rate_limit", max=1, window="1h"))
    s.AddGuardrail(guardrail("no-wipe", "action_list", deny=["wipe*"]))
    s.AddGuardrail(guardrail("cap", "cost_cap", max=10))
    s.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))

    for _ in range(3):
        blocked = explain(s, "a1", "wipe_disk")
        assert (blocked.allowed, blocked.guardrail, blocked.needs_approval) == (False, "no-wipe", False)
        assert [(st.guardrail, st.outcome) for st in blocked.steps] == [
            ("slow", E.EXPLAIN_STEP_OUTCOME_NOT_EVALUATED),
            ("no-wipe", E.EXPLAIN_STEP_OUTCOME_EVALUATED),
            ("cap", E.EXPLAIN_STEP_OUTCOME_NOT_REACHED),
            ("hitl-approval", E.EXPLAIN_STEP_OUTCOME_NOT_REACHED),
        ]
        over = explain(s, "a1", "buy", {"cost": 40})
        assert (over.allowed, over.guardrail, over.severity) == (False, "cap", common_pb2.SEVERITY_BLOCK)
        ask = explain(s, "a1", "deploy_prod")
        assert (ask.allowed, ask.needs_approval, ask.guardrail) == (False, True, "hitl-approval")
        assert explain(s, "a1", "read").allowed

    # Nothing happened: no decision, no approval, and the rate limit still has its one call.
    assert list(s.ListDecisions(pb.ListDecisionsRequest(agent_id="a1")).decisions) == []
    assert list(s.ListApprovals(pb.ListApprovalsRequest(agent_id="a1")).approvals) == []
    real = s.CheckAction(check("a1", "wipe_disk"))
    assert (real.allowed, real.guardrail, real.reason) == (False, "no-wipe", explain(s, "a1", "wipe_disk").reason)
    assert s.CheckAction(check("a1", "read")).allowed is False  # the second counted call: over the limit of 1


def test_an_agent_explains_only_its_own_actions(sidecar: RunningSidecar) -> None:
    me = sidecar.as_agent("a1")
    assert explain(me.stub, "a1", "read").allowed
    with pytest.raises(grpc.RpcError) as err:
        explain(me.stub, "a2", "read")
    assert err.value.code() is grpc.StatusCode.PERMISSION_DENIED


def test_bad_input_names_the_field(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        explain(sidecar.stub, "a1", "")
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "action" in (err.value.details() or "")
