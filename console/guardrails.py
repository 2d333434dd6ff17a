"""Guardrails page (admins): the chain in evaluation order; add and remove at runtime."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, request, url_for

from console.security import current_user, require_role
from console.web import act, page, services
from server.domain.access.users import Role
from server.domain.errors import InvalidArgument
from server.domain.guardrails.factory import KINDS

bp = Blueprint("guardrails", __name__)


def _state() -> dict[str, Any]:
    s = services()
    return {
        "guardrails": s.chain.list_guardrails(),
        "kinds": KINDS,
        "alone": bool(s.health.get("console_alone")),
    }


@bp.get("/guardrails")
@require_role(Role.ADMIN)
def index() -> str:
    return page("guardrails.html", "_guardrails.html", **_state())


@bp.post("/guardrails")
@require_role(Role.ADMIN)
def add() -> Any:
    def action() -> str:
        name, kind = request.form.get("name", "").strip(), request.form.get("kind", "").strip()
        raw = request.form.get("options", "").strip() or "{}"
        try:
            options = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidArgument(
                f"options: line {exc.lineno}, column {exc.colno}: {exc.msg}", field="options"
            ) from None
        if not isinstance(options, dict):
            raise InvalidArgument("options must be a JSON object ({...})", field="options")
        _, position = services().chain.add_guardrail(name, kind, options, current_user().label)
        return f"Added guardrail {name!r} ({kind}); it runs at position {position + 1}."

    return act("guardrails.html", "_guardrails.html", _state, action, url_for("guardrails.index"))


@bp.post("/guardrails/remove")
@require_role(Role.ADMIN)
def remove() -> Any:
    def action() -> str:
        name = request.form.get("name", "")
        removed = services().chain.remove_guardrail(name, current_user().label)
        return f"Removed guardrail {name!r}" + (f" ({removed} entries)." if removed > 1 else ".")

    return act("guardrails.html", "_guardrails.html", _state, action, url_for("guardrails.index"))
