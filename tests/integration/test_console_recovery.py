"""The Agents, Breakers and Budgets pages through Flask's test client over a real sidecar: sessions, roles,
CSRF, the kill switch's confirmation step, breaker and budget controls, escaping of agent strings, partials
and the live streams (one VersionHub, one topic per page)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from google.protobuf import duration_pb2
from markupsafe import escape

from console import create_app
from console.sse import VersionHub
from outrider.v1 import common_pb2, recovery_pb2, safeguard_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as supb
from server.domain.safeguards.breakers import BreakerState

from .consolekit import add_reviewers, csrf_of, htmx_post, sign_in
from .harness import RunningSidecar, make_config
from .recovery_sim import FAILURE, SimAgent, register

KILL_CMD = recovery_pb2.CONTROL_COMMAND_TYPE_KILL
HANDOFF_CMD = recovery_pb2.CONTROL_COMMAND_TYPE_HANDOFF
REASONS = ["BEHAVIORAL_DRIFT", "RATE_LIMIT", "RING_BREACH", "MANUAL", "QUARANTINE_TIMEOUT", "SESSION_TIMEOUT"]
XSS = '<script>alert(1)</script>"onmouseover=alert(2) x="'
XSS_IMG = "<img src=x onerror=alert(3)>"
PAGES = ["/agents", "/breakers", "/budgets"]
STREAMS = ["/events/agents", "/events/breakers", "/events/budgets"]


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path)) as s:
        add_reviewers(s)
        yield s


@pytest.fixture
def app(sidecar: RunningSidecar) -> Flask:
    app = create_app(sidecar.services)
    app.testing = True
    return app


def signed_in(app: Flask, name: str) -> tuple[FlaskClient, str]:
    c = app.test_client()
    return c, sign_in(c, name)


def registered(s: RunningSidecar, agent_id: str) -> bool:
    return s.services.agents.group_of(agent_id) is not None


def register_labelled(s: RunningSidecar, agent_id: str, **labels: str) -> None:
    agent = common_pb2.Agent(agent_id=agent_id, group="web", labels=labels)
    s.stub.RegisterAgent(supb.RegisterAgentRequest(agent=agent))


def open_breaker(s: RunningSidecar, key: str, failures: int = 3) -> None:
    """Real AcquirePermit / ReportOutcome calls, each failing, until the default threshold opens it."""
    for _ in range(failures):
        permit = s.safeguard.AcquirePermit(spb.AcquirePermitRequest(key=key))
        assert permit.permitted
        s.safeguard.ReportOutcome(
            spb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=safeguard_pb2.CALL_OUTCOME_FAILURE)
        )


def kills(s: RunningSidecar) -> list[Any]:
    return list(s.services.recovery.kill_history("", 50, "").items)


def audit(s: RunningSidecar) -> set[tuple[str, str, str]]:
    return {(rec.actor, rec.action, rec.subject) for rec in s.services.audit.repo.iter_all()}


class Stream:
    """A live stream read chunk by chunk (bounded: each chunk comes within the heartbeat interval)."""

    def __init__(self, c: FlaskClient, path: str) -> None:
        self.response = c.get(path, buffered=False, headers={"Accept": "text/event-stream"})
        assert self.response.status_code == 200 and self.response.mimetype == "text/event-stream"
        self.chunks = iter(self.response.response)
        self.text = ""

    def update(self, until: Callable[[str], bool] = lambda h: True, timeout: float = 30.0) -> str:
        """The HTML of the next `update` event whose HTML satisfies `until`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while "event: update\n" in self.text and "\n\n" in self.text.split("event: update\n", 1)[1]:
                _, rest = self.text.split("event: update\n", 1)
                body, self.text = rest.split("\n\n", 1)
                fragment = "\n".join(line.removeprefix("data: ") for line in body.split("\n"))
                if until(fragment):
                    return fragment.strip()
            chunk = next(self.chunks)
            self.text += chunk.decode() if isinstance(chunk, bytes) else chunk
        raise AssertionError(f"no matching update within {timeout}s")

    def close(self) -> None:
        self.response.close()


# ---- sessions and roles ------------------------------------------------------------------------


def test_every_page_and_stream_needs_a_session(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    c = app.test_client()
    for path in [*PAGES, "/agents/kill?agent=agent-1"]:
        r = c.get(path)
        assert r.status_code == 303 and r.headers["Location"].startswith("/login?next="), path
    for path in STREAMS:
        assert c.get(path, headers={"Accept": "text/event-stream"}).status_code == 401, path
    posts = {
        "/agents/kill": {"agent": "agent-1", "reason": "MANUAL", "confirm": "yes"},
        "/breakers/control": {"key": "agent-1:api", "op": "force_open"},
        "/budgets/allocate": {"agent": "agent-1", "tokens": "100"},
    }
    for path, data in posts.items():
        assert c.post(path, data=data).status_code == 401, path
    assert registered(sidecar, "agent-1") and kills(sidecar) == []
    assert sidecar.services.breakers.list(0, "", 10, "").items == []


def test_viewers_and_approvers_see_the_pages_without_controls(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    sidecar.services.breakers.acquire("agent-1:api")
    for name in ("victor", "alice"):
        c, _ = signed_in(app, name)
        pages = {path: c.get(path) for path in PAGES}
        assert all(r.status_code == 200 for r in pages.values())
        nav = pages["/agents"].text.split("</nav>", 1)[0]
        assert all(f'href="{path}"' in nav for path in PAGES)
        assert "agent-1" in pages["/agents"].text and "Kill…" not in pages["/agents"].text
        assert "agent-1:api" in pages["/breakers"].text and "Force open" not in pages["/breakers"].text
        assert "Allocate tokens" not in pages["/budgets"].text
    c, _ = signed_in(app, "ada")
    assert "Kill…" in c.get("/agents").text
    assert "Force open agent-1:api" in c.get("/breakers").text
    assert "Allocate tokens" in c.get("/budgets").text


def test_only_admins_kill_force_or_allocate(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    for name in ("victor", "alice"):
        c, token = signed_in(app, name)
        assert c.get("/agents/kill?agent=agent-1").status_code == 403
        r = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="MANUAL", confirm="yes")
        assert r.status_code == 403 and "admin role" in r.text
        assert htmx_post(c, "/breakers/control", token, key="agent-1:api", op="force_open").status_code == 403
        assert htmx_post(c, "/budgets/allocate", token, agent="agent-1", tokens="100").status_code == 403
    assert registered(sidecar, "agent-1") and kills(sidecar) == []
    assert sidecar.services.breakers.list(0, "", 10, "").items == []
    assert sidecar.services.budgets.list(10, "")[0].items == []


def test_actions_without_the_csrf_token_are_400(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    c, token = signed_in(app, "ada")
    posts = {
        "/agents/kill": {"agent": "agent-1", "reason": "MANUAL", "confirm": "yes"},
        "/breakers/control": {"key": "agent-1:api", "op": "force_open"},
        "/budgets/allocate": {"agent": "agent-1", "tokens": "100"},
    }
    for path, data in posts.items():
        for headers in ({}, {"X-CSRF-Token": "wrong"}, {"HX-Request": "true"}):
            r = c.post(path, data=data, headers=headers)
            assert r.status_code == 400 and "CSRF token" in r.text, (path, headers)
        assert c.post(path, data={**data, "csrf_token": token + "x"}).status_code == 400
    assert registered(sidecar, "agent-1") and kills(sidecar) == []
    assert sidecar.services.breakers.list(0, "", 10, "").items == []
    assert sidecar.services.budgets.list(10, "")[0].items == []


# ---- the kill switch -------------------------------------------------------------------------------


def test_kill_confirms_first_then_kills_an_attached_agent(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1", "web")
    c, token = signed_in(app, "ada")
    with SimAgent(sidecar.as_agent("agent-1").recovery, "agent-1") as agent:
        agent.wait_accepted()
        row = c.get("/agents").text.split('data-agent-id="agent-1"', 1)[1].split("</tr>", 1)[0]
        assert "connected</span> since" in row and "not connected" not in row

        form = c.get("/agents/kill?agent=agent-1", headers={"HX-Request": "true"}).text
        assert re.findall(r"<option(?: selected)?>([A-Z_]+)</option>", form) == REASONS
        assert "<option selected>MANUAL</option>" in form and 'name="details"' in form

        step = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="RATE_LIMIT", details="too chatty")
        assert step.status_code == 200 and "Confirm: kill agent-1?" in step.text
        assert 'name="confirm" value="yes"' in step.text and "connected: it is sent KILL" in step.text
        assert registered(sidecar, "agent-1") and kills(sidecar) == [] and agent.of(KILL_CMD) == []

        back = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="RATE_LIMIT", details="too chatty",
                         confirm="edit")  # fmt: skip
        assert "<option selected>RATE_LIMIT</option>" in back.text and ">too chatty</textarea>" in back.text

        done = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="RATE_LIMIT", details="too chatty",
                         confirm="yes")  # fmt: skip
        assert done.status_code == 200 and "Killed agent-1" in done.text
        assert '<dd id="kill-terminated">yes (ok)</dd>' in done.text
        assert agent.of(KILL_CMD)[0].kill.reason == recovery_pb2.KILL_REASON_RATE_LIMIT
        # The history below updates at once (out of band), before the stream sends it.
        live = done.text.split('<div id="agents-live" hx-swap-oob="true">', 1)[1]
        assert "reviewer:ada" in live and "too chatty" in live and 'data-agent-id="agent-1"' not in live
    [k] = kills(sidecar)
    assert (k.agent_id, k.reason.name, k.requested_by, k.request_details, k.terminated) == (
        "agent-1", "RATE_LIMIT", "reviewer:ada", "too chatty", True,
    )  # fmt: skip
    assert k.kill_id in done.text and not registered(sidecar, "agent-1")
    assert ("reviewer:ada", "kill.start", "agent-1") in audit(sidecar)


def test_kill_refuses_bad_input_and_unknown_agents(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    c, token = signed_in(app, "ada")
    r = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="BORED", confirm="yes")
    assert r.status_code == 400 and "reason must be one of BEHAVIORAL_DRIFT" in r.text and 'name="details"' in r.text
    r = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="MANUAL", details="x" * 2001, confirm="yes")
    assert r.status_code == 400 and "at most 2000 characters" in r.text
    assert htmx_post(c, "/agents/kill", token, agent="ghost", reason="MANUAL", confirm="yes").status_code == 404
    assert c.get("/agents/kill?agent=ghost").status_code == 404
    assert registered(sidecar, "agent-1") and kills(sidecar) == []
    # Without htmx the steps are whole pages, and an agent that is not connected is reported as such.
    page = c.post("/agents/kill", data={"agent": "agent-1", "reason": "MANUAL", "csrf_token": token}).text
    assert page.startswith("<!doctype html>") and "Confirm: kill agent-1?" in page and "not connected" in page
    done = c.post("/agents/kill", data={"agent": "agent-1", "reason": "MANUAL", "confirm": "yes", "csrf_token": token})
    assert done.status_code == 200 and '<dd id="kill-terminated">no (not connected)</dd>' in done.text


def test_kill_history_shows_handoffs_and_escalations_are_highlighted(sidecar: RunningSidecar, app: Flask) -> None:
    for agent_id in ("victim", "refuser", "taker", "drifter"):
        register(sidecar, agent_id)
    for agent_id in ("refuser", "taker"):
        sidecar.recovery.RegisterSubstitute(rpb.RegisterSubstituteRequest(session_id="sess", agent_id=agent_id))
    refuse = lambda cmd: (FAILURE, "busy") if cmd.type == HANDOFF_CMD else None  # noqa: E731
    undo = safeguard_pb2.CompensatingAction(description="recall the parcel", action="cancel_shipment")
    with (
        SimAgent(sidecar.as_agent("refuser").recovery, "refuser", refuse) as refuser,
        SimAgent(sidecar.as_agent("taker").recovery, "taker") as taker,
    ):
        refuser.wait_accepted()
        taker.wait_accepted()
        steps = [recovery_pb2.SagaStep(saga_id="order-9", step_id="s1", action="ship")]
        request = rpb.KillRequest(
            agent_id="victim", session_id="sess", reason=recovery_pb2.KILL_REASON_MANUAL, in_flight_steps=steps
        )
        sidecar.recovery.Kill(request, timeout=30)
    lonely = [recovery_pb2.SagaStep(saga_id="order-7", step_id="s2", action="ship", compensation=[undo])]
    request = rpb.KillRequest(
        agent_id="refuser", session_id="alone", reason=recovery_pb2.KILL_REASON_RING_BREACH, in_flight_steps=lonely
    )
    sidecar.recovery.Kill(request, timeout=30)
    # escalate_after 1 (below max_retries): the second attempt escalates.
    no_cooldown = duration_pb2.Duration()
    policy = recovery_pb2.RecoveryPolicy(group="default", max_retries=5, escalate_after=1, cooldown=no_cooldown)
    sidecar.recovery.SetRecoveryPolicy(rpb.SetRecoveryPolicyRequest(policy=policy))
    for reason in ("slow answers", "still slow"):
        sidecar.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="drifter", reason=reason))

    c, _ = signed_in(app, "victor")
    page = c.get("/agents", headers={"HX-Request": "true"}).text
    assert page.lstrip().startswith('<div id="agents-live">')
    kill_rows = {m.group(1): m.group(2) for m in re.finditer(r'data-kill-id="([^"]+)">(.*?)</tr>', page, re.S)}
    victim, refused = (next(v for v in kill_rows.values() if f"<td>{a}" in v) for a in ("victim", "refuser"))
    assert '<span class="handoff-handed_off">HANDED_OFF</span>' in victim and "→ taker" in victim
    assert 'tried refuser: <span class="handoff-failed">FAILED</span> (handoff failure: busy)' in victim
    assert "1 of 1 handed off" in victim
    assert '<span class="handoff-compensated">COMPENSATED</span>' in refused and "RING_BREACH" in refused
    assert "compensation: recall the parcel (<code>cancel_shipment</code>)" in refused
    assert "compensation triggered" in refused
    drifter = page.split('data-agent-id="drifter"', 1)[0].rsplit("<tr", 1)[1]
    assert 'class="agent escalated"' in drifter
    assert '<strong class="badge escalated">escalated</strong>' in page.split('data-agent-id="drifter"', 1)[1]
    escalations = page.split('id="escalations"', 1)[1].split("</section>", 1)[0]
    assert "<strong>drifter</strong>" in escalations and "still slow" in escalations
    assert re.search(r'<tr class="attempt escalation">\s*<td>[^<]+</td><td>drifter</td>\s*<td>ESCALATE', page)
    assert re.search(r'<tr class="attempt">\s*<td>[^<]+</td><td>drifter</td>\s*<td>RESTART', page)


# ---- breakers and budgets -------------------------------------------------------------------------


def test_admin_forces_and_resets_breakers(sidecar: RunningSidecar, app: Flask) -> None:
    c, token = signed_in(app, "ada")
    r = htmx_post(c, "/breakers/control", token, key="agent-1:db", op="force_open", reason="maintenance")
    assert r.status_code == 200 and escape("Forced open 'agent-1:db': it is now OPEN.") in r.text
    assert '<div id="breakers-live" hx-swap-oob="true">' in r.text  # the table updates at once
    b = sidecar.services.breakers.get("agent-1:db")
    assert (b.state, b.forced) == (BreakerState.OPEN, True)
    r = htmx_post(c, "/breakers/control", token, key="agent-1:db", op="force_close")
    assert "it is now CLOSED" in r.text and sidecar.services.breakers.get("agent-1:db").forced
    r = htmx_post(c, "/breakers/control", token, key="agent-1:db", op="reset")
    assert escape("Reset 'agent-1:db': it is now CLOSED.") in r.text
    assert not sidecar.services.breakers.get("agent-1:db").forced
    actions = {(actor, action) for actor, action, subject in audit(sidecar) if subject == "agent-1:db"}
    assert {("reviewer:ada", f"breaker.{op}") for op in ("force_open", "force_close", "reset")} <= actions
    r = htmx_post(c, "/breakers/control", token, key="nope", op="reset")
    assert r.status_code == 404 and escape("no circuit breaker has key 'nope'") in r.text
    assert htmx_post(c, "/breakers/control", token, key="agent-1:db", op="explode").status_code == 400
    assert htmx_post(c, "/breakers/control", token, key="", op="force_open").status_code == 400
    # Without htmx: post/redirect/get, the outcome flashed on the page.
    r = c.post("/breakers/control", data={"key": "agent-1:db", "op": "force_open", "csrf_token": token})
    assert (r.status_code, r.headers["Location"]) == (303, "/breakers")
    assert "Forced open" in c.get("/breakers").text


def test_breaker_page_shows_state_counts_and_changes(sidecar: RunningSidecar, app: Flask) -> None:
    open_breaker(sidecar, "agent-2:payments")
    open_breaker(sidecar, "agent-3:search", failures=1)
    sidecar.services.breakers.events.flush()
    c, _ = signed_in(app, "victor")
    page = c.get("/breakers", headers={"HX-Request": "true"}).text
    opened = page.split('data-key="agent-2:payments">', 1)[1].split("</tr>", 1)[0]
    assert '<strong class="breaker-state">OPEN</strong>' in opened and "half-open at" in opened
    assert "<td>3 of 3</td>" in opened and "<td>2</td>" in opened  # failures, generation
    closed = page.split('data-key="agent-3:search">', 1)[1].split("</tr>", 1)[0]
    assert '<strong class="breaker-state">CLOSED</strong>' in closed and "<td>1 of 3</td>" in closed
    changes = page.split('id="breaker-changes"', 1)[1]
    assert re.search(r"agent-2:payments</td>\s*<td>CLOSED → OPEN</td>", changes)


def test_admin_allocates_and_usage_shows_as_meters(sidecar: RunningSidecar, app: Flask) -> None:
    c, token = signed_in(app, "ada")
    r = htmx_post(c, "/budgets/allocate", token, agent="agent-1", tokens="1000", priority="HIGH")
    assert r.status_code == 200 and "Allocated 1000 tokens to agent-1 (HIGH)" in r.text
    assert '<div id="budgets-live" hx-swap-oob="true">' in r.text
    a = sidecar.services.budgets.get("agent-1")
    assert (a.allocated, a.priority.name) == (1000, "HIGH")
    assert ("reviewer:ada", "budget.allocate", "agent-1") in audit(sidecar)
    sidecar.safeguard.Consume(spb.ConsumeRequest(agent_id="agent-1", tokens=950))
    sidecar.services.budgets.events.flush()
    page = c.get("/budgets").text
    row = page.split('data-agent-id="agent-1">', 1)[1].split("</tr>", 1)[0]
    assert '<meter min="0" max="100" low="75" high="90" optimum="0" value="95.0"' in row
    assert '<strong class="badge warned">warned</strong>' in row and '<td class="used">950</td>' in row
    assert '<dd id="global-used">950</dd>' in page and '<dd id="global-remaining">999050</dd>' in page
    signals = page.split('id="budget-signals"', 1)[1]
    assert "<strong>SIGWARN</strong>" in signals and "950 of 1000" in signals
    assert " style=" not in page  # the CSP forbids inline styles: bars are <meter> elements
    for bad, why in (
        ({"tokens": "0"}, "tokens must be a positive number"),
        ({"tokens": "lots"}, "tokens must be a whole number"),
        ({"tokens": "5", "priority": "URGENT"}, "priority must be one of LOW"),
        ({"tokens": "5", "agent": "bad agent"}, "has characters outside"),
    ):
        r = htmx_post(c, "/budgets/allocate", token, **{"agent": "agent-1", **bad})
        assert r.status_code == 400 and why in r.text, bad
    assert sidecar.services.budgets.get("agent-1").used == 950


def test_a_separate_console_shows_but_refuses_changes(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    sidecar.services.health["console_alone"] = True
    c, token = signed_in(app, "ada")
    for path in PAGES:
        assert "runs apart from the sidecar" in c.get(path).text, path
    r = htmx_post(c, "/agents/kill", token, agent="agent-1", reason="MANUAL", confirm="yes")
    assert r.status_code == 409 and "runs apart from the sidecar" in r.text
    assert htmx_post(c, "/breakers/control", token, key="agent-1:api", op="force_open").status_code == 409
    assert htmx_post(c, "/budgets/allocate", token, agent="agent-1", tokens="100").status_code == 409
    assert registered(sidecar, "agent-1") and kills(sidecar) == []
    assert sidecar.services.breakers.list(0, "", 10, "").items == []


# ---- agent strings are untrusted ----------------------------------------------------------------


def test_agent_strings_are_escaped_on_every_page_and_stream(sidecar: RunningSidecar, app: Flask) -> None:
    register_labelled(sidecar, "agent-x", note=XSS, owner=XSS_IMG)
    register(sidecar, "agent-y")
    sidecar.recovery.TriggerRecovery(rpb.TriggerRecoveryRequest(agent_id="agent-x", reason=XSS))
    open_breaker(sidecar, f"agent-x:{XSS}")
    sidecar.safeguard.Allocate(spb.AllocateRequest(agent_id="agent-x", tokens=100))
    c, token = signed_in(app, "ada")
    htmx_post(c, "/breakers/control", token, key=XSS_IMG, op="force_open", reason=XSS)
    step = htmx_post(c, "/agents/kill", token, agent="agent-y", reason="MANUAL", details=XSS + XSS_IMG)
    done = htmx_post(c, "/agents/kill", token, agent="agent-y", reason="MANUAL", details=XSS + XSS_IMG, confirm="yes")
    sidecar.services.breakers.events.flush()
    pages = [step.text, done.text]
    for path in PAGES:
        pages += [c.get(path).text, c.get(path, headers={"HX-Request": "true"}).text]
    for path in STREAMS:
        stream = Stream(c, path)
        try:
            pages.append(stream.update())
        finally:
            stream.close()
    assert app.extensions["outrider.sse"].listeners == 0  # closing the responses released the streams
    for page in pages:
        for raw in ("<script>alert", "<img src=x", '"onmouseover=alert'):
            assert raw not in page
        assert all(' src="' in tag for tag in re.findall(r"<script[^>]*>", page))
        assert " style=" not in page
    joined = "\n".join(pages)
    assert escape(XSS) in joined and escape(XSS_IMG) in joined
    agents_page = pages[2]
    assert f"<code>note={escape(XSS)}</code>" in agents_page  # the label, as text
    assert f"<td>{escape(XSS)}</td>" in agents_page  # the recovery reason, as text
    assert f'<q class="details">{escape(XSS + XSS_IMG)}</q>' in agents_page  # the kill's details
    breakers_page = pages[4]
    assert f'<td class="key">agent-x:{escape(XSS)}</td>' in breakers_page
    assert f'<td class="key">{escape(XSS_IMG)}</td>' in breakers_page


# ---- partials and live streams -----------------------------------------------------------------------


def test_views_answer_partials_to_htmx_and_pages_otherwise(app: Flask) -> None:
    c, _ = signed_in(app, "victor")
    for path, live_id in zip(PAGES, ("agents-live", "breakers-live", "budgets-live"), strict=True):
        full, part = c.get(path).text, c.get(path, headers={"HX-Request": "true"}).text
        assert full.startswith("<!doctype html>") and f'sse-connect="/events/{path[1:]}"' in full
        assert "<html" not in part and part.lstrip().startswith(f'<div id="{live_id}">'), path
        assert f'<div id="{live_id}">' in full


def test_streams_send_the_live_sections_out_of_band_as_things_change(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    c, _ = signed_in(app, "victor")
    # One stream at a time: a test client runs each in this thread (the console gives each its own).
    agents = Stream(c, "/events/agents")
    try:
        first = agents.update()
        assert first.startswith('<div id="agents-live" hx-swap-oob="true">') and "not connected" in first
        with SimAgent(sidecar.as_agent("agent-1").recovery, "agent-1") as agent:
            agent.wait_accepted()
            attached = agents.update(lambda h: "connected</span> since" in h)  # the stream's own refresh
            assert 'data-agent-id="agent-1"' in attached
    finally:
        agents.close()
    breakers = Stream(c, "/events/breakers")
    try:
        assert breakers.update().startswith('<div id="breakers-live" hx-swap-oob="true">')
        open_breaker(sidecar, "agent-1:api")
        opened = breakers.update(lambda h: '<strong class="breaker-state">OPEN</strong>' in h)
        assert 'data-key="agent-1:api"' in opened
        sidecar.services.breakers.reset("agent-1:api", "operator:test")
        breakers.update(lambda h: "OPEN → CLOSED" in h)
    finally:
        breakers.close()
    assert app.extensions["outrider.sse"].listeners == 0


def test_streams_share_one_limit(sidecar: RunningSidecar) -> None:
    app = create_app(sidecar.services, max_streams=1)
    c1, c2 = app.test_client(), app.test_client()
    sign_in(c1, "victor")
    sign_in(c2, "alice")
    first = Stream(c1, "/events/budgets")
    try:
        first.update()
        r = c2.get("/events/agents")
        assert r.status_code == 503 and r.headers["Retry-After"]
    finally:
        first.close()
    second = Stream(c2, "/events/agents")
    second.close()


def test_version_hub_watches_each_topic_apart() -> None:
    counters = {"approvals": 0, "other": 0}
    reads = {"approvals": 0, "other": 0}

    def reader(topic: str) -> Callable[[], int]:
        def read() -> int:
            reads[topic] += 1
            return counters[topic]

        return read

    hub = VersionHub(reader("approvals"), max_streams=2, interval=30.0)  # only pokes make it read again
    hub.watch("other", reader("other"))
    try:
        with pytest.raises(KeyError):
            hub.subscribe("unknown")
        assert hub.subscribe("other")
        assert hub.wait(None, 5.0, "other") == 0
        assert reads["approvals"] == 0  # nobody listens to approvals: never read
        assert hub.subscribe("approvals") and hub.wait(None, 5.0, "approvals") == 0
        assert not hub.subscribe("other")  # the limit is shared
        counters["other"] = 1
        assert hub.wait(0, 0.05, "other") == 0  # no poll within the interval: unchanged
        hub.poke()
        assert hub.wait(0, 5.0, "other") == 1
        assert hub.wait(0, 0.05, "approvals") == 0  # the other topic did not move
        done = threading.Event()
        threading.Thread(target=lambda: (hub.wait(1, 30.0, "other"), done.set()), daemon=True).start()
        hub.close()
        assert done.wait(30.0)
        assert hub.wait(1, 5.0, "other") is None
    finally:
        hub.close()


def test_csrf_meta_and_forms_carry_the_token(app: Flask) -> None:
    c, token = signed_in(app, "ada")
    for path in PAGES:
        page = c.get(path).text
        assert csrf_of(page) == token
        for form in re.findall(r"<form[^>]*method=\"post\"[^>]*>.*?</form>", page, re.S):
            assert f'name="csrf_token" value="{token}"' in form, (path, form[:200])


def test_admins_reinstate_a_killed_agent(sidecar: RunningSidecar, app: Flask) -> None:
    register(sidecar, "agent-1")
    sidecar.recovery.Kill(rpb.KillRequest(agent_id="agent-1", reason=recovery_pb2.KILL_REASON_MANUAL), timeout=30)
    c, token = signed_in(app, "alice")  # an approver, not an admin
    page = c.get("/agents").text
    assert 'data-contained-id="agent-1"' in page and "Reinstate agent-1" not in page
    assert htmx_post(c, "/agents/reinstate", token, agent="agent-1").status_code == 403
    c, token = signed_in(app, "ada")
    assert "Reinstate agent-1" in c.get("/agents").text
    r = htmx_post(c, "/agents/reinstate", token, agent="agent-1", reason="reviewed")
    assert r.status_code == 200 and "agent-1 is no longer terminated." in r.text
    assert sidecar.services.agents.containment_of("agent-1") is None
    again = htmx_post(c, "/agents/reinstate", token, agent="agent-1")
    assert again.status_code == 409 and "neither terminated nor quarantined" in again.text
    audit = [(r.actor, r.action) for r in sidecar.services.audit.repo.iter_all() if r.subject == "agent-1"]
    assert ("reviewer:ada", "agent.reinstate") in audit
