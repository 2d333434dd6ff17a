"""The reviewer console through Flask's test client over a real sidecar: sessions, CSRF, roles, the
sign-in throttle, escaping of agent strings, partials, the live stream and the admin pages."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from flask import Flask
from flask.testing import FlaskClient

from console import create_app
from server.domain.approvals.requests import ApprovalState
from server.domain.guardrails.base import ActionCall, GuardrailSpec
from server.domain.guardrails.hitl import Hitl

from .consolekit import (
    PASSWORD,
    XSS_ACTION,
    XSS_ATTR,
    XSS_CONTEXT,
    add_hitl,
    add_reviewers,
    ask,
    csrf_of,
    htmx_post,
    sign_in,
)
from .harness import RunningSidecar, make_config
from .rpc import guardrail


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path)) as s:
        add_hitl(s)
        add_reviewers(s)
        yield s


@pytest.fixture
def app(sidecar: RunningSidecar) -> Flask:
    app = create_app(sidecar.services)
    app.testing = True
    return app


def client(app: Flask, ip: str = "127.0.0.1") -> FlaskClient:
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = ip
    return c


def state_of(s: RunningSidecar, approval_id: str) -> ApprovalState:
    return s.services.approvals.get(approval_id).state  # type: ignore[no-any-return]


# ---- sessions -------------------------------------------------------------------------------


PAGES = ["/", "/approvals", "/history", "/guardrails", "/tokens", "/users", "/approvals/{id}", "/approvals/{id}/edit"]


def test_every_page_but_login_needs_a_session(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar)
    c = client(app)
    for path in PAGES:
        r = c.get(path.format(id=approval_id))
        assert r.status_code == 303, path
        assert r.headers["Location"].startswith("/login?next="), path
    # htmx fragments are told to navigate rather than get the sign-in page swapped in.
    r = c.get("/approvals", headers={"HX-Request": "true"})
    assert (r.status_code, r.headers["HX-Redirect"]) == (401, "/login?next=/approvals")
    assert c.get("/events/pending", headers={"Accept": "text/event-stream"}).status_code == 401
    assert c.post(f"/approvals/{approval_id}/decide", data={"decision": "approve"}).status_code == 401
    assert state_of(sidecar, approval_id) is ApprovalState.PENDING
    assert c.get("/login").status_code == 200
    assert c.get("/healthz").status_code == 200  # the probe stays public


def test_sign_in_form_cookie_and_sign_out(app: Flask) -> None:
    c = client(app)
    page = c.get("/login").text
    assert '<label for="username">Username</label>' in page
    assert '<label for="password">Password</label>' in page
    assert '<button type="submit">Sign in</button>' in page
    token = csrf_of(page)
    r = c.post("/login", data={"username": "alice", "password": PASSWORD, "csrf_token": token, "next": "/history"})
    assert (r.status_code, r.headers["Location"]) == (303, "/history")
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    assert csrf_of(c.get("/history").text) != token  # a fresh CSRF token per session
    assert "alice (approver)" in c.get("/approvals").text
    token = csrf_of(c.get("/approvals").text)
    assert c.post("/logout", data={"csrf_token": token}).status_code == 303
    assert c.get("/approvals").status_code == 303


EVIL_NEXT = [
    "https://evil.example/",
    "//evil.example/x",
    "/\\evil.example",
    "/\tevil",
    "/\t/evil.example/x",  # browsers drop the tab: //evil.example/x
    "/%09/evil.example/x",  # the same, once more encoded
    "/%2509/evil.example/x",  # and twice
    "/%2F/evil.example",
    "/%5Cevil.example",
    "/\r\nSet-Cookie: pwned=1",  # a CR or LF used to give HTTP 500
    "/%0d%0aSet-Cookie:%20pwned=1",
    "/x\x00y",
    "/\u2028evil",
    "javascript:alert(1)",
    "http:/evil.example",
    " //evil.example",
    "",
]


@pytest.mark.parametrize("evil", EVIL_NEXT)
def test_open_redirects_are_refused(app: Flask, evil: str) -> None:
    c = client(app)
    r = c.get("/login", query_string={"next": evil})
    assert r.status_code == 200
    token = csrf_of(r.text)
    assert 'name="next" value="/approvals"' in r.text
    r = c.post("/login", data={"username": "alice", "password": PASSWORD, "csrf_token": token, "next": evil})
    assert (r.status_code, r.headers["Location"]) == (303, "/approvals"), evil
    # Signed in, the sign-in page sends the reviewer on: to the default page as well.
    r = c.get("/login", query_string={"next": evil})
    assert (r.status_code, r.headers["Location"]) == (303, "/approvals"), evil


@pytest.mark.parametrize("good", ["/history", "/approvals?state=pending&q=a%20b", "/approvals/abc/edit"])
def test_same_origin_paths_are_kept(app: Flask, good: str) -> None:
    c = client(app)
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"username": "alice", "password": PASSWORD, "csrf_token": token, "next": good})
    assert (r.status_code, r.headers["Location"]) == (303, good)


def test_cookie_is_secure_over_https(app: Flask) -> None:
    c = app.test_client()
    token = csrf_of(c.get("https://localhost/login").text)
    r = c.post("https://localhost/login", data={"username": "alice", "password": PASSWORD, "csrf_token": token})
    assert "Secure" in r.headers["Set-Cookie"]


def test_wrong_password_and_unknown_user_are_refused_alike(app: Flask) -> None:
    c = client(app)
    token = csrf_of(c.get("/login").text)
    a = c.post("/login", data={"username": "alice", "password": "wrong password", "csrf_token": token})
    b = c.post("/login", data={"username": "mallory", "password": "wrong password", "csrf_token": token})
    assert a.status_code == b.status_code == 401
    assert "wrong username or password" in a.text and "wrong username or password" in b.text
    assert c.get("/approvals").status_code == 303


def test_disabled_user_and_changed_password_end_sessions(sidecar: RunningSidecar, app: Flask) -> None:
    c = client(app)
    sign_in(c, "bob")
    sidecar.services.users.set_password("bob", "another long password", "test")
    assert c.get("/approvals").status_code == 303
    sign_in(c, "bob", "another long password")
    sidecar.services.users.set_disabled("bob", True, "test")
    assert c.get("/approvals").status_code == 303
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"username": "bob", "password": "another long password", "csrf_token": token})
    assert r.status_code == 401


def test_sessions_are_shared_by_consoles_on_the_same_database(sidecar: RunningSidecar, app: Flask) -> None:
    other = create_app(sidecar.services)  # e.g. `outrider console` in another process, same database
    assert other.secret_key == app.secret_key
    c = client(app)
    sign_in(c, "alice")
    cookie = c.get_cookie("outrider_session")
    assert cookie is not None
    c2 = other.test_client()
    c2.set_cookie("outrider_session", cookie.value)
    assert c2.get("/approvals").status_code == 200


# ---- CSRF -----------------------------------------------------------------------------------


def test_missing_or_wrong_csrf_token_is_400(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar)
    c = client(app)
    # Even the sign-in form needs it.
    assert c.post("/login", data={"username": "alice", "password": PASSWORD}).status_code == 400
    token = sign_in(c, "alice")
    path = f"/approvals/{approval_id}/decide"
    assert c.post(path, data={"decision": "approve"}).status_code == 400
    assert c.post(path, data={"decision": "approve", "csrf_token": "x" + token}).status_code == 400
    assert htmx_post(c, path, token[:-1], decision="approve").status_code == 400
    for admin_path in ("/guardrails", "/tokens", "/users", "/logout"):
        assert c.post(admin_path, data={}).status_code == 400
    assert state_of(sidecar, approval_id) is ApprovalState.PENDING
    # A token from another session does not work either.
    other = client(app)
    other_token = sign_in(other, "bob")
    assert c.post(path, data={"decision": "approve", "csrf_token": other_token}).status_code == 400
    assert state_of(sidecar, approval_id) is ApprovalState.PENDING
    # The right one does, as a form field or as the header htmx sends.
    assert c.post(path, data={"decision": "approve", "csrf_token": token}).status_code == 303
    assert state_of(sidecar, approval_id) is ApprovalState.APPROVED


# ---- the sign-in throttle -------------------------------------------------------------------


def test_sign_in_is_rate_limited_per_username(app: Flask) -> None:
    for i in range(5):
        c = client(app, ip=f"10.0.0.{i}")
        token = csrf_of(c.get("/login").text)
        assert c.post("/login", data={"username": "alice", "password": "nope", "csrf_token": token}).status_code == 401
    c = client(app, ip="10.0.1.1")
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"username": "alice", "password": PASSWORD, "csrf_token": token})
    assert r.status_code == 429 and r.headers["Retry-After"] == "60"
    assert "too many failed sign-ins" in r.text
    # Another user is not locked out by alice's attacker.
    r = c.post("/login", data={"username": "bob", "password": PASSWORD, "csrf_token": token})
    assert r.status_code == 303


def test_sign_in_is_rate_limited_per_client_address(app: Flask) -> None:
    c = client(app, ip="10.9.9.9")
    token = csrf_of(c.get("/login").text)
    for name in ("u1", "u2", "u3", "u4", "u5"):
        assert c.post("/login", data={"username": name, "password": "nope", "csrf_token": token}).status_code == 401
    r = c.post("/login", data={"username": "bob", "password": PASSWORD, "csrf_token": token})
    assert r.status_code == 429
    elsewhere = client(app, ip="10.9.9.10")
    token = csrf_of(elsewhere.get("/login").text)
    r = elsewhere.post("/login", data={"username": "bob", "password": PASSWORD, "csrf_token": token})
    assert r.status_code == 303


# ---- roles ----------------------------------------------------------------------------------


def test_viewer_sees_but_cannot_decide(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar)
    c = client(app)
    token = sign_in(c, "victor")
    page = c.get(f"/approvals/{approval_id}").text
    assert approval_id in page and "Approve</button>" not in page and "Reject</button>" not in page
    for decision in ("approve", "reject"):
        r = htmx_post(c, f"/approvals/{approval_id}/decide", token, decision=decision, comment="x")
        assert r.status_code == 403
        r = c.post(f"/approvals/{approval_id}/decide", data={"decision": decision, "comment": "x", "csrf_token": token})
        assert r.status_code == 403
    assert c.get(f"/approvals/{approval_id}/edit").status_code == 403
    assert state_of(sidecar, approval_id) is ApprovalState.PENDING


def test_admin_pages_are_for_admins_only(app: Flask) -> None:
    for name in ("victor", "alice"):
        c = client(app)
        token = sign_in(c, name)
        for path in ("/guardrails", "/tokens", "/users"):
            assert c.get(path).status_code == 403, (name, path)
            assert htmx_post(c, path, token).status_code == 403, (name, path)
        assert 'href="/users"' not in c.get("/approvals").text
    c = client(app)
    sign_in(c, "ada")
    for path in ("/guardrails", "/tokens", "/users"):
        assert c.get(path).status_code == 200


# ---- deciding -------------------------------------------------------------------------------


def test_approve_and_reject_from_the_detail_page(sidecar: RunningSidecar, app: Flask) -> None:
    first, second = ask(sidecar, "deploy web"), ask(sidecar, "delete db")
    c = client(app)
    token = sign_in(c, "alice")
    page = c.get(f"/approvals/{first}").text
    assert '<label for="comment">Comment</label>' in page
    assert ">Approve</button>" in page and ">Reject</button>" in page
    r = htmx_post(c, f"/approvals/{first}/decide", token, decision="approve")
    assert r.status_code == 200 and r.headers["HX-Retarget"] == "#decide"
    assert "APPROVED" in r.text and 'hx-swap-oob="true"' in r.text
    assert state_of(sidecar, first) is ApprovalState.APPROVED
    # Rejecting needs a comment; the agent gets it.
    r = htmx_post(c, f"/approvals/{second}/decide", token, decision="reject", comment="  ")
    assert r.status_code == 400 and "comment" in r.text
    assert state_of(sidecar, second) is ApprovalState.PENDING
    r = htmx_post(c, f"/approvals/{second}/decide", token, decision="reject", comment="not during the freeze")
    assert r.status_code == 200
    a = sidecar.services.approvals.get(second)
    assert (a.state, a.decided_by, a.comment) == (ApprovalState.REJECTED, "alice", "not during the freeze")
    # A second decision is refused with a clear message; the first stands.
    r = htmx_post(c, f"/approvals/{second}/decide", token, decision="approve")
    assert r.status_code == 409 and "already REJECTED" in r.text
    assert state_of(sidecar, second) is ApprovalState.REJECTED


def test_edit_then_approve_validates_and_shows_the_diff(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar, "deploy", {"replicas": 10, "region": "eu"})
    c = client(app)
    token = sign_in(c, "alice")
    page = c.get(f"/approvals/{approval_id}/edit").text
    assert '<label for="edited-context">Context (JSON)</label>' in page and ">Approve</button>" in page
    preview = f"/approvals/{approval_id}/preview"
    r = htmx_post(c, preview, token, edited_context='{"replicas": 2,')
    assert "Not valid" in r.text and "line 1" in r.text
    assert "must be a JSON object" in htmx_post(c, preview, token, edited_context="[1, 2]").text
    r = htmx_post(c, preview, token, edited_context='{"replicas": 2, "region": "eu", "canary": true}')
    assert "Valid JSON object" in r.text
    assert re.search(r"<code>replicas</code></td><td>changed</td><td><code>10</code></td><td><code>2</code>", r.text)
    assert re.search(r"<code>canary</code></td><td>added</td>", r.text)
    r = htmx_post(
        c, f"/approvals/{approval_id}/decide", token, decision="approve", edited_context="{nope", **{"from": "edit"}
    )
    assert r.status_code == 400
    r = htmx_post(
        c,
        f"/approvals/{approval_id}/decide",
        token,
        decision="approve",
        edited_context='{"replicas": 2, "region": "eu"}',
        **{"from": "edit"},
    )
    assert r.status_code == 200 and r.headers["HX-Redirect"] == f"/approvals/{approval_id}"
    a = sidecar.services.approvals.get(approval_id)
    assert a.edited_context == {"replicas": 2, "region": "eu"}
    page = c.get(f"/approvals/{approval_id}").text
    assert "Edited context" in page and "<code>replicas</code>" in page


def test_detail_shows_digest_warnings_trace_link_and_earlier_requests(sidecar: RunningSidecar, tmp_path: Path) -> None:
    services = sidecar.services
    jaeger = replace(services.config, console_jaeger_ui_url="http://jaeger.local:16686")
    hitl = Hitl(GuardrailSpec("hitl", "hitl", {"patterns": ["deploy"]}))
    call = ActionCall("agent-7", "deploy", {"cost": 5})
    earlier = services.approvals.request(call, hitl, "r-1", "", ())
    services.approvals.cancel(earlier.approval_id, "operator:test", "superseded")
    a = services.approvals.request(
        call, hitl, "r-2", "4bf92f3577b34da6a3ce929d0e0e4736", (("pace", "80% of the rate"),)
    )
    services.decisions.flush()
    services.config, saved = jaeger, services.config
    try:
        app = create_app(services)
        c = app.test_client()
        sign_in(c, "victor")
        page = c.get(f"/approvals/{a.approval_id}").text
    finally:
        services.config = saved
    assert a.digest in page
    assert 'href="http://jaeger.local:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736"' in page
    assert "<td>pace</td><td>80% of the rate</td>" in page
    assert earlier.approval_id in page and "CANCELLED" in page and "superseded" in page
    assert "&#34;cost&#34;: 5" in page or "&quot;cost&quot;: 5" in page  # pretty-printed, escaped JSON


# ---- untrusted agent strings ----------------------------------------------------------------


def test_agent_strings_are_escaped_everywhere(sidecar: RunningSidecar, app: Flask) -> None:
    pending_id = ask(sidecar, XSS_ACTION, XSS_CONTEXT)
    closed_id = ask(sidecar, XSS_ACTION, XSS_CONTEXT, agent="agent-2")
    c = client(app)
    token = sign_in(c, "alice")
    htmx_post(c, f"/approvals/{closed_id}/decide", token, decision="reject", comment=XSS_ATTR + "<b>no</b>")
    pages = [
        c.get("/approvals").text,
        c.get("/approvals", headers={"HX-Request": "true"}).text,
        c.get(f"/approvals/{pending_id}").text,
        c.get(f"/approvals/{closed_id}").text,
        c.get(f"/approvals/{pending_id}/edit").text,
        c.get("/history").text,
        htmx_post(c, f"/approvals/{pending_id}/preview", token, edited_context='{"<svg onload=alert(3)>": 1}').text,
        first_event(c, "/events/pending"),
    ]
    for page in pages:
        for raw in ("<script>alert", "<img src=x", "<svg onload", "<b>no</b>", XSS_ATTR):
            assert raw not in page
        assert all(' src="' in tag for tag in re.findall(r"<script[^>]*>", page))  # no inline script
    assert html.escape(XSS_ACTION) in pages[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[2]
    assert "\\&#34;onmouseover=alert(1) x=\\&#34;" in pages[2]  # shown as text, quotes escaped


def test_every_page_has_the_csp_and_no_inline_script(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar)
    c = client(app)
    sign_in(c, "ada")
    for path in [*PAGES, "/login"]:
        r = (app.test_client() if path == "/login" else c).get(path.format(id=approval_id))
        assert r.status_code == 200, path
        csp = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        for tag in re.findall(r"<script[^>]*>", r.text):
            assert ' src="/static/' in tag, (path, tag)
        assert "onclick=" not in r.text and "javascript:" not in r.text


# ---- partials, the banner, the live stream ---------------------------------------------------


def test_views_answer_partials_to_htmx_and_pages_otherwise(sidecar: RunningSidecar, app: Flask) -> None:
    ask(sidecar, "deploy api")
    c = client(app)
    sign_in(c, "victor")
    full = c.get("/approvals").text
    part = c.get("/approvals", headers={"HX-Request": "true"}).text
    assert full.startswith("<!doctype html>") and "<html" not in part
    assert 'id="pending-table"' in part and "deploy api" in part
    assert '<th scope="col">Agent</th>' in part and '<th scope="col">Expires</th>' in part
    boosted = c.get("/approvals", headers={"HX-Request": "true", "HX-Boosted": "true"}).text
    assert "<html" in boosted
    hist = c.get("/history", headers={"HX-Request": "true"}).text
    assert hist.lstrip().startswith('<div id="history">')


def test_banner_when_grpc_authentication_is_disabled(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, auth_enabled=False)) as s:
        add_reviewers(s, ("victor",))
        app = create_app(s.services)
        c = app.test_client()
        assert "gRPC authentication is DISABLED" in c.get("/login").text
        sign_in(c, "victor")
        for path in ("/approvals", "/history", "/"):
            assert "gRPC authentication is DISABLED" in c.get(path).text


def test_no_banner_when_authentication_is_on(app: Flask) -> None:
    c = client(app)
    assert "DISABLED" not in c.get("/login").text


def first_event(c: FlaskClient, path: str) -> str:
    """The first `update` event of a live stream, then the stream is closed."""
    r = c.get(path, buffered=False, headers={"Accept": "text/event-stream"})
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    chunks: list[str] = []
    try:
        for chunk in r.response:
            chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
            if "event: update" in "".join(chunks):
                break
    finally:
        r.close()
    text = "".join(chunks)
    assert text.startswith("retry: ")
    return text


def sse_html(event: str) -> str:
    body = event.split("event: update\n", 1)[1]
    return "\n".join(line.removeprefix("data: ") for line in body.splitlines() if line.startswith("data: "))


def test_live_stream_sends_the_pending_table_out_of_band(sidecar: RunningSidecar, app: Flask) -> None:
    # Line breaks in an action are refused at the edge now (control characters), so an SSE field
    # injection cannot start there; markup in a printable action still must not reach the stream raw.
    with pytest.raises(grpc.RpcError) as err:
        ask(sidecar, "deploy\r\nevent: evil\r\ndata: <b>x</b>")
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    approval_id = ask(sidecar, "deploy event: evil data: <b>x</b>")
    c = client(app)
    sign_in(c, "victor")
    event = first_event(c, "/events/pending")
    assert "\nevent: evil" not in event and "<b>x</b>" not in event and "\r" not in event
    fragment = sse_html(event)
    assert '<div id="pending-table" hx-swap-oob="true">' in fragment and approval_id in fragment
    hub = app.extensions["outrider.sse"]
    assert hub.listeners == 0  # closing the response released the stream


def test_live_stream_of_a_closed_request_replaces_the_decide_form(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar)
    sidecar.services.approvals.cancel(approval_id, "operator:test", "not needed")
    c = client(app)
    sign_in(c, "alice")
    fragment = sse_html(first_event(c, f"/events/approvals/{approval_id}"))
    assert '<section id="approval-status"' in fragment and 'id="decide"' in fragment and "CANCELLED" in fragment
    assert c.get("/events/approvals/apr_nope", headers={"Accept": "text/event-stream"}).status_code == 404


def test_live_streams_are_bounded(sidecar: RunningSidecar) -> None:
    app = create_app(sidecar.services, max_streams=1)
    c1, c2 = app.test_client(), app.test_client()
    sign_in(c1, "victor")
    sign_in(c2, "alice")
    r1 = c1.get("/events/pending", buffered=False)
    try:
        next(iter(r1.response))
        r2 = c2.get("/events/pending")
        assert r2.status_code == 503 and r2.headers["Retry-After"]
    finally:
        r1.close()
    r3 = c2.get("/events/pending", buffered=False)
    assert r3.status_code == 200
    r3.close()


# ---- history --------------------------------------------------------------------------------


def test_history_filters_and_pages(sidecar: RunningSidecar, app: Flask) -> None:
    ids = [ask(sidecar, f"deploy {i}", agent="agent-a" if i % 2 else "agent-b") for i in range(5)]
    still_pending = ask(sidecar, "deploy pending")
    c = client(app)
    token = sign_in(c, "alice")
    for i, approval_id in enumerate(ids):
        decision = {"decision": "approve"} if i % 2 else {"decision": "reject", "comment": f"no {i}"}
        assert htmx_post(c, f"/approvals/{approval_id}/decide", token, **decision).status_code == 200
    page = c.get("/history").text
    assert all(i in page for i in ids) and still_pending not in page
    assert '<th scope="col">Decided by</th>' in page
    approved = c.get("/history?state=APPROVED").text
    assert ids[1] in approved and ids[3] in approved and ids[0] not in approved
    by_agent = c.get("/history?agent=agent-b").text
    assert ids[0] in by_agent and ids[2] in by_agent and ids[1] not in by_agent
    assert ids[1] in c.get("/history?reviewer=alice&action=deploy+1").text
    assert ids[1] not in c.get("/history?start=2999-01-01T00:00").text
    assert ids[1] in c.get("/history?start=2000-01-01T00:00&end=2999-01-01T00:00").text
    assert "not a date and time" in c.get("/history?start=yesterday").text
    # Paging: two a page, newest first, following "Next page" until the end.
    seen: list[str] = []
    url: str | None = "/history?size=2"
    for _ in range(10):
        if url is None:
            break
        r = c.get(url, headers={"HX-Request": "true"}).text
        seen += sorted((i for i in ids if i in r and i not in seen), key=r.index)
        m = re.search(r'<a href="([^"]+)"[^>]*>Next page</a>', r)
        url = html.unescape(m.group(1)) if m else None
    assert seen == list(reversed(ids))


# ---- admin pages ----------------------------------------------------------------------------


def test_admin_manages_guardrails(sidecar: RunningSidecar, app: Flask) -> None:
    c = client(app)
    token = sign_in(c, "ada")
    r = htmx_post(c, "/guardrails", token, name="cap", kind="cost_cap", options='{"max": 100}')
    assert r.status_code == 200 and "Added guardrail" in r.text and r.text.lstrip().startswith('<div id="guardrails">')
    assert [g.name for g in sidecar.services.chain.list_guardrails()] == ["hitl", "cap"]
    r = htmx_post(c, "/guardrails", token, name="bad", kind="cost_cap", options='{"max": "lots"}')
    assert r.status_code == 400 and 'id="guardrails"' in r.text
    r = htmx_post(c, "/guardrails", token, name="bad", kind="cost_cap", options="{")
    assert r.status_code == 400 and "options" in r.text
    r = htmx_post(c, "/guardrails/remove", token, name="cap")
    assert r.status_code == 200 and "Removed guardrail" in r.text
    assert [g.name for g in sidecar.services.chain.list_guardrails()] == ["hitl"]
    assert htmx_post(c, "/guardrails/remove", token, name="cap").status_code == 404
    actors = {(rec.actor, rec.action) for rec in sidecar.services.audit.repo.iter_all()}
    assert {("reviewer:ada", "guardrail.add"), ("reviewer:ada", "guardrail.remove")} <= actors


def test_admin_issues_and_revokes_tokens_and_the_secret_shows_once(sidecar: RunningSidecar, app: Flask) -> None:
    c = client(app)
    token = sign_in(c, "ada")
    r = htmx_post(c, "/tokens", token, kind="agent", subject="agent-9", description="ci")
    assert r.status_code == 200
    secret = re.search(r'id="token-secret" readonly value="(otr_[^"]+)"', r.text)
    assert secret is not None
    issued = sidecar.services.access.authenticate(secret.group(1))
    assert issued is not None and issued.subject == "agent-9" and issued.created_by == "reviewer:ada"
    listing = c.get("/tokens").text
    assert issued.token_id in listing and secret.group(1) not in listing
    r = htmx_post(c, f"/tokens/{issued.token_id}/revoke", token)
    assert r.status_code == 200 and "Revoked" in r.text
    assert sidecar.services.access.authenticate(secret.group(1)) is None
    assert htmx_post(c, f"/tokens/{issued.token_id}/revoke", token).status_code == 409
    assert htmx_post(c, "/tokens", token, kind="root", subject="x").status_code == 400
    # Without htmx the secret is rendered in the page itself, never put in the (signed, readable) cookie.
    r = c.post("/tokens", data={"kind": "operator", "subject": "oncall", "csrf_token": token})
    assert r.status_code == 200 and "otr_" in r.text and "otr_" not in (r.headers.get("Set-Cookie") or "")


def test_admin_manages_users(sidecar: RunningSidecar, app: Flask) -> None:
    c = client(app)
    token = sign_in(c, "ada")
    r = htmx_post(c, "/users", token, name="carol", role="approver", groups="ops, sre", password="long enough pw")
    assert r.status_code == 200 and "Added carol" in r.text
    carol = sidecar.services.users.get("carol")
    assert carol is not None and carol.groups == ("ops", "sre")
    assert htmx_post(c, "/users", token, name="carol", role="viewer", password="long enough pw").status_code == 409
    assert htmx_post(c, "/users", token, name="dave", role="viewer", password="short").status_code == 400
    assert htmx_post(c, "/users", token, name="dave", role="root", password="long enough pw").status_code == 400
    other = client(app)
    sign_in(other, "carol", "long enough pw")
    assert htmx_post(c, "/users/carol/role", token, role="viewer").status_code == 200
    assert "carol (viewer)" in other.get("/approvals").text  # the role applies at once
    assert htmx_post(c, "/users/carol/disable", token).status_code == 200
    assert other.get("/approvals").status_code == 303  # and disabling ends the session
    assert htmx_post(c, "/users/carol/enable", token).status_code == 200
    assert htmx_post(c, "/users/carol/password", token, password="brand new password").status_code == 200
    sign_in(other, "carol", "brand new password")
    # The last admin cannot lock everyone out.
    r = htmx_post(c, "/users/ada/disable", token)
    assert r.status_code == 409 and "last enabled admin" in r.text
    assert htmx_post(c, "/users/ada/role", token, role="viewer").status_code == 409


def test_non_htmx_admin_forms_redirect_after_success(app: Flask) -> None:
    c = client(app)
    token = sign_in(c, "ada")
    r = c.post("/users", data={"name": "erin", "role": "viewer", "password": "long enough pw", "csrf_token": token})
    assert (r.status_code, r.headers["Location"]) == (303, "/users")
    assert "Added erin" in c.get("/users").text  # flashed once
    assert "Added erin" not in c.get("/users").text


def test_only_the_named_approvers_may_decide(sidecar: RunningSidecar, app: Flask) -> None:
    sidecar.stub.AddGuardrail(guardrail("payments", "hitl", patterns=["refund"], approvers=["group:payments", "bob"]))
    approval_id = ask(sidecar, "refund order 7")
    c = client(app)
    token = sign_in(c, "alice")  # an approver, but in group "ops"
    page = c.get(f"/approvals/{approval_id}").text
    assert "You may not decide this request" in page and ">Approve</button>" not in page
    r = htmx_post(c, f"/approvals/{approval_id}/decide", token, decision="approve")
    assert r.status_code == 403 and "not among the approvers" in r.text
    assert state_of(sidecar, approval_id) is ApprovalState.PENDING
    c2 = client(app)
    token2 = sign_in(c2, "bob")
    assert htmx_post(c2, f"/approvals/{approval_id}/decide", token2, decision="approve").status_code == 200
    assert state_of(sidecar, approval_id) is ApprovalState.APPROVED


def test_n_of_m_waits_for_distinct_approvers(sidecar: RunningSidecar, app: Flask) -> None:
    sidecar.stub.AddGuardrail(guardrail("two-man", "hitl", patterns=["launch"], min_approvals=2))
    approval_id = ask(sidecar, "launch rocket")
    c, c2 = client(app), client(app)
    token, token2 = sign_in(c, "alice"), sign_in(c2, "bob")
    r = htmx_post(c, f"/approvals/{approval_id}/decide", token, decision="approve")
    assert r.status_code == 200 and "You have voted" in r.text and "waiting for 1 more approval" in r.text
    assert state_of(sidecar, approval_id) is ApprovalState.PENDING
    assert "2 distinct approvals needed" in c.get(f"/approvals/{approval_id}").text
    assert "1 of 2" in c.get("/approvals").text
    assert htmx_post(c, f"/approvals/{approval_id}/decide", token, decision="approve").status_code == 409
    assert htmx_post(c2, f"/approvals/{approval_id}/decide", token2, decision="approve").status_code == 200
    a = sidecar.services.approvals.get(approval_id)
    assert a.state is ApprovalState.APPROVED and {v.reviewer for v in a.votes} == {"alice", "bob"}


def test_idle_streams_send_heartbeats(sidecar: RunningSidecar, app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("console.sse.HEARTBEAT_SECONDS", 0.2)
    c = client(app)
    sign_in(c, "victor")
    r = c.get("/events/pending", buffered=False)
    text = ""
    try:
        for chunk in r.response:
            text += chunk.decode() if isinstance(chunk, bytes) else chunk
            if ": heartbeat" in text:
                break
    finally:
        r.close()
    assert text.index("event: update") < text.index(": heartbeat\n\n")


def test_a_separate_console_warns_that_guardrail_changes_wait_for_a_restart(
    sidecar: RunningSidecar, app: Flask
) -> None:
    c = client(app)
    sign_in(c, "ada")
    assert "runs apart from the sidecar" not in c.get("/guardrails").text
    sidecar.services.health["console_alone"] = True
    assert "runs apart from the sidecar" in c.get("/guardrails").text


def test_the_pending_page_shows_an_abandoned_request(sidecar: RunningSidecar, app: Flask) -> None:
    waited_on, left = ask(sidecar, agent="kept-agent"), ask(sidecar, agent="gone-agent")
    sidecar.services.approvals.repo.mark_abandoned([left], sidecar.services.approvals.clock.utcnow())
    c = client(app)
    sign_in(c, "victor")
    page = c.get("/approvals").get_data(as_text=True)
    rows = {m.group(1): m.group(2) for m in re.finditer(r'<tr id="row-(apr_[0-9a-f]+)"(.*?)</tr>', page, re.S)}
    assert ">abandoned</span>" in rows[left] and "abandoned" not in rows[waited_on]
