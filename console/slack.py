"""Slack's interactions endpoint: `POST /slack/interactions` (button clicks and the Reject modal).

Public like /healthz (Slack has no console session) and without the CSRF token: each request is verified
by Slack's signature instead (server/services/notifications/slack.py).
"""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request
from werkzeug.wrappers import Response

from console.web import services
from server.domain.notifications.slack import MAX_BODY

bp = Blueprint("slack", __name__)


@bp.post("/slack/interactions")
def interactions() -> Response:
    slack = services().slack
    if slack is None:
        abort(404)
    if (request.content_length or 0) > MAX_BODY:
        abort(413)
    body = request.get_data(cache=True, as_text=False)  # the exact bytes Slack signed
    answer = slack.handle(dict(request.headers.items()), body, request.remote_addr or "")
    if answer.body is not None:
        response = jsonify(answer.body)
        response.status_code = answer.status
        return response
    return Response(answer.refusal if answer.status >= 400 else "", answer.status, mimetype="text/plain")
