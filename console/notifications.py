"""Notifications page (admins): the outbox's delivery status by state, with a retry for failed ones."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request, url_for

from console.security import current_user, require_role
from console.web import act, page, services
from server.domain.access.users import Role
from server.domain.notifications.delivery import DeliveryState, NotificationFilter

bp = Blueprint("notifications", __name__)
LIST_SIZE = 200
STATES = [s.value for s in DeliveryState]


def _state() -> dict[str, Any]:
    wanted = request.values.get("state", "")
    state = DeliveryState(wanted) if wanted in STATES else None
    ns = services().notifications
    listing = ns.list(NotificationFilter(state=state), LIST_SIZE, "")
    return {
        "notifications": listing.items,
        "more": bool(listing.next_page_token),
        "counts": ns.counts(),
        "state": state.value if state else "",
        "states": STATES,
        "channels": [(c.name, c.kind) for c in services().config.notifications.channels],
    }


@bp.get("/notifications")
@require_role(Role.ADMIN)
def index() -> str:
    return page("notifications.html", "_notifications.html", **_state())


@bp.post("/notifications/<notification_id>/retry")
@require_role(Role.ADMIN)
def retry(notification_id: str) -> Any:
    def action() -> str:
        n = services().notifications.retry(notification_id, f"reviewer:{current_user().label}")
        return f"{n.notification_id} to {n.channel} is due again; the worker sends it within seconds."

    return act("notifications.html", "_notifications.html", _state, action, url_for("notifications.index"))
