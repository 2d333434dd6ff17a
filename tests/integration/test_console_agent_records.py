"""The Agents page's record editor: admins set an agent's operator-owned record (group, labels,
capabilities) over the console; others cannot; bad input names the problem; every change is audited as the
reviewer; agent strings stay escaped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from console import create_app
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.rpc import check, guardrail

from .consolekit import add_reviewers, htmx_post, sign_in
from .harness import RunningSidecar, make_config

XSS = "<script>alert(1)</script>"


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


def test_admins_set_records_that_the_chain_enforces(sidecar: RunningSidecar, app: Flask) -> None:
    s = sidecar
    s.stub.AddGuardrail(guardrail("interns", "action_list", deny=["shell.*"], groups=["interns"]))
    c, token = signed_in(app, "alice")  # an approver, not an admin
    assert "Register an agent" not in c.get("/agents").text
    assert c.get("/agents/record").status_code == 403
    assert htmx_post(c, "/agents/record", token, agent="mallory", group="interns").status_code == 403

    c, token = signed_in(app, "ada")
    assert "Register an agent" in c.get("/agents").text
    assert c.post("/agents/record", data={"agent": "mallory", "group": "ops"}).status_code == 400  # no CSRF token
    assert s.services.agents.group_of("mallory") is None
    form = c.get("/agents/record", headers={"HX-Request": "true"})
    assert form.status_code == 200 and 'name="labels"' in form.text
    r = htmx_post(c, "/agents/record", token, agent="mallory", group="interns", labels="owner=alice\n",
                  capabilities="read, search")  # fmt: skip
    assert r.status_code == 200 and "Registered mallory in interns." in r.text and 'id="agents-live"' in r.text
    assert not s.stub.CheckAction(check("mallory", "shell.exec")).allowed
    a = s.stub.GetAgent(pb.GetAgentRequest(agent_id="mallory")).agent
    assert (a.group, dict(a.labels), list(a.capabilities)) == ("interns", {"owner": "alice"}, ["read", "search"])
    edit = c.get("/agents/record?agent=mallory", headers={"HX-Request": "true"}).text
    assert "owner=alice" in edit and "read, search" in edit and "readonly" in edit
    assert "Edit the record of mallory" in c.get("/agents").text

    r = htmx_post(c, "/agents/record", token, agent="mallory", group="ops", labels="", capabilities="read")
    assert r.status_code == 200 and "Saved mallory in ops." in r.text
    assert s.stub.CheckAction(check("mallory", "shell.exec")).allowed
    actions = [(r.actor, r.action) for r in s.services.audit.repo.iter_all() if r.subject == "mallory"]
    assert actions == [("reviewer:ada", "agent.register"), ("reviewer:ada", "agent.update")]


def test_bad_records_are_refused_by_name_and_escaped(sidecar: RunningSidecar, app: Flask) -> None:
    c, token = signed_in(app, "ada")
    r = htmx_post(c, "/agents/record", token, agent="evil:db")
    assert r.status_code == 400 and "may not contain" in r.text
    r = htmx_post(c, "/agents/record", token, agent="w1", labels="owner")
    assert r.status_code == 400 and "labels line 1: use key=value" in r.text
    r = htmx_post(c, "/agents/record", token, agent="w1", labels=f"note={XSS}")
    assert r.status_code == 200 and XSS not in r.text and "&lt;script&gt;" in r.text
    assert c.get("/agents/record?agent=nobody").status_code == 404
    assert sidecar.services.agents.group_of("evil:db") is None
