"""Console sessions live in the database: a cookie saved before signing out, a password change, disabling
the user or an admin's "sign out everywhere" is worth nothing afterwards, in this process and in another
`outrider console` process on the same database (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from console import create_app
from server.domain.approvals.requests import ApprovalState
from tests.integration.console_process import Browserless, console_process
from tests.integration.consolekit import PASSWORD, add_hitl, add_reviewers, ask, csrf_of, htmx_post, sign_in
from tests.integration.harness import RunningSidecar, make_config


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


def test_a_cookie_saved_before_sign_out_is_dead(sidecar: RunningSidecar, app: Flask) -> None:
    approval_id = ask(sidecar)
    c = app.test_client()
    token = sign_in(c, "alice")
    saved = c.get_cookie("outrider_session")
    assert saved is not None
    assert c.post("/logout", data={"csrf_token": token}).status_code == 303
    thief = app.test_client()
    thief.set_cookie("outrider_session", saved.value)
    assert thief.get("/approvals").status_code == 303  # sent to sign in
    r = thief.post(f"/approvals/{approval_id}/decide", data={"decision": "reject", "comment": "x", "csrf_token": token})
    assert r.status_code == 401
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.PENDING
    assert thief.get("/events/pending", headers={"Accept": "text/event-stream"}).status_code == 401


def test_an_admin_signs_a_reviewer_out_everywhere(sidecar: RunningSidecar, app: Flask) -> None:
    alice_here, alice_there = app.test_client(), app.test_client()
    sign_in(alice_here, "alice")
    sign_in(alice_there, "alice")
    bob = app.test_client()
    sign_in(bob, "bob")
    admin = app.test_client()
    admin_token = sign_in(admin, "ada")
    assert sidecar.services.users.session_count("alice") == 2
    page = admin.get("/users").text
    assert "Sign out everywhere" in page
    r = htmx_post(admin, "/users/alice/sessions/end", admin_token)
    assert r.status_code == 200 and "Signed alice out everywhere (2 open sessions ended)" in r.text
    assert alice_here.get("/approvals").status_code == 303
    assert alice_there.get("/approvals").status_code == 303
    assert bob.get("/approvals").status_code == 200  # only alice's sessions ended
    assert admin.get("/users").status_code == 200
    records = [r for r in sidecar.services.audit.repo.iter_all() if r.action == "user.sign_out_everywhere"]
    assert [(r.actor, r.subject, r.details) for r in records] == [("reviewer:ada", "alice", {"sessions_ended": 2})]
    # Only admins may.
    bob_token = csrf_of(bob.get("/approvals").text)
    assert htmx_post(bob, "/users/ada/sessions/end", bob_token).status_code == 403
    assert admin.get("/users").status_code == 200
    assert htmx_post(admin, "/users/nobody/sessions/end", admin_token).status_code == 404


def test_sessions_end_at_once_in_another_console_process(tmp_path: Path, db_url: str) -> None:
    """The other process keeps no session state of its own: each ending is seen on its very next request."""
    # The same data directory: on PostgreSQL too, for the audit key every writer on the database shares.
    flags = ("--data-dir", str(tmp_path / "data"))
    if db_url.startswith("postgresql"):
        flags += ("--db-url", db_url)
    config = make_config(tmp_path, db_url=db_url if db_url.startswith("postgresql") else None)
    with RunningSidecar(config) as s:
        add_reviewers(s, ("ada", "alice", "bob"))
        users = s.services.users
        here = create_app(s.services)
        with console_process(tmp_path, *flags) as url:
            # 1. An admin's "sign out everywhere" (here) ends alice's session there.
            alice = Browserless(url)
            assert alice.sign_in("alice", PASSWORD) == 303 and alice.signed_in()
            users.end_sessions("alice", "test")
            assert not alice.signed_in()
            # 2. A password change.
            assert alice.sign_in("alice", PASSWORD) == 303 and alice.signed_in()
            users.set_password("alice", "another long password", "test")
            assert not alice.signed_in()
            # 3. Disabling the user.
            bob = Browserless(url)
            assert bob.sign_in("bob", PASSWORD) == 303 and bob.signed_in()
            users.set_disabled("bob", True, "test")
            assert not bob.signed_in()
            # 4. Signing out there ends the cookie here too (and the other way round).
            ada = Browserless(url)
            assert ada.sign_in("ada", PASSWORD) == 303 and ada.signed_in()
            cookie = next(c for c in ada.jar if c.name == "outrider_session")
            here_client = here.test_client()
            here_client.set_cookie("outrider_session", str(cookie.value))
            assert here_client.get("/approvals").status_code == 200
            status, _, _ = ada.request("/logout", {"csrf_token": ada.csrf("/approvals")})
            assert status == 303
            assert here_client.get("/approvals").status_code == 303
            token = sign_in(here_client, "ada")
            cookie_value = here_client.get_cookie("outrider_session")
            assert cookie_value is not None
            there = Browserless(url)
            there.jar.set_cookie(_cookie(cookie_value.value, url))
            assert there.signed_in()
            here_client.post("/logout", data={"csrf_token": token})
            assert not there.signed_in()


def _cookie(value: str, url: str) -> object:
    import http.cookiejar
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or "127.0.0.1"
    return http.cookiejar.Cookie(
        0, "outrider_session", value, None, False, host, False, False, "/", True, False, None, False, None, None, {}
    )
