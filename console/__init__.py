"""The reviewer console: a small Flask app over the services (never over its own gRPC API)."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_htmx import HTMX

from .overview import bp as overview_bp


def create_app(services: Any) -> Flask:
    app = Flask(__name__)
    app.config["SERVICES"] = services
    HTMX(app)
    app.register_blueprint(overview_bp)

    @app.after_request
    def _security_headers(response: Any) -> Any:
        # Agent strings are untrusted: no inline script may ever run, whatever slips into a page.
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    return app
