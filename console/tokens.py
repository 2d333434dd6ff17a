"""API tokens page (admins): list, issue (the secret is shown once, never stored), revoke."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request, url_for

from console.security import current_user, require_role
from console.web import act, page, services
from server.domain.access.principals import PrincipalKind
from server.domain.access.users import Role
from server.domain.errors import InvalidArgument

bp = Blueprint("tokens", __name__)
LIST_SIZE = 200


def _state() -> dict[str, Any]:
    include_revoked = request.values.get("all") == "1"
    page_ = services().access.list("", include_revoked, LIST_SIZE, "")
    return {"tokens": page_.items, "more": bool(page_.next_page_token), "include_revoked": include_revoked}


@bp.get("/tokens")
@require_role(Role.ADMIN)
def index() -> str:
    return page("tokens.html", "_tokens.html", **_state())


@bp.post("/tokens")
@require_role(Role.ADMIN)
def issue() -> Any:
    def action() -> tuple[str, dict[str, Any]]:
        kind_name = request.form.get("kind", "")
        if kind_name not in ("agent", "operator"):
            raise InvalidArgument("kind must be agent or operator", field="kind")
        kind = PrincipalKind.AGENT if kind_name == "agent" else PrincipalKind.OPERATOR
        subject = request.form.get("subject", "").strip()
        description = request.form.get("description", "").strip()
        secret, token = services().access.issue(kind, subject, description, current_user().label)
        text = f"Issued {token.token_id} for {kind_name} {subject!r}. Copy the secret now: it is shown only once."
        return text, {"secret": secret, "issued": token}

    return act("tokens.html", "_tokens.html", _state, action, url_for("tokens.index"))


@bp.post("/tokens/<token_id>/revoke")
@require_role(Role.ADMIN)
def revoke(token_id: str) -> Any:
    def action() -> str:
        token = services().access.revoke(token_id, current_user().label)
        return f"Revoked {token.token_id} ({token.kind.name.lower()} {token.subject!r}); it is refused from now on."

    return act("tokens.html", "_tokens.html", _state, action, url_for("tokens.index"))
