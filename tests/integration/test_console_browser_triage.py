"""Triage in real Chromium: the pending count in the tab title follows new and decided requests live, the
filters, the keyboard flow (j/k/Enter, a, r with a reason, e, ?), and no horizontal scrolling at 390 px
on every page. Shares the browser helpers of browserkit.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from .browserkit import console_sidecar, require_chromium, row, shoot, signed_in, wait_live
from .consolekit import PASSWORD, add_hitl, ask
from .harness import RunningSidecar

require_chromium()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[RunningSidecar, str]]:
    with console_sidecar(tmp_path) as (s, url):
        add_hitl(s)
        yield s, url


def title(n: int) -> re.Pattern[str]:
    return re.compile(rf"^\({n}\) Pending approvals")


def test_the_tab_title_counts_pending_requests_live_and_filters_narrow_the_list(
    browser: Browser, live: tuple[RunningSidecar, str], tmp_path: Path
) -> None:
    s, url = live
    ask(s, "deploy api", {"env": "prod", "replicas": 3})
    ask(s, "delete stale-backups", {"older_than": "30d"}, agent="janitor")
    page, watch = signed_in(browser, url, "alice")
    expect(page).to_have_title(title(2))
    third = ask(s, "deploy worker", {"env": "staging"})
    expect(page).to_have_title(title(3), timeout=10_000)  # no reload: the SSE update sets it
    s.services.approvals.cancel(third, "operator:test", "not needed")
    expect(page).to_have_title(title(2), timeout=10_000)
    expect(row(page, "deploy api")).to_contain_text("replicas")

    page.get_by_label("Agent").select_option("janitor")
    page.get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"/approvals\?agent=janitor"))
    wait_live(page)
    expect(page.locator("#pending-table tbody tr")).to_have_count(1)
    expect(row(page, "delete stale-backups")).to_have_count(1)
    ask(s, "deploy cache", {})  # another agent's: counted in the title, not listed here
    expect(page).to_have_title(title(3), timeout=10_000)
    expect(page.locator("#pending-table tbody tr")).to_have_count(1)
    assert watch.dialogs == [] and watch.csp == []


def test_keyboard_flow(browser: Browser, live: tuple[RunningSidecar, str]) -> None:
    s, url = live
    first = ask(s, "deploy one", {"n": 1})
    second = ask(s, "deploy two", {"n": 2})
    page, watch = signed_in(browser, url, "bob")
    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#keys-help")).to_be_hidden()

    page.keyboard.press("j")
    expect(page.locator(f"#row-{first}")).to_have_class(re.compile("selected"))
    page.keyboard.press("j")
    expect(page.locator(f"#row-{second}")).to_have_class(re.compile("selected"))
    page.keyboard.press("k")
    expect(page.locator(f"#row-{first}")).to_have_class(re.compile("selected"))
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{url}/approvals/{first}")
    wait_live(page)
    page.keyboard.press("a")
    expect(page.locator("#state")).to_have_text("APPROVED")

    page.goto(f"{url}/approvals/{second}")
    wait_live(page)
    page.keyboard.press("r")
    expect(page.locator("#comment")).to_be_focused()
    assert s.services.approvals.get(second).state.name == "PENDING"  # not without a reason
    page.keyboard.type("wrong cluster")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#state")).to_have_text("REJECTED")
    assert s.services.approvals.get(second).comment == "wrong cluster"

    third = ask(s, "deploy three", {"n": 3})
    page.goto(f"{url}/approvals/{third}")
    page.keyboard.press("e")
    expect(page).to_have_url(f"{url}/approvals/{third}/edit")
    assert watch.dialogs == [] and watch.csp == []


PAGES = [
    "/approvals",
    "/approvals/{id}",
    "/approvals/{id}/edit",
    "/history",
    "/",
    "/agents",
    "/breakers",
    "/budgets",
    "/traces",
    "/sidecars",
    "/guardrails",
    "/tokens",
    "/users",
    "/notifications",
]


# The outermost elements past the right edge (what to fix when a page is too wide).
WIDEST = """Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getBoundingClientRect().right > 391 && e.parentElement.getBoundingClientRect().right <= 391)
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""


@pytest.fixture
def phone(browser: Browser, live: tuple[RunningSidecar, str]) -> Iterator[Page]:
    url = live[1]
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
    page.goto(f"{url}/login")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).not_to_have_url(re.compile("/login"))
    yield page
    page.context.close()


def test_no_page_scrolls_sideways_at_390_px(phone: Page, live: tuple[RunningSidecar, str], tmp_path: Path) -> None:
    s, url = live
    approval_id = ask(
        s,
        "deploy web-frontend-with-a-rather-long-name",
        {"version": "2.4.1", "target": {"cluster": "eu-west-1-production-blue", "replicas": 6}},
    )
    decided = ask(s, "delete customer-db", {"older_than": "30d"}, agent="janitor")
    s.services.approvals.cancel(decided, "operator:test", "superseded")
    for path in PAGES:
        phone.goto(url + path.format(id=approval_id))
        phone.wait_for_load_state("domcontentloaded")
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width} px wide at 390 px: {phone.evaluate(WIDEST)}"
    phone.goto(f"{url}/approvals")
    link = phone.get_by_role("link", name=f"Review {approval_id}")
    box = None
    for _ in range(40):  # the live list may swap the row in between (SSE): measure the row that stays
        try:
            link.scroll_into_view_if_needed(timeout=15_000)
            expect(link).to_be_in_viewport()
            box = link.bounding_box(timeout=15_000)
            break
        except PlaywrightError:
            phone.wait_for_timeout(250)
    assert box is not None and box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 390
    shoot(phone, "console-pending-390.png", tmp_path)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_request_page_shows_its_own_decisions_first_what_is_asked(
    browser: Browser, live: tuple[RunningSidecar, str], width: int
) -> None:
    from outrider.v1 import supervisor_service_pb2 as pb
    from server.domain.approvals.requests import Reviewer

    from .rpc import check

    s, url = live

    def call(request_id: str, context: dict[str, object]) -> object:
        return s.stub.CheckAction(
            check(action="deploy web", context=context, request_id=request_id, wait_mode=pb.WAIT_MODE_NON_BLOCKING)
        )

    first = call("r-1", {"env": "prod"}).approval.approval_id  # type: ignore[attr-defined]
    s.services.approvals.decide(first, Reviewer("bob", "approver"), False, "not on a Friday")
    call("r-1", {"env": "prod"})
    second = call("r-2", {"env": "staging", "replicas": 3}).approval.approval_id  # type: ignore[attr-defined]
    s.services.decisions.flush()

    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{url}/login")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{url}/approvals")
    expect(row(page, second)).to_contain_text("staging")
    expect(row(page, second)).to_contain_text("0 of 1")
    row(page, second).get_by_role("link").click()
    wait_live(page)
    own = page.locator("#own-decisions")
    expect(own).to_contain_text(f"Waiting for approval {second}")
    expect(own).not_to_contain_text("not on a Friday")
    expect(page.locator("#recent-decisions")).to_contain_text("not on a Friday")
    tree = page.locator("#context-tree")
    expect(tree).to_contain_text("staging")
    # What is asked is above the form, and no part of the page is wider than the screen.
    assert tree.bounding_box()["y"] < page.locator("#decide").bounding_box()["y"]  # type: ignore[index]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.context.close()
