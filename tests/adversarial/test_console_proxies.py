"""Sign-in throttling behind a real reverse proxy process and directly: failures count per client address
(as `console.trusted_proxies` finds it) and per username separately, so a flood from one address never locks
out reviewers signing in from other addresses. Linux routes all of 127.0.0.0/8 to loopback, so clients
bind 127.0.0.2, 127.0.0.3, ... to be different addresses."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from tests.integration.consolekit import PASSWORD, add_reviewers
from tests.integration.harness import RunningSidecar, make_config

ROOT = Path(__file__).resolve().parents[2]


class Client:
    """One browser at one source address: keeps the session cookie, does not follow redirects."""

    def __init__(self, url: str, source: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.source, self.headers = source, headers or {}
        self.cookie = ""
        self.set_cookie = ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30, source_address=(self.source, 0))
        headers = dict(self.headers)
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookie:
            headers["Cookie"] = self.cookie
        try:
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            text = r.read().decode()
            cookie = r.getheader("Set-Cookie")
            if cookie:
                self.set_cookie = cookie
                self.cookie = cookie.split(";", 1)[0]
            return r.status, text
        finally:
            conn.close()

    def login(self, name: str, password: str) -> int:
        _, page = self.request("GET", "/login")
        token = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert token, page[:300]
        status, _ = self.request("POST", "/login", {"username": name, "password": password, "csrf_token": token[1]})
        return status


@pytest.fixture
def console(tmp_path: Path) -> Iterator[str]:
    config = make_config(
        tmp_path, console_enabled=True, console_listen="127.0.0.1:0", console_trusted_proxies=("127.0.0.1",)
    )
    with RunningSidecar(config, with_console=True) as s:
        add_reviewers(s, ("alice", "bob"))
        yield s.services.health["console_url"]


@pytest.fixture
def proxy(console: str, tmp_path: Path) -> Iterator[str]:
    """The console behind a real reverse proxy process that terminates "TLS" (says X-Forwarded-Proto: https)."""
    port_file = tmp_path / "proxy-port"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.reverse_proxy", console, str(port_file), "--proto", "https"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text()):
            assert proc.poll() is None and time.monotonic() < deadline, "the proxy did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}"
    finally:
        proc.terminate()
        proc.wait(10)


def flood(url: str, source: str, name: str = "alice", n: int = 8, **headers: str) -> list[int]:
    return [Client(url, source, headers).login(name, "wrong guess") for _ in range(n)]


def test_behind_a_proxy_a_flood_locks_out_only_its_own_address(proxy: str) -> None:
    statuses = flood(proxy, "127.0.0.2")
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    assert Client(proxy, "127.0.0.2").login("bob", PASSWORD) == 429  # the flooding address, any name
    alice = Client(proxy, "127.0.0.3")
    assert alice.login("alice", PASSWORD) == 303  # the flooded name, from another address
    assert "Secure" in alice.set_cookie  # the proxy said https
    assert alice.request("GET", "/approvals")[0] == 200
    assert Client(proxy, "127.0.0.4").login("bob", PASSWORD) == 303


def test_behind_a_proxy_a_forged_forwarded_for_does_not_help(proxy: str) -> None:
    """The proxy appends the real peer; what the client wrote left of it is not believed."""
    statuses = [
        Client(proxy, "127.0.0.2", {"X-Forwarded-For": f"198.51.100.{i}"}).login("alice", "wrong") for i in range(8)
    ]
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    assert Client(proxy, "127.0.0.3").login("alice", PASSWORD) == 303


def test_directly_a_flood_locks_out_only_its_own_address(console: str) -> None:
    # Not a trusted proxy: its X-Forwarded-For is ignored, so rotating it does not reset its count.
    statuses = [
        Client(console, "127.0.0.2", {"X-Forwarded-For": f"198.51.100.{i}"}).login("alice", "wrong") for i in range(8)
    ]
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    direct = Client(console, "127.0.0.3")
    assert direct.login("alice", PASSWORD) == 303
    assert "Secure" not in direct.set_cookie


def test_guesses_spread_over_many_addresses_still_lock_the_username(console: str) -> None:
    for i in range(5):
        assert Client(console, f"127.0.1.{i + 1}").login("alice", "wrong") == 401
    assert Client(console, "127.0.2.1").login("alice", PASSWORD) == 429
    assert Client(console, "127.0.2.1").login("bob", PASSWORD) == 303
