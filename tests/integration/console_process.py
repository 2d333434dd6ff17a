"""`outrider console` in its own process for tests: start it on a database, talk to it like a browser."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Browserless:
    """Just enough of a browser: cookies, forms, the CSRF meta tag; redirects are not followed."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())
        self.opener.addheaders = list((headers or {}).items())

    def request(self, path: str, form: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        try:
            with self.opener.open(self.url + path, data=data, timeout=20) as r:
                return r.status, r.read().decode(), dict(r.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(), dict(exc.headers)

    def csrf(self, path: str) -> str:
        status, body, _ = self.request(path)
        match = re.search(r'name="csrf-token" content="([^"]+)"', body)
        assert match, (status, body[:300])
        return match.group(1)

    def sign_in(self, name: str, password: str) -> int:
        status, _, _ = self.request(
            "/login", {"username": name, "password": password, "csrf_token": self.csrf("/login")}
        )
        return status

    def signed_in(self) -> bool:
        status, _, headers = self.request("/approvals")
        if status == 303:
            assert headers["Location"].startswith("/login"), headers
            return False
        assert status == 200, status
        return True


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@contextmanager
def console_process(tmp_path: Path, *flags: str, name: str = "console") -> Iterator[str]:
    """`outrider console FLAGS` on 127.0.0.1:0; yields its URL; SIGTERM at the end."""
    url_file = tmp_path / f"{name}-url"
    log_path = tmp_path / f"{name}.log"
    listen = ("--console-listen", "127.0.0.1:0", "--url-file", str(url_file))
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server", "console", *flags, *listen],
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    try:
        deadline = time.monotonic() + 60
        while not (url_file.exists() and url_file.read_text()):
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.05)
        yield url_file.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
