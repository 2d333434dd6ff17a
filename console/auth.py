"""Signing in and out."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for

from console import security
from console.web import services
from server.domain.errors import ResourceExhausted, Unauthenticated

bp = Blueprint("auth", __name__)


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    target = security.safe_next(request.values.get("next"), url_for("approvals.pending"))
    if request.method == "GET":
        if g.user is not None:
            return redirect(target, 303)
        return _form(target)
    name = request.form.get("username", "").strip()
    password = request.form.get("password", "")
    try:
        _, session_id = services().users.login(name, password, request.remote_addr or "unknown")
    except ResourceExhausted as exc:
        return _form(target, name, exc.message, 429)[0], 429, {"Retry-After": "60"}
    except Unauthenticated as exc:
        return _form(target, name, exc.message, 401)
    security.sign_in(session_id)
    return redirect(target, 303)


@bp.post("/logout")
def logout() -> Any:
    security.sign_out()
    return redirect(url_for("auth.login"), 303)


def _form(target: str, name: str = "", error: str = "", status: int = 200) -> tuple[str, int]:
    no_users = not error and not services().users.list()
    return (
        render_template("login.html", next=target, username=name, error=error, no_users=no_users),
        status,
    )
