"""The reviewer console: a small Flask app over the services (never over its own gRPC API)."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_htmx import HTMX

from console import agents, breakers, budgets, security, traces, web
from console.approvals import bp as approvals_bp
from console.auth import bp as auth_bp
from console.guardrails import bp as guardrails_bp
from console.notifications import bp as notifications_bp
from console.overview import bp as overview_bp
from console.proxies import TrustedProxies, parse_networks
from console.sidecars import bp as sidecars_bp
from console.slack import bp as slack_bp
from console.sse import bp as sse_bp
from console.sse import init_app as init_sse
from console.tokens import bp as tokens_bp
from console.users import bp as users_bp
from server.config import Config
from server.container import Services


def create_app(services: Services, config: Config | None = None, *, max_streams: int = 64) -> Flask:
    """The console over `services` (and `config`, by default the services' own); at most `max_streams` live
    (SSE) connections at once."""
    config = config or services.config
    app = Flask(__name__)
    app.config["SERVICES"] = services
    proxies = parse_networks(config.console_trusted_proxies)
    if proxies:
        app.wsgi_app = TrustedProxies(app.wsgi_app, proxies)  # type: ignore[method-assign]
    # Form posts are small; this bounds what an anonymous client can make the console parse.
    app.config["MAX_CONTENT_LENGTH"] = 2 * config.max_context_bytes + (64 << 10)
    HTMX(app)
    security.init_app(app, services.users.session_secret())
    web.init_app(app)
    init_sse(app, max_streams)
    pages = (auth_bp, overview_bp, approvals_bp, guardrails_bp, tokens_bp, users_bp, notifications_bp, sidecars_bp)
    for bp in (*pages, sse_bp, slack_bp):
        app.register_blueprint(bp)
    for live_page in (agents, breakers, budgets):  # each registers its blueprint and its live topic
        live_page.init_app(app)
    traces.init_app(app)  # the Traces page, and /metrics (public, like /healthz)

    @app.context_processor
    def _globals() -> dict[str, Any]:
        return {"auth_enabled": config.auth_enabled}

    @app.after_request
    def _security_headers(response: Any) -> Any:
        # Agent strings are untrusted: no inline script may ever run, whatever slips into a page.
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app
