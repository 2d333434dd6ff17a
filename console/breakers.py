"""Circuit breakers page (live): every breaker and its recent state changes; admins force or reset them."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast

from flask import Blueprint, Flask, render_template, request, url_for
from werkzeug.wrappers import Response

from console import sse
from console.actions import alone, run
from console.security import current_user, require_role
from console.web import page, services
from server.container import Services
from server.domain.access.users import Role
from server.domain.errors import InvalidArgument
from server.domain.recovery.events import EventFilter, RecoveryEventType
from server.domain.safeguards.breakers import BreakerState

bp = Blueprint("breakers", __name__)

TOPIC = "breakers"
LIMIT = 500
CHANGES_SIZE = 20
MAX_REASON = 500
# State changes are events (they poke the streams at once); failure and in-flight counts move without
# one, so the page looks again this often (and sends only what changed).
REFRESH_SECONDS = 1.0
OPERATIONS = {"force_open": "Forced open", "force_close": "Forced closed", "reset": "Reset"}


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    sse.watch(app, TOPIC, sse.events_or_every(cast(Services, app.config["SERVICES"]), REFRESH_SECONDS))


def recent_changes() -> list[dict[str, Any]]:
    """The latest state changes, from the durable event stream (the payload is BreakerStateChange JSON)."""
    flt = EventFilter(types=frozenset({RecoveryEventType.BREAKER_STATE_CHANGE}))
    out = []
    for e in services().recovery.events.list(flt, CHANGES_SIZE, "").items:
        p = e.payload if isinstance(e.payload, dict) else {}
        out.append(
            {
                "time": e.event_time,
                "key": str(p.get("key", "")),
                "from": _state(p.get("from_state")),
                "to": _state(p.get("to_state")),
                "generation": p.get("generation", ""),
                "failure_count": p.get("failure_count", ""),
                "reason": str(p.get("reason", "")),
            }
        )
    return out


def _state(value: Any) -> str:
    try:
        return BreakerState(int(value)).name
    except (TypeError, ValueError):
        return "?"


def live_context(oob: bool = False, changes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    listed = services().breakers.list(0, "", LIMIT, "")
    return {
        "breakers": listed.items,
        "more": bool(listed.next_page_token),
        "changes": recent_changes() if changes is None else changes,
        "oob": oob,
    }


@bp.get("/breakers")
def index() -> str:
    return page("breakers.html", "_breakers.html", **live_context(), alone=alone())


@bp.get("/events/breakers")
def events() -> Response:
    memo: dict[str, Any] = {"seq": None, "changes": []}

    def render() -> tuple[Hashable, str]:
        seq = services().recovery.events.latest_sequence  # read first: a change after it is read next time
        if memo["seq"] != seq:
            memo["seq"], memo["changes"] = seq, recent_changes()
        html = render_template("_breakers.html", **live_context(oob=True, changes=memo["changes"]))
        return html, html

    return sse.stream(render, TOPIC)


@bp.post("/breakers/control")
@require_role(Role.ADMIN)
def control() -> Any:
    def action() -> str:
        form = request.form
        key, op, reason = form.get("key", "").strip(), form.get("op", ""), form.get("reason", "").strip()
        if op not in OPERATIONS:
            raise InvalidArgument("choose Force open, Force close or Reset", field="op")
        if len(reason) > MAX_REASON:
            raise InvalidArgument(f"the reason must be at most {MAX_REASON} characters", field="reason")
        breakers, actor = services().breakers, current_user().label
        if op == "force_open":
            b = breakers.force_open(key, reason, actor)
        elif op == "force_close":
            b = breakers.force_close(key, reason, actor)
        else:
            b = breakers.reset(key, actor)
        return f"{OPERATIONS[op]} {key!r}: it is now {b.state.name}."

    def live() -> str:
        return render_template("_breakers.html", **live_context(oob=True))

    return run(action, live, url_for("breakers.index"))
