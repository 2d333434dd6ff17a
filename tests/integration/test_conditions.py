"""Conditions over real gRPC, the Python client and the MCP gateway: the "Why" examples of
examples/policies/conditions.yaml behave as stated through CheckAction, a rule that asks opens an approval, a bad
expression is INVALID_ARGUMENT naming the guardrail, the field and the column, and ExplainAction says where a
condition did not apply."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import grpc
import pytest

from outrider import Client
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind
from tests.fakes import FakeClock

from .gatewaykit import stdio_session, text_of, upstream_calls, write_config
from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail, struct

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "policies" / "conditions.yaml"
MONDAY_TEN = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningSidecar, FakeClock]]:
    tmp = tmp_path_factory.mktemp("conditions")
    policy = tmp / "outrider.yaml"
    shutil.copy(POLICY, policy)
    clock = FakeClock()
    with RunningSidecar(make_config(tmp, config_path=policy), clock=clock, with_scheduler=False) as s:
        s.services.agents.register("cond-support", "support", [], {})
        s.services.agents.register("cond-finance", "finance", [], {})
        s.services.agents.register("cond-ops", "ops", ["deploy"], {"team": "platform"})
        yield s, clock


def at(clock: FakeClock, when: datetime) -> None:
    clock.base = when - timedelta(seconds=clock.t)


def test_the_why_examples_through_the_python_client(running: tuple[RunningSidecar, FakeClock]) -> None:
    s, clock = running
    at(clock, MONDAY_TEN)
    with Client(s.sidecar.target, s.operator_secret, timeout=10) as c:
        prod = c.check_action("cond-ops", "deploy.web", {"environment": "production"}, wait=False)
        assert prod.pending and prod.guardrail == "prod-deploy"
        assert c.check_action("cond-ops", "deploy.web", {"environment": "staging"}).allowed
        assert c.check_action("cond-ops", "get_deployment_status", {"environment": "production"}).allowed

        refund = c.check_action("cond-support", "payments.refund", {"amount": 5000})
        assert (refund.allowed, refund.guardrail, refund.reason) == (
            False,
            "big-refund",
            "a refund of 5000 needs the finance group",
        )
        assert c.check_action("cond-finance", "payments.refund", {"amount": 5000}).allowed
        assert c.check_action("cond-support", "payments.refund", {"amount": 999.5}).allowed

        etc = c.check_action("cond-ops", "files.delete", {"path": "/etc/hosts"})
        assert (etc.allowed, etc.guardrail, etc.reason) == (False, "protect-etc", "deleting /etc/hosts is not allowed")
        assert c.check_action("cond-ops", "files.delete", {"path": "/srv/tmp"}).allowed

        mail = c.check_action("cond-ops", "email.send", {"recipients": [f"u{i}@x" for i in range(51)]})
        assert mail.allowed  # the answer is the last guardrail's; the warning is in `warnings` (the seed's rule)
        assert [(w.guardrail, w.reason) for w in mail.warnings] == [("mass-mail", "an email to 51 recipients")]
        assert not c.check_action("cond-ops", "email.send", {"recipients": ["a@x"]}).warnings

        assert c.check_action("cond-ops", "shell.exec", {}).allowed
        at(clock, MONDAY_TEN + timedelta(hours=8))
        late = c.check_action("cond-ops", "shell.exec", {})
        assert (late.allowed, late.guardrail) == (False, "shell-hours")
        at(clock, MONDAY_TEN - timedelta(days=1))  # Sunday
        assert not c.check_action("cond-ops", "shell.exec", {}).allowed

        cost = c.check_action("cond-ops", "search", {"cost": "1000"})
        assert (cost.allowed, cost.reason) == (False, "Cost 1000 is over the cap")


def test_a_condition_that_fails_blocks_naming_the_guardrail(running: tuple[RunningSidecar, FakeClock]) -> None:
    s, _ = running
    r = s.stub.CheckAction(check("cond-support", "payments.refund", {"amount": "lots"}))
    assert (r.allowed, r.guardrail) == (False, "big-refund")
    assert r.reason.startswith("Guardrail error: the condition of 'big-refund' failed: No matching overloads")


def test_a_bad_expression_is_invalid_argument_naming_guardrail_field_and_column(
    running: tuple[RunningSidecar, FakeClock],
) -> None:
    s, _ = running
    with pytest.raises(grpc.RpcError) as err:
        s.stub.AddGuardrail(guardrail("typo", "cost_cap", max=1, when="context.amount >> 3"))
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    details = err.value.details() or ""
    assert "guardrail 'typo' (cost_cap) option 'when': line 1, column" in details
    assert "Syntax error" in details
    assert error_info(err.value).metadata["field"].endswith("when")
    with pytest.raises(grpc.RpcError) as unknown:
        s.stub.AddGuardrail(guardrail("typo", "rule", effect="deny", when="amount > 3"))
    assert unknown.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "undeclared reference to 'amount'" in (unknown.value.details() or "")
    names = [g.name for g in s.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]
    assert "typo" not in names


def test_a_rule_that_asks_opens_an_approval_with_its_reason(running: tuple[RunningSidecar, FakeClock]) -> None:
    s, _ = running
    s.stub.AddGuardrail(
        guardrail(
            "wire-review",
            "rule",
            effect="ask",
            when='action == "payments.wire" && context.amount >= 10000',
            reason="a wire of {context.amount}",
            approvers=["group:finance-leads"],
            min_approvals=2,
        )
    )
    try:
        r = s.stub.CheckAction(
            check("cond-ops", "payments.wire", {"amount": 25000}, wait_mode=pb.WAIT_MODE_NON_BLOCKING, request_id="w-1")
        )
        assert (r.allowed, r.guardrail) == (False, "wire-review") and r.approval.approval_id
        approval = s.services.approvals.get(r.approval.approval_id)
        assert approval.policy.min_approvals == 2 and approval.policy.approvers == ("group:finance-leads",)
        assert ("wire-review", "a wire of 25000") in approval.warnings
        small = s.stub.CheckAction(
            check("cond-ops", "payments.wire", {"amount": 50}, wait_mode=pb.WAIT_MODE_NON_BLOCKING)
        )
        assert small.allowed
    finally:
        s.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="wire-review"))


def test_explain_says_where_a_condition_did_not_apply_and_agrees_with_check(
    running: tuple[RunningSidecar, FakeClock],
) -> None:
    s, clock = running
    at(clock, MONDAY_TEN)
    for agent, action, context in [
        ("cond-support", "payments.refund", {"amount": 5000}),
        ("cond-finance", "payments.refund", {"amount": 5000}),
        ("cond-ops", "files.delete", {"path": "/etc/x"}),
        ("cond-support", "payments.refund", {"amount": "x"}),
    ]:
        e = s.stub.ExplainAction(pb.ExplainActionRequest(agent_id=agent, action=action, context=struct(context)))
        r = s.stub.CheckAction(check(agent, action, context))
        assert (e.allowed, e.guardrail, e.reason, e.severity) == (r.allowed, r.guardrail, r.reason, r.severity)
    e = s.stub.ExplainAction(
        pb.ExplainActionRequest(agent_id="cond-finance", action="payments.refund", context=struct({"amount": 5000}))
    )
    step = next(g for g in e.guardrails if g.guardrail == "big-refund")
    assert step.evaluated and step.allowed and step.reason == "Not applied: the condition of big-refund is false"


def test_a_context_near_the_size_limit_is_evaluated_on_the_chain_workers(
    running: tuple[RunningSidecar, FakeClock],
) -> None:
    s, _ = running
    items = [f"item-{i:06d}-" + "x" * 80 for i in range(9000)]  # about 0.9 MiB, under limits.max_context_bytes
    r = s.stub.CheckAction(check("cond-ops", "email.send", {"recipients": items}))
    assert r.allowed and [(w.guardrail, w.reason) for w in r.warnings] == [("mass-mail", "an email to 9000 recipients")]


def test_conditions_hold_through_the_mcp_gateway(running: tuple[RunningSidecar, FakeClock], tmp_path: Path) -> None:
    s, _ = running
    s.stub.AddGuardrail(
        guardrail(
            "no-etc-reads",
            "rule",
            effect="deny",
            when='action == "read_file" && has(context.path) && context.path.startsWith("/etc")',
            reason="reading {context.path} is not allowed",
        )
    )
    token = s.issue(PrincipalKind.AGENT, "cond-gw")
    config = write_config(tmp_path, s.sidecar.target, agent_id="cond-gw")

    async def go() -> None:
        async with stdio_session(config, token) as session:
            blocked = await session.call_tool("read_file", {"path": "/etc/shadow"})
            assert blocked.is_error and "reading /etc/shadow is not allowed" in text_of(blocked)
            allowed = await session.call_tool("read_file", {"path": "/srv/a.txt"})
            assert not allowed.is_error

    try:
        anyio.run(go)
    finally:
        s.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="no-etc-reads"))
    assert len(upstream_calls(tmp_path)) == 1  # the blocked call never reached the tool
