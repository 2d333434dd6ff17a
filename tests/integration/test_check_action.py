"""CheckAction over real gRPC: every rule of the SupervisorAgent library's "Supervisor guardrails", and the trust
root."""

from __future__ import annotations

import pytest

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from tests import plugins

from .harness import RunningSidecar
from .rpc import check, guardrail

INFO, WARNING, BLOCK = common_pb2.SEVERITY_INFO, common_pb2.SEVERITY_WARNING, common_pb2.SEVERITY_BLOCK


def add(s: RunningSidecar, name: str, kind: str, **options: object) -> None:
    s.stub.AddGuardrail(guardrail(name, kind, **options))


def recorder(s: RunningSidecar, label: str, reason: str = "") -> None:
    add(s, label, "plugin", **{"class": "tests.plugins:Recorder", "label": label, "reason": reason})


@pytest.fixture(autouse=True)
def _clear_calls() -> None:
    plugins.CALLS.clear()


def test_no_guardrails_allows(sidecar: RunningSidecar) -> None:
    r = sidecar.stub.CheckAction(check(action="anything"))
    assert (r.allowed, r.severity, r.guardrail, list(r.warnings)) == (True, INFO, "", [])
    assert len(r.decision_id) == 32


def test_runs_in_order_and_first_block_short_circuits(sidecar: RunningSidecar) -> None:
    recorder(sidecar, "first")
    add(sidecar, "cap", "cost_cap", max=100)
    recorder(sidecar, "after")
    r = sidecar.stub.CheckAction(check(context={"cost": 140}))
    assert (r.allowed, r.reason, r.severity, r.guardrail) == (False, "Cost 140 is over the cap", BLOCK, "cap")
    assert plugins.CALLS == [("first", "act")]  # "after" never ran
    r = sidecar.stub.CheckAction(check(context={"cost": 40}))
    assert r.allowed and plugins.CALLS[-2:] == [("first", "act"), ("after", "act")]


def test_raising_guardrail_is_a_block_and_stops_the_chain(sidecar: RunningSidecar) -> None:
    add(sidecar, "boom", "plugin", **{"class": "tests.plugins:Raises"})
    recorder(sidecar, "after")
    r = sidecar.stub.CheckAction(check())
    assert (r.allowed, r.reason, r.severity, r.guardrail) == (
        False,
        "Guardrail error: kaboom from a plugin",
        BLOCK,
        "boom",
    )
    assert plugins.CALLS == []


def test_plugin_over_its_time_limit_is_a_guardrail_error(sidecar: RunningSidecar) -> None:
    add(sidecar, "slow", "plugin", **{"class": "tests.plugins:Slow", "seconds": 2, "timeout": "100ms"})
    r = sidecar.stub.CheckAction(check(), timeout=5)
    assert not r.allowed and r.reason == "Guardrail error: slow did not answer within 0.1s"


def test_warnings_accumulate_and_the_last_result_wins(sidecar: RunningSidecar) -> None:
    add(sidecar, "w1", "plugin", **{"class": "tests.plugins:Warns", "reason": "first warning"})
    add(sidecar, "w2", "action_list", deny=["act"], mode="warn")
    recorder(sidecar, "last", reason="all good")
    r = sidecar.stub.CheckAction(check())
    assert (r.allowed, r.reason, r.severity, r.guardrail) == (True, "all good", INFO, "last")
    assert [(w.guardrail, w.reason) for w in r.warnings] == [
        ("w1", "first warning"),
        ("w2", "Action 'act' is denied by w2"),
    ]


def test_last_guardrail_warning_is_the_result(sidecar: RunningSidecar) -> None:
    add(sidecar, "w", "plugin", **{"class": "tests.plugins:Warns", "reason": "heads up"})
    r = sidecar.stub.CheckAction(check())
    assert (r.allowed, r.severity, r.reason, r.guardrail) == (True, WARNING, "heads up", "w")


def test_warning_then_block_returns_block_with_the_warning(sidecar: RunningSidecar) -> None:
    add(sidecar, "w", "plugin", **{"class": "tests.plugins:Warns"})
    add(sidecar, "deny", "action_list", deny=["act"])
    r = sidecar.stub.CheckAction(check())
    assert (r.allowed, r.guardrail) == (False, "deny")
    assert [w.guardrail for w in r.warnings] == ["w"]


def test_trust_root_runs_first_even_when_added_last(sidecar: RunningSidecar) -> None:
    recorder(sidecar, "before")
    add(sidecar, "root", "trust_root", blocked_patterns=[r"(?i)rm\s+-rf"])
    r = sidecar.stub.CheckAction(check(context={"steps": [{"shell": "RM -RF /"}]}))
    assert (r.allowed, r.guardrail) == (False, "root")
    assert "context.steps[0].shell" in r.reason
    assert plugins.CALLS == []
    names = [g.name for g in sidecar.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]
    assert names == ["root", "before"]


@pytest.mark.parametrize(
    "request_kw, where",
    [
        ({"context": {"nested": {"deeper": ["ok", {"x": "DROP TABLE users"}]}}}, "context.nested.deeper[1].x"),
        ({"context": {"DROP TABLE users": "key, not value"}}, "key 'DROP TABLE users'"),
        ({"binary_context": {"payload": b"\xffDROP TABLE users"}}, "binary_context.payload"),
        ({"action": "sql.exec DROP TABLE users"}, "the action"),
    ],
)
def test_trust_root_scans_every_string_leaf(sidecar: RunningSidecar, request_kw: dict[str, object], where: str) -> None:
    add(sidecar, "root", "trust_root", blocked_patterns=[r"DROP\s+TABLE"])
    kw = {"action": "sql.exec", **request_kw}
    r = sidecar.stub.CheckAction(check(**kw))  # type: ignore[arg-type]
    assert not r.allowed and where in r.reason, r.reason


def test_trust_root_allowed_actions(sidecar: RunningSidecar) -> None:
    add(sidecar, "root", "trust_root", allowed_actions=["read.*", "search"])
    assert sidecar.stub.CheckAction(check(action="read.file")).allowed
    r = sidecar.stub.CheckAction(check(action="write.file"))
    assert not r.allowed and r.guardrail == "root"


def test_action_list_limited_to_a_group(sidecar: RunningSidecar) -> None:
    from outrider.v1 import common_pb2 as c

    sidecar.stub.RegisterAgent(pb.RegisterAgentRequest(agent=c.Agent(agent_id="intern", group="interns")))
    add(sidecar, "interns", "action_list", deny=["deploy*"], groups=["interns"])
    assert not sidecar.stub.CheckAction(check("intern", "deploy-prod")).allowed
    assert sidecar.stub.CheckAction(check("senior", "deploy-prod")).allowed


def test_rate_limit_warns_then_blocks(sidecar: RunningSidecar) -> None:
    add(sidecar, "pace", "rate_limit", max=4, window="60s", warn_at=0.5)
    severities = [sidecar.stub.CheckAction(check()).severity for _ in range(5)]
    assert severities == [INFO, WARNING, WARNING, WARNING, BLOCK]
    assert sidecar.stub.CheckAction(check("other-agent")).allowed


def test_concurrent_checks_each_get_their_own_answer(sidecar: RunningSidecar) -> None:
    add(sidecar, "cap", "cost_cap", max=50)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda i: sidecar.stub.CheckAction(check(context={"cost": i})), range(100)))
    assert [r.allowed for r in results] == [i <= 50 for i in range(100)]
    assert len({r.decision_id for r in results}) == 100
