"""Helpers of the console tests: reviewers, sign-in through the real form, approvals asked over gRPC."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

from outrider.v1 import supervisor_service_pb2 as pb

from .harness import RunningSidecar
from .rpc import check, guardrail

PASSWORD = "correct horse battery"
# name -> role; "ops" is the group of the approvers.
REVIEWERS = {"ada": "admin", "alice": "approver", "bob": "approver", "victor": "viewer"}
XSS_ACTION = "deploy <script>alert(1)</script>"
XSS_ATTR = '"onmouseover=alert(1) x="'
XSS_CONTEXT = {"note": XSS_ATTR, "<img src=x onerror=alert(1)>": "<script>alert(2)</script>"}


def add_reviewers(s: RunningSidecar, names: tuple[str, ...] = tuple(REVIEWERS)) -> None:
    for name in names:
        s.services.users.add(name, REVIEWERS[name], "ops", PASSWORD, "test")


def add_hitl(s: RunningSidecar, **options: Any) -> None:
    s.stub.AddGuardrail(guardrail("hitl", "hitl", **{"patterns": ["deploy", "delete"], **options}))


def ask(
    s: RunningSidecar, action: str = "deploy", context: dict[str, Any] | None = None, agent: str = "agent-1"
) -> str:
    """A pending approval request, asked over real gRPC without waiting; returns its id."""
    r = s.stub.CheckAction(check(agent_id=agent, action=action, context=context, wait_mode=pb.WAIT_MODE_NON_BLOCKING))
    assert r.approval.approval_id, r
    return r.approval.approval_id


def csrf_of(html: str) -> str:
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', html)
    assert match, "no CSRF meta tag on the page"
    return match.group(1)


def sign_in(client: FlaskClient, name: str, password: str = PASSWORD) -> str:
    """Signs in through the form; returns the session's CSRF token."""
    token = csrf_of(client.get("/login").text)
    r = client.post("/login", data={"username": name, "password": password, "csrf_token": token})
    assert r.status_code == 303, (r.status_code, r.text[:500])
    return csrf_of(client.get("/approvals").text)


def htmx_post(client: FlaskClient, path: str, token: str, **data: str) -> Any:
    return client.post(path, data=data, headers={"HX-Request": "true", "X-CSRF-Token": token})


def first_sse_update(client: FlaskClient, path: str) -> str:
    """The HTML of the first `update` event of a live stream (the stream is then closed)."""
    r = client.get(path, buffered=False, headers={"Accept": "text/event-stream"})
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    chunks: list[str] = []
    try:
        for chunk in r.response:
            chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
            if "event: update" in "".join(chunks):
                break
    finally:
        r.close()
    body = "".join(chunks).split("event: update\n", 1)[1]
    return "\n".join(line.removeprefix("data: ") for line in body.splitlines() if line.startswith("data: "))
