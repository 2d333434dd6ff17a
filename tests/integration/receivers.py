"""Real local receivers for notification tests: an HTTP server that checks Standard Webhooks signatures
and counts deliveries (answering with scripted statuses, or holding requests open), and a real SMTP
server (aiosmtpd) that keeps what it receives."""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from server.domain.notifications import signing


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    signature_ok: bool | None  # None: no secret to check with

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class HttpReceiver:
    """`statuses` are answered in order (then 200); while `hold` is set, requests wait before answering."""

    secret: str = ""
    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    hold: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver.arrived.set()
                if receiver.hold.is_set():
                    receiver.release.wait(60)
                with receiver.lock:
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                    ok = signing.verify(receiver.secret, headers, body, int(time.time())) if receiver.secret else None
                    receiver.received.append(Received(self.path, headers, body, status, ok))
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("location", receiver.url("/elsewhere"))
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def do_GET(self) -> None:  # a follower of a redirect would arrive here
                with receiver.lock:
                    receiver.received.append(Received(self.path, dict(self.headers.items()), b"", 200, None))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def delivered(self) -> list[Received]:
        """Requests answered 2xx, i.e. deliveries the sender saw succeed."""
        with self.lock:
            return [r for r in self.received if 200 <= r.status < 300]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Keep:
    def __init__(self) -> None:
        self.messages: list[tuple[Envelope, Message]] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        self.messages.append((envelope, message_from_bytes(raw)))
        return "250 Message accepted for delivery"


class SmtpReceiver:
    """aiosmtpd on a local port; with `tls` a certificate for STARTTLS (or implicit TLS), with `login`
    a required LOGIN/PLAIN user."""

    def __init__(
        self, tls: ssl.SSLContext | None = None, implicit_tls: bool = False, login: tuple[str, str] | None = None
    ) -> None:
        self.keep = _Keep()
        self.port = free_port()
        kw: dict[str, Any] = {}
        if login is not None:
            user, password = login

            def authenticate(
                server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
            ) -> AuthResult:
                ok = isinstance(data, LoginPassword) and (data.login.decode(), data.password.decode()) == (
                    user,
                    password,
                )
                return AuthResult(success=ok, handled=False)  # aiosmtpd then answers 535 itself

            # aiosmtpd counts only STARTTLS as TLS for AUTH; under implicit TLS the socket is TLS already.
            kw |= {"authenticator": authenticate, "auth_require_tls": tls is not None and not implicit_tls}
        if tls is not None and implicit_tls:
            kw["ssl_context"] = tls
        elif tls is not None:
            kw |= {"tls_context": tls, "require_starttls": True}
        self.controller = Controller(self.keep, hostname="127.0.0.1", port=self.port, **kw)
        self.controller.start()

    @property
    def messages(self) -> list[tuple[Envelope, Message]]:
        return self.keep.messages

    def close(self) -> None:
        self.controller.stop()


def wait_until(predicate: Any, timeout: float = 20.0) -> None:
    """For the tests on the real clock across processes (the worker runs on its own thread)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def parts(message: Message) -> Iterator[tuple[str, str]]:
    for part in message.walk():
        if part.get_content_maintype() == "text":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            yield part.get_content_type(), payload.decode(part.get_content_charset() or "utf-8")
