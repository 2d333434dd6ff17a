"""Users page (admins): console reviewers, their roles and groups; add, change role, reset, disable, and
sign a reviewer out everywhere."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request, url_for

from console.security import current_user, require_role
from console.web import act, page, services
from server.domain.access.users import Role

bp = Blueprint("users", __name__)


def _state() -> dict[str, Any]:
    return {"users": services().users.list(), "roles": [r.value for r in Role]}


def _act(action: Any) -> Any:
    return act("users.html", "_users.html", _state, action, url_for("users.index"))


@bp.get("/users")
@require_role(Role.ADMIN)
def index() -> str:
    return page("users.html", "_users.html", **_state())


@bp.post("/users")
@require_role(Role.ADMIN)
def add() -> Any:
    def action() -> str:
        f = request.form
        user = services().users.add(
            f.get("name", "").strip(),
            f.get("role", ""),
            f.get("groups", ""),
            f.get("password", ""),
            current_user().label,
        )
        return f"Added {user.name} ({user.role.value})."

    return _act(action)


@bp.post("/users/<name>/role")
@require_role(Role.ADMIN)
def set_role(name: str) -> Any:
    def action() -> str:
        user = services().users.set_role(name, request.form.get("role", ""), current_user().label)
        return f"{user.name} is now {user.role.value}."

    return _act(action)


@bp.post("/users/<name>/password")
@require_role(Role.ADMIN)
def set_password(name: str) -> Any:
    def action() -> str:
        services().users.set_password(name, request.form.get("password", ""), current_user().label)
        return f"New password set for {name}; their open sessions have ended."

    return _act(action)


@bp.post("/users/<name>/disable")
@require_role(Role.ADMIN)
def disable(name: str) -> Any:
    def action() -> str:
        services().users.set_disabled(name, True, current_user().label)
        return f"Disabled {name}; their open sessions have ended."

    return _act(action)


@bp.post("/users/<name>/sessions/end")
@require_role(Role.ADMIN)
def end_sessions(name: str) -> Any:
    def action() -> str:
        ended = services().users.end_sessions(name, current_user().label)
        return f"Signed {name} out everywhere ({ended} open session{'' if ended == 1 else 's'} ended)."

    return _act(action)


@bp.post("/users/<name>/enable")
@require_role(Role.ADMIN)
def enable(name: str) -> Any:
    def action() -> str:
        services().users.set_disabled(name, False, current_user().label)
        return f"Enabled {name}."

    return _act(action)
