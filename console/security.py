"""Sessions, CSRF and roles: every request but sign-in needs a signed-in, enabled reviewer.

The cookie is Flask's signed cookie (HttpOnly, SameSite=Lax, Secure over https) keyed by a secret in the
database's settings table, so the sidecar's console and a separate `outrider console` accept the same
sessions. It holds the id of a server-side session (a row in the database, checked on every request: signing
out, a password change, a disabled account or "sign out everywhere" deletes it, and a saved copy of the
cookie is then worth nothing in any console process) and the CSRF token that every state-changing request
must echo (form field `csrf_token` or header `X-CSRF-Token`); otherwise 400.
"""

from __future__ import annotations

import hmac
import secrets
import unicodedata
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import unquote, urlsplit

from flask import Flask, abort, g, redirect, request, session, url_for
from flask.sessions import SecureCookieSessionInterface
from werkzeug.wrappers import Response

from console import web
from server.domain.access.users import Role, User
from server.services.access.users import SESSION_LIFETIME

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Reachable without a session: the sign-in page, static files, the health probe, and Slack's interactions
# (verified by Slack's request signature instead).
PUBLIC_ENDPOINTS = frozenset({"auth.login", "static", "overview.healthz", "slack.interactions"})
CSRF_EXEMPT = frozenset({"slack.interactions"})

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


def sign_in(session_id: str) -> None:
    """A fresh cookie (new CSRF token) for the server-side session `session_id`."""
    session.clear()
    session.permanent = True
    session["sid"] = session_id
    session["csrf"] = secrets.token_urlsafe(32)


def session_id() -> str | None:
    sid = session.get("sid")
    return sid if isinstance(sid, str) and sid else None


def sign_out() -> None:
    sid = session_id()
    if sid is not None:
        web.services().users.end_session(sid)
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
    sid = session_id()
    if sid is not None:
        g.user = web.services().users.session_user(sid)
        if g.user is None:  # signed out, ended everywhere, expired, or the user is disabled
            session.pop("sid", None)


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
    if request.method in SAFE_METHODS or request.endpoint in CSRF_EXEMPT:
        return
    expected = session.get("csrf")
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not isinstance(expected, str) or not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        abort(400, description="The CSRF token is missing or wrong: reload the page and try again.")


def _local_path(path: str, default: str = "/") -> str:
    """`path` when it is a same-origin path, else `default` (no open redirect, never a 500).

    Browsers strip tabs and newlines from a URL and read a backslash as a slash, so `/%09/evil.example`
    (a tab) and `/%5Cevil.example` go off-site; a CR or LF would also make the Location header invalid. So the
    value and every URL-decoding of it must start with exactly one `/` and hold no backslash, control
    or whitespace character, and parse with neither a scheme nor a host.
    """
    path = path.rstrip("?")
    seen = path
    for _ in range(4):  # the value as sent and up to three further decodings (double-encoded tricks)
        if not _is_local(seen):
            return default
        decoded = unquote(seen)
        if decoded == seen:
            return path
        seen = decoded
    return default


def _is_local(path: str) -> bool:
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        return False
    if any((ch.isspace() and ch != " ") or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in path):
        return False
    parts = urlsplit(path)
    return not parts.scheme and not parts.netloc


def safe_next(value: str | None, default: str = "/") -> str:
    return _local_path(value or default, default)
