"""The pending list for triage: per row the agent, action, the first context keys (masked), guardrail,
reversibility, age, time left and k of N approvals; filters by agent, action and guardrail; sorting by age
or time left; the pending count in the tab title and in the live stream; the same call asked again under
other request ids is one row."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from console import create_app
from outrider.v1 import supervisor_service_pb2 as pb

from .consolekit import add_reviewers, first_sse_update, sign_in
from .harness import RunningSidecar, make_config
from .rpc import check, guardrail


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path), with_scheduler=False) as s:
        s.stub.AddGuardrail(guardrail("deploys", "hitl", patterns=["deploy"], min_approvals=2))
        s.stub.AddGuardrail(guardrail("deletes", "hitl", patterns=["delete"], timeout=600))
        s.stub.AddGuardrail(guardrail("refunds", "hitl", patterns=["refund"], timeout=60))
        add_reviewers(s)
        yield s


@pytest.fixture
def app(sidecar: RunningSidecar) -> Flask:
    app = create_app(sidecar.services)
    app.testing = True
    return app


def ask(s: RunningSidecar, agent: str, action: str, context: dict[str, Any], request_id: str = "") -> str:
    r = s.stub.CheckAction(
        check(
            agent_id=agent, action=action, context=context, request_id=request_id, wait_mode=pb.WAIT_MODE_NON_BLOCKING
        )
    )
    assert r.approval.approval_id, r
    return r.approval.approval_id  # type: ignore[no-any-return]


def row_ids(html: str) -> list[str]:
    return re.findall(r'<tr id="row-(apr_[0-9a-f]+)"', html)


def row(html: str, approval_id: str) -> str:
    start = html.index(f'<tr id="row-{approval_id}"')
    return html[start : html.index("</tr>", start)]


def test_each_row_says_what_is_asked_and_how_urgent(sidecar: RunningSidecar, app: Flask) -> None:
    deploy = ask(
        sidecar,
        "web-agent",
        "deploy frontend",
        {"env": "prod", "api_key": "sk-live-9", "replicas": 6, "version": "2.4.1", "zone": "eu"},
    )
    refund = ask(sidecar, "billing-agent", "refund batch", {"count": 42})
    c = app.test_client()
    sign_in(c, "alice")
    page = c.get("/approvals").text
    assert "<title>(2) Pending approvals · Outrider console</title>" in page
    r = row(page, deploy)
    assert "web-agent" in r and "deploy frontend" in r and "deploys" in r
    # The first three context keys (sorted), masked as everywhere; the rest counted.
    assert re.findall(r"<dt>([^<]+)</dt><dd>([^<]+)</dd>", r) == [
        ("api_key", "***"),
        ("env", "prod"),
        ("replicas", "6"),
    ]
    assert "sk-live-9" not in page and "+2 more" in r
    assert re.search(r'class="badge level-[a-z_]+"', r)
    assert "0 of 2" in r and "never" in r  # no timeout on deploys
    r = row(page, refund)
    assert "0 of 1" in r and 'data-until="' in r and "in " in r


def test_filters_and_sorting(sidecar: RunningSidecar, app: Flask) -> None:
    first = ask(sidecar, "web-agent", "deploy api", {"n": 1})  # oldest, never expires
    slow = ask(sidecar, "janitor", "delete backups", {"n": 2})  # 10 minutes left
    soon = ask(sidecar, "billing-agent", "refund batch", {"n": 3})  # 1 minute left
    c = app.test_client()
    sign_in(c, "alice")
    assert row_ids(c.get("/approvals").text) == [first, slow, soon]  # waiting longest first
    assert row_ids(c.get("/approvals?sort=time_left").text) == [soon, slow, first]  # never: last
    assert row_ids(c.get("/approvals?agent=janitor").text) == [slow]
    assert row_ids(c.get("/approvals?action=refund+batch").text) == [soon]
    assert row_ids(c.get("/approvals?guardrail=deploys").text) == [first]
    none = c.get("/approvals?guardrail=deploys&agent=janitor").text
    assert row_ids(none) == [] and "No waiting request matches the filters." in none
    assert "(3) Pending approvals" in none  # the title counts everything waiting
    page = c.get("/approvals?agent=janitor&sort=time_left").text
    assert '<option value="janitor" selected>' in page and '<option value="time_left" selected>' in page
    # The live stream keeps the page's filters.
    assert 'sse-connect="/events/pending?agent=janitor&amp;sort=time_left"' in page
    live = first_sse_update(c, "/events/pending?agent=janitor&sort=time_left")
    assert row_ids(live) == [slow] and 'data-total="3"' in live
    assert c.get("/approvals?sort=<script>").status_code == 200  # an unknown sort is the default


def test_the_live_count_follows_new_and_decided_requests(sidecar: RunningSidecar, app: Flask) -> None:
    c = app.test_client()
    sign_in(c, "alice")
    assert 'data-total="0"' in first_sse_update(c, "/events/pending")
    approval_id = ask(sidecar, "web-agent", "refund one", {"n": 1})
    ask(sidecar, "web-agent", "refund two", {"n": 2})
    assert 'data-total="2"' in first_sse_update(c, "/events/pending")
    sidecar.services.approvals.cancel(approval_id, "operator:test", "not needed")
    live = first_sse_update(c, "/events/pending")
    assert 'data-total="1"' in live and approval_id not in live


def test_the_same_call_asked_again_is_one_row(sidecar: RunningSidecar, app: Flask) -> None:
    context = {"env": "prod"}
    first = ask(sidecar, "retry-agent", "deploy web", context, request_id="try-1")
    again = ask(sidecar, "retry-agent", "deploy web", context, request_id="try-2")  # a new request id
    same = ask(sidecar, "retry-agent", "deploy web", context, request_id="try-1")  # re-attaches
    other = ask(sidecar, "retry-agent", "deploy web", {"env": "staging"}, request_id="try-3")
    assert same == first and again != first
    c = app.test_client()
    sign_in(c, "alice")
    page = c.get("/approvals").text
    assert row_ids(page) == [first, other]
    assert "asked 2\u00d7" in row(page, first) and "asked" not in row(page, other)
    assert "(3) Pending approvals" in page
