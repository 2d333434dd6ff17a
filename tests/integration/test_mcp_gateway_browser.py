"""The gateway's approval case with a reviewer in real headless Chromium: an MCP client's tools/call waits for
a person, the person approves it in the console, and the client's identical call then reaches the upstream.

Browser skipped or required as in test_console_browser.py (Debian's chromium via Playwright, never downloaded).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.sync_api import Browser, expect

from server.domain.access.principals import PrincipalKind

from .browserkit import appears_live, console_sidecar, require_chromium, row, signed_in, wait_live
from .gatewaykit import http_gateway, http_session, text_of, upstream_calls, write_config
from .harness import RunningSidecar
from .rpc import guardrail

require_chromium()

AGENT = "gw-browser-agent"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[RunningSidecar, str]]:
    with console_sidecar(tmp_path) as (s, url):
        s.stub.AddGuardrail(guardrail("release-review", "hitl", patterns=["deploy"]))
        yield s, url


def call(url: str, token: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with http_session(url, token) as s:
            return await s.call_tool("deploy", args)

    # Playwright's sync API keeps an event loop on this thread: the MCP client runs its own on another.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-client") as pool:
        return pool.submit(anyio.run, go).result(timeout=60)


@pytest.mark.timeout(240)  # a sidecar with its console, a browser and a gateway process, on a shared machine
def test_approved_in_the_console_then_the_retried_call_passes(
    browser: Browser, live: tuple[RunningSidecar, str], tmp_path: Path
) -> None:
    s, console = live
    token = s.issue(PrincipalKind.AGENT, AGENT)
    config = write_config(tmp_path, s.sidecar.target, approval_wait="0.5s")
    args = {"env": "prod", "version": "2.4.1"}
    page, watch = signed_in(browser, console, "alice")
    with http_gateway(config, tmp_path) as url:
        first = call(url, token, args)
        assert first.is_error
        m = re.search(r"waiting for human approval (apr_[0-9a-f]+); call again to continue", text_of(first))
        assert m, text_of(first)
        assert upstream_calls(tmp_path) == []

        appears_live(page, "deploy")  # the request arrives on the reviewer's open page
        r = row(page, "deploy")
        expect(r).to_contain_text(AGENT)
        expect(r).to_contain_text("release-review")
        r.get_by_role("link").click()
        expect(page).to_have_url(f"{console}/approvals/{m.group(1)}")
        expect(page.locator("#state")).to_have_text("PENDING")
        expect(page.locator("#context")).to_contain_text('"version": "2.4.1"')
        expect(page.locator("#context")).to_contain_text('"tool": "deploy"')  # the gateway's {mcp: {server, tool}}
        wait_live(page)
        still = call(url, token, args)  # asked again before anyone decided: the same request, still waiting
        assert still.is_error and m.group(1) in text_of(still)
        page.get_by_role("button", name="Approve", exact=True).click()
        expect(page.locator("#state")).to_have_text("APPROVED")

        done = call(url, token, args)
        assert not done.is_error, text_of(done)
        assert json.loads(text_of(done)) == {"tool": "deploy", "args": args}
        assert done.meta is not None and done.meta["dev.outrider/check"]["approval_id"] == m.group(1)
    assert [json.loads(c)["args"] for c in upstream_calls(tmp_path)] == [args]
    assert len(s.services.approvals.pending()) == 0
    assert watch.dialogs == [] and watch.csp == []
