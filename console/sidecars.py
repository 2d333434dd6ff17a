"""Sidecars page: every `outrider serve` sharing this database, with its health (from its heartbeat) and
the fleet policy version it runs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from console.web import page, services

bp = Blueprint("sidecars", __name__)


def _state() -> dict[str, Any]:
    fleet = services().fleet
    policy, applied = services().policy.status()
    return {
        "sidecars": fleet.status(),
        "timeout": fleet.settings.sidecar_timeout,
        "policy": policy,
        "applied": {a.sidecar_id: a for a in applied},
    }


@bp.get("/sidecars")
def index() -> str:
    return page("sidecars.html", "_sidecars.html", **_state())
