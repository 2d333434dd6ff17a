"""The console's Traces page (Flask test client) and, in real Chromium, a decision's trace as a waterfall."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser, expect

from console import create_app
from server.domain.approvals.requests import Reviewer
from server.domain.guardrails.decisions import DecisionFilter
from server.telemetry.settings import TelemetrySettings

from .consolekit import add_hitl, add_reviewers, ask, sign_in
from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

JAEGER_UI = "http://jaeger.example:16686"


def traceparent() -> tuple[str, tuple[tuple[str, str], ...]]:
    trace_id = secrets.token_hex(16)
    return trace_id, (("traceparent", f"00-{trace_id}-{secrets.token_hex(8)}-01"),)


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    """Tracing on with no exporter: spans only feed the console's recent traces."""
    config = make_config(tmp_path, telemetry=TelemetrySettings(enabled=True), console_jaeger_ui_url=JAEGER_UI)
    with RunningSidecar(config) as s:
        s.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        add_reviewers(s, ("alice",))
        yield s


@pytest.fixture
def client(sidecar: RunningSidecar) -> FlaskClient:
    c = create_app(sidecar.services).test_client()
    sign_in(c, "alice")
    return c


def test_a_decision_links_to_its_trace_drawn_as_a_waterfall(sidecar: RunningSidecar, client: FlaskClient) -> None:
    trace_id, md = traceparent()
    r = sidecar.as_agent("agent-7").stub.CheckAction(check(agent_id="agent-7", context={"cost": 140}), metadata=md)
    sidecar.services.decisions.flush()

    overview = client.get("/").text  # the latest decisions link to their trace, here and in Jaeger
    assert f'href="/traces/{trace_id}?decision={r.decision_id}"' in overview
    assert f'href="{JAEGER_UI}/trace/{trace_id}"' in overview

    page = client.get(f"/traces/{trace_id}?decision={r.decision_id}")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    html = page.text
    assert " style=" not in html  # bars are SVG geometry: nothing for the CSP to refuse
    rows = re.findall(r'<tr class="span ([^"]*)" id="span-[0-9a-f]{16}" data-span="([^"]+)"', html)
    assert [name for _, name in rows] == [
        "outrider.v1.SupervisorService/CheckAction",
        "guardrail tools",
        "guardrail cap",
    ]
    assert "selected" in rows[0][0] and "look-blocked" in rows[0][0]  # the decision's own span
    assert "look-allow" in rows[1][0] and "look-block" in rows[2][0]
    assert "continued from the caller&#39;s traceparent" in html
    assert f"<code>{r.decision_id}</code>" in html and "agent-7" in html
    assert "Cost 140 is over the cap" in html
    assert re.search(r'<rect x="\d+" y="1" width="\d+" height="10"/>', html)
    assert f'href="{JAEGER_UI}/trace/{trace_id}"' in html


def test_the_list_filters_by_agent_outcome_and_decision(sidecar: RunningSidecar, client: FlaskClient) -> None:
    blocked_trace, md1 = traceparent()
    allowed_trace, md2 = traceparent()
    blocked = sidecar.as_agent("agent-7").stub.CheckAction(
        check(agent_id="agent-7", context={"cost": 140}), metadata=md1
    )
    sidecar.as_agent("agent-8").stub.CheckAction(check(agent_id="agent-8"), metadata=md2)

    def listed(query: str) -> set[str]:
        html = client.get(f"/traces?{query}").text
        return set(re.findall(r'href="/traces/([0-9a-f]{32})"', html))

    assert {blocked_trace, allowed_trace} <= listed("")
    assert listed("agent=agent-7") == {blocked_trace}
    assert listed("outcome=allowed") == {allowed_trace}
    assert listed("outcome=blocked&agent=agent-8") == set()
    assert listed(f"decision={blocked.decision_id}") == {blocked_trace}
    partial = client.get("/traces?agent=agent-8", headers={"HX-Request": "true"})
    assert partial.text.lstrip().startswith('<div id="traces">') and allowed_trace in partial.text


def test_an_approval_links_to_its_trace(sidecar: RunningSidecar, client: FlaskClient) -> None:
    add_hitl(sidecar)
    approval_id = ask(sidecar)  # over gRPC without a traceparent: the sidecar's own trace
    approval = sidecar.services.approvals.get(approval_id)
    assert len(approval.trace_id) == 32
    html = client.get(f"/approvals/{approval_id}").text
    assert f'href="/traces/{approval.trace_id}"' in html
    trace = client.get(f"/traces/{approval.trace_id}").text
    assert f'href="/approvals/{approval_id}"' in trace and "approval.pending" in trace


def test_an_unknown_trace_and_a_signed_out_visitor(sidecar: RunningSidecar, client: FlaskClient) -> None:
    missing = client.get(f"/traces/{'ab' * 16}")
    assert missing.status_code == 404 and "does not hold trace" in missing.text
    assert f'href="{JAEGER_UI}/trace/{"ab" * 16}"' in missing.text
    assert client.get("/traces/not-a-trace-id").status_code == 404
    anonymous = create_app(sidecar.services).test_client()
    assert anonymous.get("/traces").status_code == 303  # to the sign-in page
    metrics = anonymous.get("/metrics")  # public, like /healthz, for Prometheus
    assert metrics.status_code == 200 and "outrider_approvals_pending 0" in metrics.text


def test_tracing_off_says_so(tmp_path: Path) -> None:
    with RunningSidecar(replace(make_config(tmp_path))) as s:
        add_reviewers(s, ("alice",))
        c = create_app(s.services).test_client()
        sign_in(c, "alice")
        assert "Tracing is off" in c.get("/traces").text


# ---- in a real browser ---------------------------------------------------------------------------------


def test_the_console_shows_a_decisions_trace_in_chromium(browser: Browser, tmp_path: Path) -> None:
    from .browserkit import shoot, signed_in

    config = make_config(
        tmp_path, console_enabled=True, console_listen="127.0.0.1:0", telemetry=TelemetrySettings(enabled=True)
    )
    with RunningSidecar(config, with_console=True) as s:
        add_reviewers(s, ("alice",))
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        trace_id, md = traceparent()
        r = s.as_agent("agent-7").stub.CheckAction(check(agent_id="agent-7", context={"cost": 140}), metadata=md)
        s.services.decisions.flush()
        url = s.services.health["console_url"]
        page, watch = signed_in(browser, url, "alice")
        page.goto(f"{url}/")
        page.locator("tr", has_text="Cost 140 is over the cap").get_by_role("link", name="trace").click()
        expect(page).to_have_url(f"{url}/traces/{trace_id}?decision={r.decision_id}")
        rows = page.locator("#waterfall tbody tr.span")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-span", "outrider.v1.SupervisorService/CheckAction")
        expect(rows.nth(1)).to_have_attribute("data-span", "guardrail cap")
        bar = rows.nth(1).locator("svg.bar rect")
        assert bar.bounding_box() is not None and bar.bounding_box()["width"] > 0  # type: ignore[index]
        rows.nth(1).locator("summary").click()
        expect(rows.nth(1).locator("table.attrs")).to_contain_text("Cost 140 is over the cap")
        page.goto(f"{url}/traces?agent=agent-7")
        expect(page.locator("#traces-table tbody tr")).to_have_count(1)
        shoot(page, "console-traces.png", tmp_path)
        page.goto(f"{url}/traces/{trace_id}")
        shoot(page, "console-trace.png", tmp_path)
        assert watch.dialogs == [] and watch.csp == []


def test_history_and_the_decision_log_on_an_approval_link_to_traces(
    sidecar: RunningSidecar, client: FlaskClient
) -> None:
    add_hitl(sidecar)
    approval_id = ask(sidecar)  # also a decision (pending) in the log, for the same agent and action
    approval = sidecar.services.approvals.get(approval_id)
    sidecar.services.approvals.decide(approval_id, Reviewer("alice", "approver"), False, "no")
    history = client.get("/history").text
    assert f'href="/traces/{approval.trace_id}"' in history
    assert f"{JAEGER_UI}/trace/{approval.trace_id}" in history
    assert sidecar.services.decisions.flush(10)
    detail = client.get(f"/approvals/{approval_id}").text
    decision = sidecar.services.decisions.list(DecisionFilter(agent_id="agent-1"), 10, "").items[0]
    assert f'href="/traces/{decision.trace_id}?decision={decision.decision_id}"' in detail
