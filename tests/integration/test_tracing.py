"""Traces exported to a real Jaeger over OTLP (gRPC and HTTP): span names, parent/child links, attributes,
the agent's trace continued; auth refusals and approval waits traced; a dead collector never felt by RPCs."""

from __future__ import annotations

import logging
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from outrider.v1 import supervisor_service_pb2_grpc
from server.domain.approvals.requests import Reviewer
from server.domain.guardrails.decisions import DecisionFilter
from server.logs import TraceContextFilter
from server.telemetry.sdk import span_exporter
from server.telemetry.settings import TelemetrySettings

from .harness import RunningSidecar, make_config
from .jaeger import Jaeger, free_port, jaeger_fixture  # noqa: F401  (the fixture)
from .rpc import check, guardrail


def traceparent(sampled: bool = True) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """A fresh (trace id, parent span id, metadata) as an instrumented agent would send them."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return trace_id, span_id, (("traceparent", f"00-{trace_id}-{span_id}-{'01' if sampled else '00'}"),)


def tags(span: dict[str, Any]) -> dict[str, Any]:
    return {t["key"]: t["value"] for t in span["tags"]}


def parent_of(span: dict[str, Any]) -> str:
    refs = [r for r in span["references"] if r["refType"] == "CHILD_OF"]
    return str(refs[0]["spanID"]) if refs else ""


def by_name(spans: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [s for s in spans if s["operationName"] == name]
    assert len(found) == 1, (name, [s["operationName"] for s in spans])
    return found[0]


def traced(tmp_path: Path, **settings: Any) -> RunningSidecar:
    telemetry = TelemetrySettings(enabled=True, service_name=f"outrider-test-{secrets.token_hex(3)}", **settings)
    return RunningSidecar(make_config(tmp_path, telemetry=telemetry))


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(max_workers=2)
    yield executor
    executor.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("protocol", ["grpc", "http/protobuf"])
def test_check_action_spans_reach_jaeger_in_the_agents_trace(jaeger: Jaeger, tmp_path: Path, protocol: str) -> None:
    endpoint = jaeger.grpc_endpoint if protocol == "grpc" else jaeger.http_endpoint
    with traced(tmp_path, endpoint=endpoint, protocol=protocol) as s:
        s.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        trace_id, agent_span, md = traceparent()
        r = s.as_agent("agent-1").stub.CheckAction(check(context={"cost": 140}), metadata=md)
        assert not r.allowed and r.guardrail == "cap"
        assert s.services.telemetry.flush()
        spans = jaeger.trace(trace_id, min_spans=3)
        service = s.config.telemetry.service_name
        s.services.decisions.flush()
        stored = s.services.decisions.list(DecisionFilter(agent_id="agent-1"), 10, "").items

    assert {sp["traceID"] for sp in spans} == {trace_id}  # one trace: the agent's
    assert {sp["service"] for sp in spans} == {service}
    server = by_name(spans, "outrider.v1.SupervisorService/CheckAction")
    assert parent_of(server) == agent_span  # continues the agent's span
    t = tags(server)
    assert t["span.kind"] == "server"
    assert (t["rpc.system"], t["rpc.service"], t["rpc.method"]) == (
        "grpc",
        "outrider.v1.SupervisorService",
        "CheckAction",
    )
    assert t["rpc.grpc.status_code"] == 0
    assert t["outrider.principal"] == "agent:agent-1"
    assert (t["outrider.agent_id"], t["outrider.action"], t["outrider.outcome"]) == ("agent-1", "act", "blocked")
    assert (t["outrider.decision_id"], t["outrider.guardrail"]) == (r.decision_id, "cap")
    assert t["outrider.reason"] == "Cost 140 is over the cap" and t["outrider.severity"] == "BLOCK"

    tools, cap = by_name(spans, "guardrail tools"), by_name(spans, "guardrail cap")
    assert parent_of(tools) == parent_of(cap) == server["spanID"]
    assert tools["startTime"] <= cap["startTime"]
    tt, ct = tags(tools), tags(cap)
    assert (tt["outrider.guardrail.kind"], tt["outrider.guardrail.verdict"], tt["outrider.guardrail.severity"]) == (
        "action_list",
        "allow",
        "INFO",
    )
    assert (ct["outrider.guardrail.verdict"], ct["outrider.guardrail.severity"]) == ("block", "BLOCK")
    assert ct["outrider.guardrail.reason"] == "Cost 140 is over the cap"
    assert ct["outrider.guardrail.duration_ms"] > 0

    # The trace id is stored with the decision, so a decision leads to its trace.
    assert [(d.decision_id, d.trace_id) for d in stored] == [(r.decision_id, trace_id)]


def test_a_refused_call_is_traced_with_its_reason(jaeger: Jaeger, tmp_path: Path) -> None:
    with traced(tmp_path, endpoint=jaeger.grpc_endpoint) as s:
        trace_id, agent_span, md = traceparent()
        anonymous = supervisor_service_pb2_grpc.SupervisorServiceStub(s.raw_channel)
        with pytest.raises(grpc.RpcError) as err:
            anonymous.CheckAction(check(), metadata=md)
        assert err.value.code() is grpc.StatusCode.UNAUTHENTICATED
        # An agent acting for another agent: refused by the access rule, after authentication.
        other_trace, _, other_md = traceparent()
        with pytest.raises(grpc.RpcError) as err:
            s.as_agent("agent-2").stub.CheckAction(check(agent_id="agent-1"), metadata=other_md)
        assert err.value.code() is grpc.StatusCode.PERMISSION_DENIED
        assert s.services.telemetry.flush()
        (refused,) = jaeger.trace(trace_id)
        (denied,) = jaeger.trace(other_trace)

    t = tags(refused)
    assert refused["operationName"] == "outrider.v1.SupervisorService/CheckAction" and parent_of(refused) == agent_span
    assert (t["rpc.grpc.status_code"], t["outrider.error.reason"]) == (16, "MISSING_CREDENTIAL")
    assert "outrider.decision_id" not in t  # the chain never ran
    assert tags(denied)["rpc.grpc.status_code"] == 7


def test_the_approval_wait_is_a_span_with_created_and_decided_events(
    jaeger: Jaeger, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    with traced(tmp_path, endpoint=jaeger.grpc_endpoint) as s:
        s.stub.AddGuardrail(guardrail("hitl", "hitl", patterns=["deploy"]))
        trace_id, _, md = traceparent()
        call = pool.submit(s.as_agent("agent-1").stub.CheckAction, check(action="deploy"), metadata=md, timeout=30)
        deadline = time.monotonic() + 30
        while not s.services.approvals.pending() and time.monotonic() < deadline:
            time.sleep(0.02)
        (pending,) = s.services.approvals.pending()
        assert pending.trace_id == trace_id  # stored with the request
        s.services.approvals.decide(pending.approval_id, Reviewer("alice", "approver"), True, "go ahead")
        r = call.result(15)
        assert r.allowed and r.approval.approval_id == pending.approval_id
        assert s.services.telemetry.flush()
        spans = jaeger.trace(trace_id, min_spans=3)

    server = by_name(spans, "outrider.v1.SupervisorService/CheckAction")
    gate = by_name(spans, "guardrail hitl")
    wait = by_name(spans, "approval wait")
    assert parent_of(gate) == server["spanID"] and parent_of(wait) == gate["spanID"]
    assert tags(server)["outrider.approval_id"] == pending.approval_id
    assert tags(gate)["outrider.guardrail.verdict"] == "allow"
    wt = tags(wait)
    assert (wt["outrider.approval_id"], wt["outrider.approval.state"], wt["outrider.approval.reviewer"]) == (
        pending.approval_id,
        "APPROVED",
        "alice",
    )
    events = [({f["key"]: f["value"] for f in log["fields"]}) for log in wait["logs"]]
    assert [e["event"] for e in events] == ["approval.created", "approval.decided"]
    assert events[0]["outrider.approval.state"] == "PENDING"
    assert (events[1]["outrider.approval.reviewer"], events[1]["outrider.approval.comment"]) == ("alice", "go ahead")
    assert wait["duration"] <= gate["duration"] <= server["duration"]


def test_the_sampler_keeps_the_agents_decision_and_the_trace_id_either_way(jaeger: Jaeger, tmp_path: Path) -> None:
    with traced(tmp_path, endpoint=jaeger.grpc_endpoint, sampler="parentbased_traceidratio", sampler_arg=0.0) as s:
        agent = s.as_agent("agent-1").stub
        sampled_trace, _, sampled = traceparent(sampled=True)
        unsampled_trace, _, unsampled = traceparent(sampled=False)
        first = agent.CheckAction(check(action="one"), metadata=sampled)  # the agent sampled it: kept
        second = agent.CheckAction(check(action="two"), metadata=unsampled)  # the agent did not: dropped
        third = agent.CheckAction(check(action="three"))  # a new root at ratio 0: dropped
        assert s.services.telemetry.flush()
        s.services.decisions.flush()
        stored = {d.decision_id: d.trace_id for d in s.services.decisions.list(DecisionFilter(), 10, "").items}
        recent = s.services.telemetry.recent
        kept = [t.trace_id for t in recent.list()]
        assert jaeger.trace(sampled_trace)[0]["operationName"] == "outrider.v1.SupervisorService/CheckAction"

    assert kept == [sampled_trace]
    assert stored[first.decision_id] == sampled_trace and stored[second.decision_id] == unsampled_trace
    assert len(stored[third.decision_id]) == 32 and stored[third.decision_id] not in (sampled_trace, unsampled_trace)


def test_log_lines_inside_a_span_carry_its_trace_and_span_ids(tmp_path: Path) -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    handler.addFilter(TraceContextFilter())
    logger = logging.getLogger("server.services.supervisor.check")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        with traced(tmp_path) as s:  # tracing on, no exporter: the console's buffer only
            s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=1))
            trace_id, _, md = traceparent()
            s.stub.CheckAction(check(context={"cost": 5}), metadata=md)
            view = s.services.telemetry.recent.get(trace_id)
            logger.info("outside any span")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    blocked = [r for r in records if r.getMessage() == "action blocked"]
    assert len(blocked) == 1
    server_span = next(sp for sp in view.spans if sp.kind == "SERVER")
    assert (blocked[0].trace_id, blocked[0].span_id) == (trace_id, server_span.span_id)  # type: ignore[attr-defined]
    outside = [r for r in records if r.getMessage() == "outside any span"]
    assert not hasattr(outside[0], "trace_id")


@pytest.mark.parametrize("protocol", ["grpc", "http/protobuf"])
def test_a_dead_collector_never_slows_or_fails_a_call(
    tmp_path: Path, protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proved without a stopwatch: the collector takes connections and never answers, and the exporters wait
    600 s for it. A call or a stop that waited on the exporter would miss its deadline (30 s, 60 s) by far;
    every one meeting it never waited."""
    hung = socket.create_server(("127.0.0.1", 0))  # listens (the kernel accepts), never reads nor answers
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "600")  # the exporters' own give-up time (default 10 s)
    s = traced(tmp_path, endpoint=f"http://127.0.0.1:{hung.getsockname()[1]}", protocol=protocol, recent_traces=500)
    try:
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        agent = s.as_agent("agent-1").stub
        for i in range(200):
            r = agent.CheckAction(check(context={"cost": i}), metadata=traceparent()[2], timeout=30)
            assert r.allowed == (i <= 100)
        assert len(s.services.telemetry.recent) == 200 + 1  # the console still has them (and AddGuardrail's)
    finally:
        stopper = threading.Thread(target=s.stop, daemon=True)
        stopper.start()
        stopper.join(60)
        hung.close()
    assert not stopper.is_alive(), "stopping waited on the collector"


def test_tracing_off_adds_no_interceptor_and_stores_no_trace_id(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    assert not config.telemetry.tracing  # the default: no endpoint, not enabled
    with RunningSidecar(replace(config)) as s:
        _, _, md = traceparent()
        r = s.stub.CheckAction(check(), metadata=md)
        s.services.decisions.flush()
        (stored,) = s.services.decisions.list(DecisionFilter(), 10, "").items
        assert s.services.telemetry.recent is None and not s.services.telemetry.tracing
    assert stored.decision_id == r.decision_id and stored.trace_id == ""


def test_recovery_breaker_and_budget_changes_are_events_on_the_calls_span(tmp_path: Path) -> None:
    from outrider.v1 import common_pb2, recovery_service_pb2, safeguard_service_pb2
    from outrider.v1 import supervisor_service_pb2 as spb

    with traced(tmp_path) as s:
        s.stub.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="agent-1", group="workers")))
        s.recovery.TriggerRecovery(recovery_service_pb2.TriggerRecoveryRequest(agent_id="agent-1", reason="stuck"))
        s.safeguard.ForceOpen(safeguard_service_pb2.ForceOpenRequest(key="agent-1:db", reason="maintenance"))
        s.safeguard.Allocate(safeguard_service_pb2.AllocateRequest(agent_id="agent-1", tokens=1000))
        s.safeguard.Consume(safeguard_service_pb2.ConsumeRequest(agent_id="agent-1", tokens=950))
        spans = {t.name: t.spans[0] for t in s.services.telemetry.recent.list()}
        metrics = s.services.telemetry.prometheus_text()

    def events(rpc: str) -> dict[str, dict[str, str]]:
        return {e.name: dict(e.attributes) for e in spans[rpc].events}

    attempt = events("outrider.v1.RecoveryService/TriggerRecovery")["recovery.attempt"]
    assert (attempt["outrider.agent_id"], attempt["outrider.reason"], attempt["outrider.trigger"]) == (
        "agent-1",
        "stuck",
        "MANUAL",
    )
    assert attempt["outrider.action_taken"] and attempt["outrider.recovery_id"]
    opened = events("outrider.v1.SafeguardService/ForceOpen")["breaker.state_change"]
    assert (opened["outrider.key"], opened["outrider.from_state"], opened["outrider.to_state"]) == (
        "agent-1:db",
        "CLOSED",
        "OPEN",
    )
    assert "maintenance" in opened["outrider.reason"]
    warned = events("outrider.v1.SafeguardService/Consume")["budget.signal"]
    assert (warned["outrider.signal"], warned["outrider.scope"], warned["outrider.used"]) == ("SIGWARN", "agent", "950")
    assert metrics is not None and 'outrider_recovery_events_total{outcome="' in metrics
    assert 'type="recovery_attempt"' in metrics


def test_an_agent_that_gives_up_waiting_still_leaves_a_complete_trace(tmp_path: Path) -> None:
    with traced(tmp_path) as s:
        s.stub.AddGuardrail(guardrail("hitl", "hitl", patterns=["deploy"]))
        trace_id, _, md = traceparent()
        with pytest.raises(grpc.RpcError) as err:
            s.as_agent("agent-1").stub.CheckAction(check(action="deploy"), metadata=md, timeout=0.5)
        assert err.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        deadline = time.monotonic() + 30
        while (view := s.services.telemetry.recent.get(trace_id)) is None or len(view.spans) < 3:
            assert time.monotonic() < deadline, "the cancelled call's spans never ended"
            time.sleep(0.02)
    server, gate, wait = view.spans
    assert (server.name, gate.name, wait.name) == (
        "outrider.v1.SupervisorService/CheckAction",
        "guardrail hitl",
        "approval wait",
    )
    assert server.attr("rpc.grpc.status_code") == "1"  # CANCELLED: the caller went away
    assert gate.attr("outrider.guardrail.verdict") == "cancelled"
    assert [e.name for e in wait.events] == ["approval.created"]


class _Collector(trace_service_pb2_grpc.TraceServiceServicer):
    """A real OTLP/gRPC trace receiver (the part of a collector an exporter talks to)."""

    def __init__(self) -> None:
        self.spans = 0

    def Export(self, request: Any, context: Any) -> Any:
        self.spans += sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        return trace_service_pb2.ExportTraceServiceResponse()


def test_the_grpc_exporter_keeps_its_channel_and_reaches_a_collector_that_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The OTLP exporter closes and reopens its channel on UNAVAILABLE; gRPC Python destroys a channel
    holding the GIL, which can stall the whole sidecar. Ours keeps one channel, which gRPC reconnects."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    port = free_port()
    exporter = span_exporter(TelemetrySettings(enabled=True, endpoint=f"http://127.0.0.1:{port}", protocol="grpc"))
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with provider.get_tracer("test").start_as_current_span("one"):
        pass
    spans = memory.get_finished_spans()
    channel = exporter._channel
    try:
        assert exporter.export(spans) is SpanExportResult.FAILURE  # nobody listens yet
        assert exporter._channel is channel  # the same channel, never closed on the way
        collector = _Collector()
        server = grpc.server(ThreadPoolExecutor(max_workers=2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(collector, server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        try:
            deadline = time.monotonic() + 60  # the channel's reconnect backoff is capped at 5 s
            while exporter.export(spans) is not SpanExportResult.SUCCESS:
                assert time.monotonic() < deadline, "spans never reached the collector once it was back"
                time.sleep(0.2)
            assert collector.spans >= 1 and exporter._channel is channel
        finally:
            server.stop(None)
    finally:
        exporter.shutdown()
