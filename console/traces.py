"""Traces page: recent traces through this sidecar (its in-memory buffer) as server-rendered waterfalls; and
the Prometheus `/metrics` endpoint, answered before the console's sign-in like `/healthz`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from flask import Blueprint, Flask, render_template, request

from console.web import page, services
from server.container import Services
from server.telemetry.prometheus import CONTENT_TYPE

bp = Blueprint("traces", __name__)

OUTCOMES = ("allowed", "blocked", "pending", "error")
PAGE_SIZE = 50


def _telemetry() -> Any:
    return getattr(services(), "telemetry", None)


@bp.app_context_processor
def _links() -> dict[str, Any]:
    """What `_trace_link.html` needs on any page."""
    return {"jaeger_ui_url": services().config.console_jaeger_ui_url}


@bp.get("/traces")
def index() -> str:
    f = {k: request.args.get(k, "").strip() for k in ("agent", "outcome", "decision")}
    if f["outcome"] not in ("", *OUTCOMES):
        f["outcome"] = ""
    number = max(0, min(request.args.get("page", type=int) or 0, 10_000))
    telemetry = _telemetry()
    recent = telemetry.recent if telemetry is not None else None
    # The buffer is in memory and ordered by latest activity: pages are offsets into it (a trace active
    # between two pages moves to the first one).
    end = (number + 1) * PAGE_SIZE
    found = recent.list(f["agent"], f["outcome"], f["decision"].lower(), end + 1) if recent is not None else []
    query = {k: v for k, v in f.items() if v}
    return page(
        "traces.html",
        "_traces.html",
        f=f,
        traces=found[number * PAGE_SIZE : end],
        page_number=number,
        has_next=len(found) > end,
        query=query,
        outcomes=OUTCOMES,
        tracing=recent is not None,
        kept=len(recent) if recent is not None else 0,
        capacity=recent.max_traces if recent is not None else 0,
        settings=telemetry.settings if telemetry is not None else None,
    )


@bp.get("/traces/<trace_id>")
def detail(trace_id: str) -> tuple[str, int]:
    trace_id = trace_id.lower()
    telemetry = _telemetry()
    recent = telemetry.recent if telemetry is not None else None
    view = recent.get(trace_id) if recent is not None and _is_trace_id(trace_id) else None
    status = 200 if view is not None else 404
    return render_template("trace.html", t=view, trace_id=trace_id, decision=request.args.get("decision", "")), status


def _is_trace_id(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text) and text != "0" * 32


# ---- /metrics ----------------------------------------------------------------------------------


class _MetricsEndpoint:
    """WSGI middleware: GET /metrics answers the Prometheus text; anything else goes to the console."""

    def __init__(self, app: Callable[..., Iterable[bytes]], services: Services) -> None:
        self.app, self.services = app, services

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != "/metrics" or environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return self.app(environ, start_response)
        telemetry = getattr(self.services, "telemetry", None)
        text = telemetry.prometheus_text() if telemetry is not None else None
        if text is None:
            body = b"metrics are off (telemetry.metrics: false)\n"
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"), *_headers(body)])
            return [body]
        body = text.encode()
        start_response("200 OK", [("Content-Type", CONTENT_TYPE), *_headers(body)])
        return [body] if environ.get("REQUEST_METHOD") == "GET" else [b""]


def _headers(body: bytes) -> list[tuple[str, str]]:
    return [("Content-Length", str(len(body))), ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")]


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.wsgi_app = _MetricsEndpoint(app.wsgi_app, cast(Services, app.config["SERVICES"]))  # type: ignore[method-assign]
