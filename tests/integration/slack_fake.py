"""A local fake of Slack for the Slack channel's tests: a real HTTP server on 127.0.0.1:0 that answers the
Web API methods the sidecar calls (chat.postMessage, chat.update, views.open under /api/) and takes POSTs
to response URLs (under /respond/), recording every call; and signed interaction requests as Slack sends
them (form-encoded `payload=` JSON, `X-Slack-Signature` and `X-Slack-Request-Timestamp`)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode

from server.domain.notifications.slack import sign


@dataclass
class Call:
    method: str  # "chat.postMessage", ..., or "respond" for a response_url
    path: str
    token: str  # the bearer token sent
    body: dict[str, Any]


class FakeSlack:
    """`errors[method]` makes the next call of that method answer `ok: false` with that error."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.errors: dict[str, str] = {}
        self.lock = threading.Lock()
        self._ts = itertools.count(1)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                body = json.loads(raw or b"{}")
                token = self.headers.get("authorization", "").removeprefix("Bearer ")
                answer: dict[str, Any]
                if self.path.startswith("/respond/"):
                    method, answer = "respond", {"ok": True}
                else:
                    method = self.path.removeprefix("/api/")
                    with fake.lock:
                        error = fake.errors.pop(method, "")
                    answer = {"ok": False, "error": error} if error else fake.answer(method, body)
                with fake.lock:
                    fake.calls.append(Call(method, self.path, token, body))
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        if method == "chat.postMessage":
            return {"ok": True, "channel": "C0FAKE", "ts": f"1700000000.{next(self._ts):06d}"}
        if method == "chat.update":
            return {"ok": True, "channel": body.get("channel"), "ts": body.get("ts")}
        if method == "views.open":
            return {"ok": True, "view": {"id": "V1"}}
        return {"ok": False, "error": "unknown_method"}

    def url(self, path: str = "") -> str:
        port = self.server.server_address[1]
        return f"http://127.0.0.1:{port}{path}"

    def of(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def signed(secret: str, payload: dict[str, Any], timestamp: int | None = None) -> tuple[bytes, dict[str, str]]:
    """The body and headers of an interaction request as Slack sends it, signed with `secret`."""
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = int(time.time()) if timestamp is None else timestamp
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": str(stamp),
        "X-Slack-Signature": sign(secret, stamp, body),
    }
    return body, headers


def block_action(
    user: str, action_id: str, approval_id: str, response_url: str, ts: str = "1700000000.000001"
) -> dict[str, Any]:
    """A button click (`block_actions`) on a message in channel C0FAKE."""
    return {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "team_id": "T1"},
        "team": {"id": "T1", "domain": "example"},
        "trigger_id": f"trigger-{user}-{time.monotonic_ns()}",
        "response_url": response_url,
        "container": {"type": "message", "channel_id": "C0FAKE", "message_ts": ts},
        "channel": {"id": "C0FAKE"},
        "actions": [{"type": "button", "action_id": action_id, "value": approval_id, "block_id": "b"}],
    }


def view_submission(user: str, private_metadata: str, reason: str, callback_id: str) -> dict[str, Any]:
    """The Reject modal submitted with `reason`."""
    return {
        "type": "view_submission",
        "user": {"id": user, "team_id": "T1"},
        "team": {"id": "T1"},
        "view": {
            "id": "V1",
            "callback_id": callback_id,
            "private_metadata": private_metadata,
            "state": {"values": {"reason": {"reason": {"type": "plain_text_input", "value": reason}}}},
        },
    }
