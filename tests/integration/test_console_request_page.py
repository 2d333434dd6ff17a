"""The request page puts what the agent wants first (action, reversibility, context as a tree, the agent's
recent decisions), then the decision form; its decision panel lists only this request's own decisions;
History marks edited, escalated and timed-out requests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from console import create_app
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.approvals.requests import Reviewer
from tests.fakes import FakeClock

from .consolekit import add_reviewers, sign_in
from .harness import RunningSidecar, make_config
from .rpc import check, guardrail


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sidecar(tmp_path: Path, clock: FakeClock) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path), clock=clock, with_scheduler=False) as s:
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        s.stub.AddGuardrail(
            guardrail("hitl", "hitl", patterns=["deploy"], timeout=60, on_timeout="escalate", escalate_to=["ada"])
        )
        add_reviewers(s)
        yield s


@pytest.fixture
def app(sidecar: RunningSidecar) -> Flask:
    app = create_app(sidecar.services)
    app.testing = True
    return app


def ask(s: RunningSidecar, request_id: str, context: dict[str, Any], agent: str = "agent-rp") -> Any:
    return s.stub.CheckAction(
        check(
            agent_id=agent, action="deploy", context=context, request_id=request_id, wait_mode=pb.WAIT_MODE_NON_BLOCKING
        )
    )


def section(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</table>", start)]


def test_the_decision_panel_lists_only_this_requests_own_decisions(sidecar: RunningSidecar, app: Flask) -> None:
    over = ask(sidecar, "r-over", {"cost": 140})  # blocked by the cap: no request at all
    assert not over.allowed and "over" in over.reason.lower() and not over.approval.approval_id
    first = ask(sidecar, "r-first", {"cost": 10, "env": "prod"}).approval.approval_id
    sidecar.services.approvals.decide(first, Reviewer("bob", "approver"), False, "not on a Friday")
    assert ask(sidecar, "r-first", {"cost": 10, "env": "prod"}).reason == "Rejected by bob: not on a Friday"
    second = ask(sidecar, "r-second", {"cost": 20, "env": "staging"}).approval.approval_id
    ask(sidecar, "r-second", {"cost": 20, "env": "staging"})  # the agent retries while it waits
    sidecar.services.decisions.flush()

    c = app.test_client()
    sign_in(c, "alice")
    page = c.get(f"/approvals/{second}").text
    own = section(page, "own-decisions")
    assert own.count(f"Waiting for approval {second}") == 2  # its call and the retry
    for other in ("not on a Friday", first, "cap", "140"):
        assert other not in own, other
    # The agent's other decisions are still there, under their own heading.
    recent = section(page, "recent-decisions")
    assert "not on a Friday" in recent and over.reason in recent

    page = c.get(f"/approvals/{first}").text
    own = section(page, "own-decisions")
    assert f"Waiting for approval {first}" in own and "Rejected by bob: not on a Friday" in own
    assert second not in own


def test_what_the_agent_wants_comes_before_the_decision_form(sidecar: RunningSidecar, app: Flask) -> None:
    context = {
        "env": "prod",
        "password": "hunter22",
        "target": {"cluster": "eu-1", "replicas": [1, 2, {"zone": "<b>z</b>"}]},
        "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": "bottom"}}}}}}},
    }
    approval_id = ask(sidecar, "r-tree", context).approval.approval_id
    c = app.test_client()
    sign_in(c, "alice")
    page = c.get(f"/approvals/{approval_id}").text
    assert page.index('id="request-h"') < page.index('id="context-tree"') < page.index('id="decide"')
    assert page.index('id="reversibility"') < page.index('id="decide"')
    assert page.index('id="recent-decisions"') < page.index('id="decide"')
    tree = page[page.index('id="context-tree"') : page.index("</div>", page.index('id="context-tree"'))]
    assert '<dt>cluster</dt><dd><span class="value">eu-1</span></dd>' in tree
    assert '<dt>password</dt><dd><span class="value">***</span></dd>' in tree and "hunter22" not in page
    assert "&lt;b&gt;z&lt;/b&gt;" in tree and "<b>z</b>" not in page
    assert "bottom" in tree and tree.count('<dl class="tree">') <= 8  # deep nesting ends as one line of JSON
    level = page[page.index('id="reversibility"') : page.index("</dd>", page.index('id="reversibility"'))]
    assert re.search(r'class="badge level-[a-z_]+"', level)
    # The form still works without JavaScript: a plain POST form.
    assert f'action="/approvals/{approval_id}/decide"' in page


def test_history_marks_edited_escalated_and_timed_out_requests(
    sidecar: RunningSidecar, app: Flask, clock: FakeClock
) -> None:
    approvals = sidecar.services.approvals
    edited = ask(sidecar, "r-edit", {"cost": 30}).approval.approval_id
    approvals.decide(edited, Reviewer("alice", "approver"), True, "smaller", {"cost": 3})
    plain = ask(sidecar, "r-plain", {"cost": 31}).approval.approval_id
    approvals.decide(plain, Reviewer("alice", "approver"), True, "")
    late = ask(sidecar, "r-late", {"cost": 32}).approval.approval_id
    clock.advance(61)
    assert approvals.expire_due() == 1  # escalated to ada
    clock.advance(61)
    assert approvals.expire_due() == 1  # and timed out there too

    c = app.test_client()
    sign_in(c, "alice")
    page = c.get("/history").text
    rows = {
        m.group(1): m.group(0)
        for m in re.finditer(r'<tr class="state-[a-z]+">.*?href="/approvals/(apr_[0-9a-f]+)".*?</tr>', page, re.S)
    }
    assert 'class="badge edited"' in rows[edited] and "escalated" not in rows[edited]
    assert "badge" not in rows[plain]
    assert 'class="badge escalated"' in rows[late] and 'class="badge timed-out"' in rows[late]
    assert "badge edited" not in rows[late]
