"""CheckActions over real gRPC: one stream, each request decided as a unary CheckAction, answered by id as
decisions finish; a request's failure is its answer and the stream goes on."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.guardrails.decisions import DecisionFilter

from .checkstream import CheckStream
from .harness import RunningSidecar
from .jaeger import Jaeger, jaeger_fixture  # noqa: F401  (the fixture)
from .rpc import check, guardrail
from .test_approvals import decide, hitl, pending
from .test_tracing import by_name, parent_of, tags, traced, traceparent

PENDING = supervisor_pb2.APPROVAL_STATE_PENDING


def stored(s: RunningSidecar, agent_id: str) -> list[supervisor_pb2.Decision]:
    s.services.decisions.flush()
    return list(s.services.decisions.list(DecisionFilter(agent_id=agent_id), 1000, "").items)


def test_every_request_is_decided_as_the_unary_call_and_answered_by_its_id(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    agent = sidecar.as_agent("agent-1")
    stream = CheckStream(agent.stub)
    calls = [("read", {"cost": 1}), ("shell.exec", {}), ("write", {"cost": 140})] * 10
    for i, (action, ctx) in enumerate(calls, start=100):
        stream.send(i, check(action=action, context=ctx))
    stream.close()
    assert stream.ended() is None
    assert sorted(stream.answers) == list(range(100, 130))
    unary = [agent.stub.CheckAction(check(action=a, context=c)) for a, c in calls[:3]]
    for i, (action, _) in enumerate(calls, start=100):
        got = stream.answers[i].response
        want = unary[(i - 100) % 3]
        assert (got.allowed, got.reason, got.severity, got.guardrail) == (
            want.allowed,
            want.reason,
            want.severity,
            want.guardrail,
        ), action
    ids = {a.response.decision_id for a in stream.answers.values()}
    assert len(ids) == 30
    assert ids <= {d.decision_id for d in stored(sidecar, "agent-1")}  # one decision-log record each


def test_a_request_waiting_for_a_human_holds_up_no_other(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    stream = CheckStream(sidecar.as_agent("agent-1").stub)
    stream.send(1, check(action="deploy", request_id="job-1"))
    for i in range(2, 12):
        stream.send(i, check(action="read"))
    later = stream.wait(*range(2, 12))
    assert all(a.response.allowed for a in later)
    assert 1 not in stream.answers
    [a] = pending(sidecar, 1)
    decide(sidecar, a.approval_id, True)
    [first] = stream.wait(1)
    assert first.response.allowed and first.response.approval.approval_id == a.approval_id
    assert stream.order[-1] == 1  # answered when decided, after the later requests
    stream.close()
    assert stream.ended() is None


def test_a_request_id_reattaches_to_its_approval_on_the_stream_too(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    stream = CheckStream(sidecar.as_agent("agent-1").stub)
    req = check(action="deploy", context={"env": "prod"}, request_id="job-7", wait_mode=pb.WAIT_MODE_NON_BLOCKING)
    stream.send(1, req)
    stream.send(2, req)
    one, two = stream.wait(1, 2)
    assert one.response.approval.state == two.response.approval.state == PENDING
    assert one.response.approval.approval_id == two.response.approval.approval_id
    assert len(pending(sidecar, 1)) == 1
    # And a unary retry of the same call finds the same request.
    r = sidecar.as_agent("agent-1").stub.CheckAction(req)
    assert r.approval.approval_id == one.response.approval.approval_id
    stream.close()
    assert stream.ended() is None


def test_a_bad_request_is_answered_with_its_error_and_the_stream_goes_on(sidecar: RunningSidecar) -> None:
    stream = CheckStream(sidecar.as_agent("agent-1").stub)
    stream.send(1, check(action=""))
    stream.send(2, check(action="x" * 2000))
    stream.send(3, check(agent_id=""))
    stream.send(4, check(action="read"))
    empty, long, no_agent, fine = stream.wait(1, 2, 3, 4)
    assert (empty.error.code, empty.error.field, empty.error.reason) == (
        code_pb2.INVALID_ARGUMENT,
        "check.action",
        "INVALID_FIELD",
    )
    assert "action is required" in empty.error.message
    assert (long.error.code, long.error.field) == (code_pb2.INVALID_ARGUMENT, "check.action")
    assert (no_agent.error.code, no_agent.error.field) == (code_pb2.INVALID_ARGUMENT, "check.agent_id")
    assert fine.response.allowed and not fine.HasField("error")
    stream.close()
    assert stream.ended() is None


def test_an_operator_checks_for_any_agent_and_half_close_waits_for_the_last_answer(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("slow", "plugin", **{"class": "tests.plugins:Slow", "seconds": 0.3}))
    stream = CheckStream(sidecar.stub)
    stream.send(1, check(agent_id="agent-a"))
    stream.send(2, check(agent_id="agent-b"))
    stream.close()  # half-close at once: both are still answered
    assert stream.ended() is None
    assert {a.id for a in stream.answers.values()} == {1, 2}


def test_an_empty_stream_ends_cleanly(sidecar: RunningSidecar) -> None:
    stream = CheckStream(sidecar.as_agent("agent-1").stub)
    stream.close()
    assert stream.ended() is None and stream.answers == {}


def test_every_decision_is_a_span_in_its_own_requests_trace(jaeger: Jaeger, tmp_path: Path) -> None:
    with traced(tmp_path, endpoint=jaeger.grpc_endpoint) as s:
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        (t1, span1, md1), (t2, span2, md2) = traceparent(), traceparent()
        stream = CheckStream(s.as_agent("agent-1").stub)
        stream.send(1, check(context={"cost": 140}), traceparent=md1[0][1])
        stream.send(2, check(context={"cost": 1}), traceparent=md2[0][1])
        stream.send(3, check(context={"cost": 2}))  # no trace of its own: a child of the stream's span
        one, two, three = stream.wait(1, 2, 3)
        stream.close()
        assert stream.ended() is None
        assert s.services.telemetry.flush()
        first, second = jaeger.trace(t1, min_spans=2), jaeger.trace(t2, min_spans=2)
        decisions = {d.decision_id: d.trace_id for d in stored(s, "agent-1")}

    name = "outrider.v1.SupervisorService/CheckActions.decision"
    d1, d2 = by_name(first, name), by_name(second, name)
    assert parent_of(d1) == span1 and parent_of(d2) == span2
    t = tags(d1)
    assert t["span.kind"] == "server" and t["rpc.method"] == "CheckActions"
    assert (t["outrider.decision_id"], t["outrider.outcome"], t["outrider.guardrail"]) == (
        one.response.decision_id,
        "blocked",
        "cap",
    )
    assert parent_of(by_name(first, "guardrail cap")) == d1["spanID"]
    assert tags(d2)["outrider.outcome"] == "allowed"
    assert decisions[one.response.decision_id] == t1 and decisions[two.response.decision_id] == t2
    # The third continues the stream's own trace, not either request's.
    assert decisions[three.response.decision_id] not in ("", t1, t2)


def test_a_deadline_on_the_stream_ends_it_and_leaves_no_task_behind(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    stream = CheckStream(sidecar.as_agent("agent-1").stub, timeout=0.5)
    stream.send(1, check(action="deploy"))
    err = stream.ended()
    assert err is not None and err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    deadline = time.monotonic() + 30
    while sidecar.services.checks._inflight and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sidecar.services.checks._inflight == {}  # the waiting request's slot came back


@pytest.mark.parametrize("n", [200])
def test_many_requests_on_one_stream_are_all_answered_once(sidecar: RunningSidecar, n: int) -> None:
    stream = CheckStream(sidecar.as_agent("agent-1").stub)
    for i in range(n):
        stream.send(i, check(action=f"a{i % 7}"))
    stream.close()
    assert stream.ended(30) is None
    assert sorted(stream.order) == list(range(n))  # once each


def test_without_tracing_a_requests_traceparent_is_still_stored_with_its_decision(sidecar: RunningSidecar) -> None:
    # Tracing is off here: each decision's span is a no-op, made only when the request carries a traceparent
    # (whose trace id the decision keeps); without one the decision has no trace id.
    assert not sidecar.services.telemetry.tracing
    trace_id, _span, md = traceparent()
    stream = CheckStream(sidecar.as_agent("agent-tp").stub)
    stream.send(1, check(agent_id="agent-tp"), traceparent=md[0][1])
    stream.send(2, check(agent_id="agent-tp"))
    stream.close()
    assert stream.ended() is None
    kept = {d.decision_id: d.trace_id for d in stored(sidecar, "agent-tp")}
    assert kept[stream.answers[1].response.decision_id] == trace_id
    assert kept[stream.answers[2].response.decision_id] == ""
