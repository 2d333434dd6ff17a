"""What every page family shares: the services, partial-or-page rendering, and errors as HTTP answers."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

from flask import Flask, current_app, flash, redirect, render_template, request
from werkzeug.exceptions import HTTPException

from server.container import Services
from server.domain import errors as e

# Domain errors as HTTP statuses (the console's twin of server/rpc/errors.py).
_STATUS: list[tuple[type[e.OutriderError], int]] = [
    (e.InvalidArgument, 400),
    (e.Unauthenticated, 401),
    (e.PermissionDenied, 403),
    (e.NotFound, 404),
    (e.AlreadyExists, 409),
    (e.FailedPrecondition, 409),
    (e.ResourceExhausted, 429),
    (e.Unimplemented, 501),
    (e.Unavailable, 503),
]


def services() -> Services:
    return cast(Services, current_app.config["SERVICES"])


def is_htmx() -> bool:
    """An htmx request for a fragment (a boosted or history-restore request wants the whole page)."""
    h = request.headers
    return h.get("HX-Request") == "true" and h.get("HX-Boosted") != "true" and not h.get("HX-History-Restore-Request")


def page(full: str, partial: str, **context: Any) -> str:
    """A view's answer: the fragment for htmx, the whole page otherwise."""
    return render_template(partial if is_htmx() else full, **context)


def status_of(exc: e.OutriderError) -> int:
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def message(text: str, status: int, kind: str = "error") -> tuple[str, int]:
    """A short message: a fragment for htmx (swapped into the form's message area), a page otherwise."""
    template = "_message.html" if is_htmx() else "message.html"
    return render_template(template, text=text, kind=kind, status=status), status


def init_app(app: Flask) -> None:
    @app.errorhandler(e.OutriderError)
    def _domain_error(exc: e.OutriderError) -> tuple[str, int]:
        return message(exc.message, status_of(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        if exc.code is None or exc.code < 400:
            return exc
        return message(exc.description or exc.name, exc.code)

    app.jinja_env.filters["ago"] = ago
    app.jinja_env.filters["utc"] = utc_text
    app.jinja_env.filters["iso"] = lambda d: d.isoformat() if d else ""


def ago(when: datetime | None, now: datetime | None = None) -> str:
    """`3m 12s` style durations since (or until, for a future time) `when`."""
    if when is None:
        return ""
    seconds = int(abs(((now or datetime.now(UTC)) - when).total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{secs}s"


def utc_text(when: datetime | None) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if when else ""


def act(full: str, partial: str, state: Callable[[], dict[str, Any]], action: Callable[[], Any], back: str) -> Any:
    """Run an admin action and answer with its section re-rendered, with the outcome on top.

    `action` returns the success message, or (message, extra template context) for what must be
    shown once and never stored (an issued token's secret). A refusal re-renders the section with
    the reason and the error status; a success without htmx redirects to `back` (post/redirect/get).
    """
    extra: dict[str, Any] = {}
    try:
        result = action()
        text, extra = result if isinstance(result, tuple) else (result, {})
        kind, status = "ok", 200
    except e.OutriderError as exc:
        text, kind, status = exc.message, "error", status_of(exc)
    if not is_htmx() and kind == "ok" and not extra:
        flash(text, "ok")
        return redirect(back, 303)
    template = partial if is_htmx() else full
    return render_template(template, message=text, kind=kind, **state(), **extra), status
