"""Sessions, CSRF and roles: every request but sign-in needs a signed-in, enabled reviewer.

The session is Flask's signed cookie (HttpOnly, SameSite=Lax, Secure over https) keyed by a secret in
the database's settings table, so the sidecar's console and a separate `outrider console` accept the
same sessions. It holds the user name, a stamp of their password hash (a changed password or a
disabled account ends every session at once) and the CSRF token that every state-changing request
must echo (form field `csrf_token` or header `X-CSRF-Token`); otherwise 400.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Flask, abort, g, redirect, request, session, url_for
from flask.sessions import SecureCookieSessionInterface
from werkzeug.wrappers import Response

from console import web
from server.domain.access.users import Role, User

SESSION_LIFETIME = timedelta(hours=12)
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Reachable without a session: the sign-in page, static files and the health probe.
PUBLIC_ENDPOINTS = frozenset({"auth.login", "static", "overview.healthz"})

F = TypeVar("F", bound=Callable[..., Any])


class _SessionInterface(SecureCookieSessionInterface):
    """Flask's signed cookie, marked Secure whenever the request came over https."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def init_app(app: Flask, secret_key: str) -> None:
    app.secret_key = secret_key
    app.session_interface = _SessionInterface()
    app.config.update(
        SESSION_COOKIE_NAME="outrider_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=SESSION_LIFETIME,
    )
    app.before_request(_load_user)
    app.before_request(_require_session)
    app.before_request(_check_csrf)
    app.context_processor(lambda: {"current_user": g.get("user"), "csrf_token": csrf_token})


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str) or not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def current_user() -> User:
    user = g.get("user")
    if user is None:  # unreachable behind _require_session; a guard for views used elsewhere
        abort(401)
    return cast(User, user)


def sign_in(user: User, stamp: str) -> None:
    """A fresh session (new CSRF token) for `user`."""
    session.clear()
    session.permanent = True
    session["user"] = user.name
    session["stamp"] = stamp
    session["csrf"] = secrets.token_urlsafe(32)


def sign_out() -> None:
    session.clear()


def require_role(role: Role) -> Callable[[F], F]:
    """403 unless the signed-in reviewer has at least `role`."""

    def decorate(view: F) -> F:
        @wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not current_user().role.at_least(role):
                abort(403, description=f"this needs the {role.value} role")
            return view(*args, **kwargs)

        return cast(F, wrapper)

    return decorate


def _load_user() -> None:
    g.user = None
    name, stamp = session.get("user"), session.get("stamp")
    if isinstance(name, str) and isinstance(stamp, str):
        g.user = web.services().users.session_user(name, stamp)
        if g.user is None:  # disabled, removed, or the password changed: the session is over
            session.pop("user", None)
            session.pop("stamp", None)


def _require_session() -> Response | None:
    if request.endpoint in PUBLIC_ENDPOINTS or g.user is not None:
        return None
    login = url_for("auth.login", next=_local_path(request.full_path))
    if request.headers.get("HX-Request") == "true":
        # htmx would swap the sign-in page into a fragment; ask it to navigate instead.
        response = Response("sign in first", status=401)
        response.headers["HX-Redirect"] = login
        return response
    if request.method not in SAFE_METHODS or request.accept_mimetypes.best == "text/event-stream":
        return Response("sign in first", status=401)
    return redirect(login, 303)


def _check_csrf() -> None:
    if request.method in SAFE_METHODS:
        return
    expected = session.get("csrf")
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not isinstance(expected, str) or not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        abort(400, description="The CSRF token is missing or wrong: reload the page and try again.")


def _local_path(path: str) -> str:
    """Only same-site paths may be a post-sign-in destination (no open redirect)."""
    path = path.rstrip("?")
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


def safe_next(value: str | None) -> str:
    return _local_path(value or "/")
