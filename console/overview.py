"""Overview page: the chain, the agents and the latest decisions, refreshed live; and /healthz."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, render_template, request
from flask_htmx import HTMX

from console import web
from server.container import Services
from server.domain.guardrails.decisions import SHADOW_FILTERS, DecisionFilter

bp = Blueprint("overview", __name__)


def _services() -> Services:
    return web.services()


@bp.get("/")
def index() -> str:
    return render_template("overview.html", **_state(), htmx=HTMX())


@bp.get("/partials/decisions")
def decisions_partial() -> str:
    return render_template("_decisions.html", **_state())


@bp.get("/healthz")
def healthz() -> Any:
    s = _services()
    stats = s.decisions.stats
    return jsonify(
        status="SERVING",
        agents=s.agents.count(),
        guardrails=len(s.chain.list_guardrails()),
        decision_log={
            "written": stats.written,
            "dropped": stats.dropped,
            "failed": stats.failed,
            "restarts": stats.restarts,
            "writer": "running" if stats.up else "down",
            "last_error": stats.last_error,
            "storage": "ok" if stats.storage_ok else "unavailable",
            "journaled": stats.journaled,
            "journal_bytes": stats.journal_bytes,
            "journal_full": stats.journal_full,
            "held": stats.held,
            "replayed": stats.replayed,
            "refusing_checks": s.decisions.refusing,
        },
    )


def _state() -> dict[str, Any]:
    s = _services()
    # `?shadow=blocked|would_ask|none`: ListDecisions' shadow_outcome filter.
    shadow = request.args.get("shadow", "")
    if shadow not in SHADOW_FILTERS:
        abort(400, description="shadow must be blocked, would_ask or none")
    page = s.decisions.list(DecisionFilter(shadow_outcome=shadow), 25, "")
    return {
        "shadow": shadow,
        "guardrails": s.chain.list_guardrails(),
        "agents": s.agents.list("", 100, "").items,
        "decisions": page.items,
        "stats": s.decisions.stats,
    }
