"""The console in real headless Chromium (Debian's `chromium`, driven by Playwright; never downloaded),
against a real sidecar whose agents wait in real gRPC CheckAction calls.

`make test` installs Chromium (scripts/chromium.sh) and requires these tests; a bare `pytest` without
/usr/bin/chromium skips them. Set OUTRIDER_SCREENSHOTS=1 to refresh docs/console-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, expect

from outrider.v1 import supervisor_pb2

from .browserkit import (
    LIVE,
    appears_live,
    console_sidecar,
    require_chromium,
    row,
    shoot,
    signed_in,
    wait_live,
)
from .consolekit import PASSWORD, XSS_ACTION, XSS_ATTR, XSS_CONTEXT, add_hitl, ask
from .harness import RunningSidecar
from .rpc import check

require_chromium()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[RunningSidecar, str]]:
    with console_sidecar(tmp_path) as (s, url):
        add_hitl(s)
        yield s, url


@pytest.fixture
def agents() -> Iterator[ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="waiting-agent")
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)


def waiting_check(s: RunningSidecar, pool: ThreadPoolExecutor, action: str, **context: Any) -> Future[Any]:
    """A real blocking CheckAction of agent-1, waiting in a thread for a reviewer."""
    stub = s.as_agent("agent-1").stub
    return pool.submit(stub.CheckAction, check(agent_id="agent-1", action=action, context=context), timeout=60)


def test_request_arrives_live_and_approve_releases_the_waiting_agent(
    browser: Browser, live: tuple[RunningSidecar, str], agents: ThreadPoolExecutor, tmp_path: Path
) -> None:
    s, url = live
    page, watch = signed_in(browser, url, "alice")
    expect(page.get_by_text("Nothing is waiting")).to_be_visible()
    call = waiting_check(s, agents, "deploy web-frontend", version="2.4.1", replicas=6, target="production")
    appears_live(page, "deploy web-frontend")
    r = row(page, "deploy web-frontend")
    expect(r).to_contain_text("agent-1")
    expect(r).to_contain_text("hitl")
    expect(r).to_contain_text("never")  # no expiry configured
    assert not call.done()
    ask(s, "delete stale-backups", {"older_than": "30d", "bucket": "s3://backups-eu"}, agent="janitor")
    ask(s, "payments.deploy-refund-batch", {"count": 42, "total_eur": 1260.5}, agent="billing-agent")
    appears_live(page, "payments.deploy-refund-batch")
    shoot(page, "console-pending.png", tmp_path)

    r.get_by_role("link").click()
    expect(page.locator("#state")).to_have_text("PENDING")
    expect(page.locator("#context")).to_contain_text('"replicas": 6')
    wait_live(page)
    shoot(page, "console-detail.png", tmp_path)
    page.get_by_role("button", name="Approve", exact=True).click()
    expect(page.locator("#state")).to_have_text("APPROVED")
    answer = call.result(timeout=60)
    assert answer.allowed, answer
    assert answer.approval.state == supervisor_pb2.APPROVAL_STATE_APPROVED
    expect(page.locator("#decide")).to_contain_text("closed")
    assert watch.dialogs == [] and watch.csp == []


def test_reject_needs_a_comment_and_the_agent_gets_it(
    browser: Browser, live: tuple[RunningSidecar, str], agents: ThreadPoolExecutor
) -> None:
    s, url = live
    page, watch = signed_in(browser, url, "bob")
    call = waiting_check(s, agents, "delete customer-db")
    appears_live(page, "delete customer-db")
    row(page, "delete customer-db").get_by_role("link").click()
    page.get_by_role("button", name="Reject").click()
    expect(page.locator("#decide-message")).to_contain_text("write a comment to reject")
    assert not call.done()
    page.get_by_label("Comment").fill("not during the freeze; ask again Monday")
    page.get_by_role("button", name="Reject").click()
    expect(page.locator("#state")).to_have_text("REJECTED")
    answer = call.result(timeout=60)
    assert not answer.allowed
    assert "not during the freeze; ask again Monday" in answer.reason and "bob" in answer.reason
    assert watch.dialogs == [] and watch.csp == []


def test_a_request_decided_elsewhere_vanishes_from_every_open_screen(
    browser: Browser, live: tuple[RunningSidecar, str]
) -> None:
    s, url = live
    watcher, _ = signed_in(browser, url, "alice")
    first, second = ask(s, "deploy api"), ask(s, "deploy worker")
    appears_live(watcher, "deploy api")
    appears_live(watcher, "deploy worker")
    # alice also has the first request open in a second tab.
    detail = watcher.context.new_page()
    detail.goto(f"{url}/approvals/{first}")
    wait_live(detail)
    expect(detail.get_by_role("button", name="Approve", exact=True)).to_be_visible()

    other, _ = signed_in(browser, url, "bob")
    other.goto(f"{url}/approvals/{first}")
    other.get_by_role("button", name="Approve", exact=True).click()
    expect(other.locator("#state")).to_have_text("APPROVED")

    expect(row(watcher, "deploy api")).to_have_count(0, timeout=LIVE)
    expect(row(watcher, "deploy worker")).to_have_count(1)
    expect(detail.locator("#state")).to_have_text("APPROVED", timeout=LIVE)
    expect(detail.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    assert watcher.url == f"{url}/approvals"  # no reload happened
    assert s.services.approvals.get(second).state.name == "PENDING"


def test_agent_payloads_are_inert_in_the_browser(browser: Browser, live: tuple[RunningSidecar, str]) -> None:
    s, url = live
    page, watch = signed_in(browser, url, "alice")
    approval_id = ask(s, XSS_ACTION, XSS_CONTEXT)
    appears_live(page, "deploy <script>")  # arrives through the SSE stream, as text
    expect(row(page, XSS_ACTION)).to_contain_text(XSS_ACTION)
    row(page, XSS_ACTION).hover()
    row(page, XSS_ACTION).get_by_role("link").click()
    expect(page.locator("#context")).to_contain_text(XSS_ATTR.replace('"', '\\"'))
    expect(page.locator("#context-tree")).to_contain_text(XSS_ATTR)
    page.locator("#context-tree").hover()
    page.get_by_label("Comment").fill('<img src=x onerror=alert("c")>')
    page.get_by_role("button", name="Reject").click()
    expect(page.locator("#state")).to_have_text("REJECTED")
    page.goto(f"{url}/history")
    expect(page.get_by_role("cell", name=XSS_ACTION)).to_be_visible()
    still_open = ask(s, XSS_ACTION, XSS_CONTEXT, agent="agent-2")
    assert still_open != approval_id
    page.goto(f"{url}/approvals/{still_open}/edit")
    page.get_by_label("Context (JSON)").fill('{"<svg onload=alert(4)>": "<script>alert(5)</script>"}')
    expect(page.locator("#edit-preview")).to_contain_text("<svg onload=alert(4)>")
    for p in (page,):
        assert p.locator("[onmouseover], [onerror], [onload]").count() == 0
        assert p.locator("script:not([src])").count() == 0
    assert watch.dialogs == [], watch.dialogs
    assert watch.csp == [], watch.csp


def test_edit_then_approve_sends_the_edited_context(
    browser: Browser, live: tuple[RunningSidecar, str], agents: ThreadPoolExecutor
) -> None:
    s, url = live
    page, watch = signed_in(browser, url, "alice")
    call = waiting_check(s, agents, "deploy batch", replicas=10, region="eu")
    appears_live(page, "deploy batch")
    row(page, "deploy batch").get_by_role("link").click()
    page.get_by_role("link", name="Edit the context, then approve").click()
    # Typing before htmx has wired the editor would send no preview request: wait for the page to load.
    page.wait_for_url("**/edit")
    page.wait_for_load_state("load")
    page.wait_for_function("() => window.htmx !== undefined")
    editor = page.get_by_label("Context (JSON)")
    editor.fill('{"replicas": 2, "region": "eu"')
    expect(page.locator("#edit-preview")).to_contain_text("Not valid")
    editor.fill('{"replicas": 2, "region": "eu"}')
    diff = page.locator("#edit-preview tr.diff-changed")
    expect(diff).to_contain_text("replicas")
    expect(diff).to_contain_text("10")
    page.get_by_role("button", name="Approve", exact=True).click()
    expect(page.locator("#state")).to_have_text("APPROVED")
    expect(page.get_by_text("Edited context")).to_be_visible()
    answer = call.result(timeout=60)
    assert answer.allowed, answer
    assert dict(answer.effective_context) == {"replicas": 2, "region": "eu"}
    assert watch.dialogs == [] and watch.csp == []


@pytest.mark.parametrize(
    "evil",
    ["/%09/evil.example/pwned", "/%5Cevil.example/pwned", "//evil.example/pwned", "/%0d%0a/evil.example/pwned"],
)
def test_sign_in_never_sends_chromium_off_site(browser: Browser, live: tuple[RunningSidecar, str], evil: str) -> None:
    """`next` that a browser would read as another host (a tab it drops, a backslash it reads as a slash)
    lands on the default page; a CR/LF in it is no 500."""
    _, url = live
    page = browser.new_context().new_page()
    off_site: list[str] = []

    def record(route: Any) -> None:  # never reach the network: note where Chromium went
        off_site.append(route.request.url)
        route.fulfill(status=200, body="off-site")

    console_host = urlsplit(url).netloc
    page.route("**/*", lambda r: r.continue_() if urlsplit(r.request.url).netloc == console_host else record(r))
    page.goto(f"{url}/login?next={evil}")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{url}/approvals")
    assert off_site == []
    page.goto(f"{url}/login?next={evil}")  # signed in: sent on at once, still not off-site
    expect(page).to_have_url(f"{url}/approvals")
    assert off_site == []
