"""The Prometheus endpoints (`telemetry.metrics_listen` and the console's /metrics) after a scripted scenario:
every series the issue lists, with the exact values the scenario produced."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.approvals.requests import Reviewer
from server.services.supervisor.decision_log import DecisionLogSettings
from server.telemetry.settings import TelemetrySettings
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

Series = dict[tuple[str, frozenset[tuple[str, str]]], float]
_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> tuple[Series, dict[str, str]]:
    """(series -> value, family -> type) from Prometheus text; fails on any line it cannot read."""
    series: Series = {}
    types: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind
            continue
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        assert m, f"not a Prometheus sample line: {line!r}"
        labels = frozenset(_LABEL.findall(m.group(2) or ""))
        series[(m.group(1), labels)] = float(m.group(3))
    return series, types


def get(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode(), r.headers["Content-Type"]


def value(series: Series, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    assert key in series, f"no series {name}{labels}; have {sorted(k for k in series if k[0] == name)}"
    return series[key]


def test_the_metrics_endpoints_expose_every_series_with_the_scenarios_values(tmp_path: Path) -> None:
    clock = FakeClock()
    config = make_config(
        tmp_path,
        console_enabled=True,
        console_listen="127.0.0.1:0",
        telemetry=TelemetrySettings(metrics_listen="127.0.0.1:0"),  # metrics on, tracing off: the default
        decision_log=DecisionLogSettings(queue_size=2, flush_interval=0.01),
    )
    with RunningSidecar(config, clock=clock, with_scheduler=False, with_console=True) as s:
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        s.stub.AddGuardrail(guardrail("hitl", "hitl", patterns=["deploy"], timeout="30s"))
        agent = s.as_agent("agent-1").stub
        for cost in (10, 20, 30):
            assert agent.CheckAction(check(context={"cost": cost})).allowed
        for cost in (500, 600):
            assert not agent.CheckAction(check(context={"cost": cost})).allowed
        nowait = pb.WAIT_MODE_NON_BLOCKING
        approved = agent.CheckAction(check(action="deploy", wait_mode=nowait)).approval.approval_id
        expiring = agent.CheckAction(check(action="deploy", context={"v": 2}, wait_mode=nowait)).approval.approval_id
        pending_mid = value(parse(get(s.services.health["metrics_url"])[0])[0], "outrider_approvals_pending")

        clock.advance(12)
        s.services.approvals.decide(approved, Reviewer("alice", "approver"), True, "")
        clock.advance(19)  # the second request is now 31 s old: past its 30 s
        assert s.services.approvals.expire_due() == 1
        assert s.services.approvals.get(expiring).state.name == "EXPIRED"

        s.services.breakers.force_open("agent-1:db", "maintenance", "test")
        assert s.services.breakers.events.flush()
        s.services.budgets.allocate("agent-1", 1000)
        s.services.budgets.consume("agent-1", 950)  # 95%: one SIGWARN
        assert s.services.budgets.events.flush()

        s.services.decisions.flush()
        s.services.decisions.stop()  # the writer is gone: the queue (2 records) fills, the rest is dropped
        for _ in range(3):
            assert agent.CheckAction(check(context={"cost": 1})).allowed
        stats = s.services.decisions.stats

        text, content_type = get(s.services.health["metrics_url"])
        console_text, _ = get(s.services.health["console_url"] + "/metrics")

    assert content_type.startswith("text/plain; version=0.0.4")
    series, types = parse(text)
    assert parse(console_text)[0].keys() == series.keys()  # the console serves the same series

    assert value(series, "outrider_decisions_total", outcome="allowed", guardrail="hitl") == 3 + 3  # every call counts
    assert value(series, "outrider_decisions_total", outcome="blocked", guardrail="cap") == 2
    assert value(series, "outrider_decisions_total", outcome="pending", guardrail="hitl") == 2
    assert types["outrider_decisions_total"] == "counter"

    assert types["outrider_check_action_duration_seconds"] == "histogram"
    for outcome, count in (("allowed", 6), ("blocked", 2), ("pending", 2)):
        assert value(series, "outrider_check_action_duration_seconds_count", outcome=outcome) == count
        assert value(series, "outrider_check_action_duration_seconds_bucket", outcome=outcome, le="+Inf") == count
        assert 0 < value(series, "outrider_check_action_duration_seconds_sum", outcome=outcome) < 5 * count

    assert pending_mid == 2
    assert value(series, "outrider_approvals_pending") == 0
    assert value(series, "outrider_approval_time_to_decision_seconds_count", state="approved") == 1
    assert value(series, "outrider_approval_time_to_decision_seconds_sum", state="approved") == 12
    assert value(series, "outrider_approval_time_to_decision_seconds_bucket", state="approved", le="5") == 0
    assert value(series, "outrider_approval_time_to_decision_seconds_bucket", state="approved", le="15") == 1
    assert value(series, "outrider_approval_time_to_decision_seconds_sum", state="expired") == 31
    assert value(series, "outrider_approval_timeouts_total", guardrail="hitl") == 1

    assert value(series, "outrider_breaker_state", key="agent-1:db", state="OPEN") == 1
    assert value(series, "outrider_breaker_state", key="agent-1:db", state="CLOSED") == 0
    assert value(series, "outrider_breaker_trips_total", breaker="agent-1:db") == 1

    assert value(series, "outrider_budget_used", scope="agent", agent_id="agent-1") == 950
    assert value(series, "outrider_budget_limit", scope="agent", agent_id="agent-1") == 1000
    assert value(series, "outrider_budget_used", scope="global", agent_id="") == 950
    assert value(series, "outrider_budget_signals_total", signal="SIGWARN", scope="agent") == 1

    # What the decision log counted (a queue of 2 may also overflow earlier, while the writer is busy).
    assert stats.dropped >= 1 and stats.written + stats.dropped + 2 == 3 + 2 + 2 + 3
    assert value(series, "outrider_decision_log_dropped_total") == stats.dropped
    assert value(series, "outrider_decision_log_written_total") == stats.written


def test_metrics_off_serves_nothing(tmp_path: Path) -> None:
    config = make_config(
        tmp_path, console_enabled=True, console_listen="127.0.0.1:0", telemetry=TelemetrySettings(metrics=False)
    )
    with RunningSidecar(config, with_console=True) as s:
        assert s.services.telemetry.prometheus_text() is None
        try:
            get(s.services.health["console_url"] + "/metrics")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
        else:
            raise AssertionError("/metrics answered with metrics off")
