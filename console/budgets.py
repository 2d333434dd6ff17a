"""Token budgets page (live): the global pool, each agent's allocation and usage, recent signals;
admins allocate."""

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
from server.domain.safeguards.budgets import Priority, SignalType

bp = Blueprint("budgets", __name__)

TOPIC = "budgets"
LIMIT = 500
SIGNALS_SIZE = 20
MAX_TOKENS = 10**15
# Signals are events (they poke the streams at once); usage moves without one, so the page looks
# again this often (and sends only what changed).
REFRESH_SECONDS = 1.0
PRIORITIES = [p.name for p in Priority]


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    sse.watch(app, TOPIC, sse.events_or_every(cast(Services, app.config["SERVICES"]), REFRESH_SECONDS))


def recent_signals() -> list[dict[str, Any]]:
    """The latest SIGWARN / SIGSTOP / SIGRESUME, from the durable event stream (BudgetSignal JSON)."""
    flt = EventFilter(types=frozenset({RecoveryEventType.BUDGET_SIGNAL}))
    out = []
    for e in services().recovery.events.list(flt, SIGNALS_SIZE, "").items:
        p = e.payload if isinstance(e.payload, dict) else {}
        try:
            kind = SignalType(int(p.get("type", 0))).name
        except (TypeError, ValueError):
            kind = "?"
        out.append(
            {
                "time": e.event_time,
                "type": kind,
                "global": bool(p.get("global")),
                "agent_id": str(p.get("agent_id", "")),
                "used": p.get("used", ""),
                "allocated": p.get("allocated", ""),
                "usage_percent": _number(p.get("usage_percent")),
            }
        )
    return out


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def live_context(oob: bool = False, signals: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    listed, glob = services().budgets.list(LIMIT, "")
    return {
        "allocations": listed.items,
        "more": bool(listed.next_page_token),
        "global_budget": glob,
        "signals": recent_signals() if signals is None else signals,
        "oob": oob,
    }


@bp.get("/budgets")
def index() -> str:
    return page("budgets.html", "_budgets.html", **live_context(), alone=alone(), priorities=PRIORITIES)


@bp.get("/events/budgets")
def events() -> Response:
    memo: dict[str, Any] = {"seq": None, "signals": []}

    def render() -> tuple[Hashable, str]:
        seq = services().recovery.events.latest_sequence  # read first: a signal after it is read next time
        if memo["seq"] != seq:
            memo["seq"], memo["signals"] = seq, recent_signals()
        html = render_template("_budgets.html", **live_context(oob=True, signals=memo["signals"]))
        return html, html

    return sse.stream(render, TOPIC)


@bp.post("/budgets/allocate")
@require_role(Role.ADMIN)
def allocate() -> Any:
    def action() -> str:
        form = request.form
        agent_id, priority = form.get("agent", "").strip(), form.get("priority", "NORMAL")
        if priority not in PRIORITIES:
            raise InvalidArgument(f"priority must be one of {', '.join(PRIORITIES)}", field="priority")
        try:
            tokens = int(form.get("tokens", "").strip())
        except ValueError:
            raise InvalidArgument("tokens must be a whole number", field="tokens") from None
        if tokens > MAX_TOKENS:
            raise InvalidArgument(f"tokens must be at most {MAX_TOKENS}", field="tokens")
        done = services().budgets.allocate(agent_id, tokens, int(Priority[priority]), current_user().label)
        a = done.allocation
        return f"Allocated {a.allocated} tokens to {a.agent_id} ({a.priority.name}); its count starts from zero."

    def live() -> str:
        return render_template("_budgets.html", **live_context(oob=True))

    return run(action, live, url_for("budgets.index"))
