"""`outrider console` as its own process on the sidecar's database: a reviewer signs in there over HTTP
and decides; the agent waiting in the sidecar's CheckAction gets the answer within a second or so."""

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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .consolekit import PASSWORD, add_hitl, add_reviewers
from .harness import RunningSidecar, make_config
from .rpc import check

ROOT = Path(__file__).resolve().parents[2]


class Browserless:
    """Just enough of a browser: cookies, forms, the CSRF meta tag."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str) -> str:
        with self.opener.open(self.url + path, timeout=10) as r:
            return str(r.read().decode())

    def post(self, path: str, **form: str) -> tuple[int, str]:
        data = urllib.parse.urlencode(form).encode()
        try:
            with self.opener.open(self.url + path, data=data, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def csrf(self, path: str) -> str:
        match = re.search(r'name="csrf-token" content="([^"]+)"', self.get(path))
        assert match
        return match.group(1)


def test_a_separate_console_process_decides_for_the_sidecar(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path)) as s:
        add_hitl(s)
        add_reviewers(s, ("alice",))
        url_file = tmp_path / "console-url"
        log = (tmp_path / "console.log").open("wb")
        flags = ["--data-dir", str(tmp_path / "data"), "--console-listen", "127.0.0.1:0", "--url-file", str(url_file)]
        proc = subprocess.Popen(
            [sys.executable, "-m", "server", "console", *flags],
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        pool = ThreadPoolExecutor(max_workers=1)
        try:
            deadline = time.monotonic() + 30
            while not (url_file.exists() and url_file.read_text()):
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "console.log").read_text()
                time.sleep(0.05)
            console = Browserless(url_file.read_text())
            stub = s.as_agent("agent-1").stub
            waiting = pool.submit(stub.CheckAction, check(agent_id="agent-1", action="deploy api"), timeout=180)
            status, _ = console.post("/login", username="alice", password=PASSWORD, csrf_token=console.csrf("/login"))
            assert status == 200  # followed the 303 to the pending page
            approval_id = ""
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the request shows up on the other process's pending page
                found = re.search(r"/approvals/(apr_[0-9a-f]+)", console.get("/approvals"))
                if found:
                    approval_id = found.group(1)
                    break
                time.sleep(0.05)
            assert approval_id and not waiting.done()
            token = console.csrf(f"/approvals/{approval_id}")
            status, page = console.post(f"/approvals/{approval_id}/decide", decision="approve", csrf_token=token)
            assert status == 200 and "APPROVED" in page
            # No timeout on the guardrail: only the other process's decision can release the agent (how soon
            # is measured by `make bench`, not asserted here).
            answer = waiting.result(timeout=60)
            assert answer.allowed, answer
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0, (tmp_path / "console.log").read_text()
            log.close()
