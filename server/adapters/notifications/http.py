"""The webhook channel: a POST signed as Standard Webhooks says (and the POST the Slack channel shares)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from server.domain.notifications import signing
from server.services.notifications.ports import DeliveryFailed

USER_AGENT = "outrider-notifications/1"
_MAX_READ = 4096


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """urllib would turn a redirected POST into a GET without the body (and count its 200 as delivered),
    or follow the receiver anywhere it points: a redirect is a failure instead."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def post_json(url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> None:
    """POST and expect a 2xx; anything else raises DeliveryFailed (final only for a 4xx that retrying
    cannot fix: the receiver says the request itself is wrong)."""
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("content-type", "application/json")
    request.add_header("user-agent", USER_AGENT)
    for key, value in headers.items():
        request.add_header(key, value)
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            response.read(_MAX_READ)
    except urllib.error.HTTPError as exc:
        final = exc.code in (400, 401, 403, 404, 410, 413, 422)
        note = " (redirects are not followed)" if 300 <= exc.code < 400 else ""
        raise DeliveryFailed(f"HTTP {exc.code} {exc.reason}{note}"[:300], final=final) from None
    except urllib.error.URLError as exc:
        raise DeliveryFailed(f"cannot reach the receiver: {exc.reason}") from None
    except (TimeoutError, OSError) as exc:
        raise DeliveryFailed(f"cannot reach the receiver: {exc}") from None


class WebhookSender:
    def __init__(self, url: str, secret: str, timeout: float, now: Callable[[], float] = time.time) -> None:
        self.url, self.secret, self.timeout, self.now = url, secret, timeout, now

    def send(self, document: Mapping[str, Any]) -> None:
        body = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
        headers = signing.headers(self.secret, str(document["id"]), int(self.now()), body)
        post_json(self.url, body, headers, self.timeout)
