"""What the browser tests share: Debian's Chromium (never downloaded), its flags, the wait for something the page
shows on its own, signing in, and a sidecar with its console. The `browser` fixture is in conftest.py.

`make test` installs Chromium (scripts/chromium.sh) and requires these tests; a bare `pytest` without
/usr/bin/chromium skips them: each browser module calls `require_chromium()` first.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .consolekit import PASSWORD, add_reviewers
from .harness import RunningSidecar, make_config

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DOCS = Path(__file__).resolve().parents[2] / "docs"
# "Live" is proved by the page not reloading (the row arrives over the SSE stream); how fast (the issue's
# "within a second") is a timing claim for `make bench`, not a bound that fails on a loaded machine.
LIVE = 30_000  # ms: the generous deadline of every wait for something the page shows on its own


def require_chromium() -> None:
    """At a browser module's top: skip it without Chromium, or fail when `make test` requires the browser."""
    if CHROMIUM.exists():
        return
    if os.environ.get("OUTRIDER_REQUIRE_BROWSER") == "1":
        pytest.fail("/usr/bin/chromium is missing: run scripts/chromium.sh (make test does)", pytrace=False)
    pytest.skip("no /usr/bin/chromium: run through `make test`, which installs it", allow_module_level=True)


@contextmanager
def console_sidecar(tmp_path: Path) -> Iterator[tuple[RunningSidecar, str]]:
    """A sidecar on SQLite with its console on a free port and the reviewers of consolekit; (sidecar, URL)."""
    config = make_config(tmp_path, console_enabled=True, console_listen="127.0.0.1:0")
    with RunningSidecar(config, with_console=True) as s:
        add_reviewers(s)
        yield s, s.services.health["console_url"]


class Watch:
    """What a page did that it must not: dialogs (alert/confirm) and CSP violations."""

    def __init__(self, page: Page) -> None:
        self.dialogs: list[str] = []
        self.csp: list[str] = []
        page.on("dialog", self._dialog)
        page.on("console", lambda m: self.csp.append(m.text) if "Content Security Policy" in m.text else None)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


def signed_in(browser: Browser, url: str, name: str) -> tuple[Page, Watch]:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    watch = Watch(page)
    page.goto(f"{url}/approvals")
    expect(page).to_have_url(f"{url}/login?next=/approvals")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{url}/approvals")
    wait_live(page)
    return page, watch


def wait_live(page: Page) -> None:
    """Until the page's SSE stream is open."""
    expect(page.locator("body")).to_have_attribute("data-live", "open", timeout=LIVE)


def row(page: Page, text: str) -> Any:
    return page.locator("#pending-table tbody tr", has_text=text)


def appears_live(page: Page, text: str) -> None:
    expect(row(page, text)).to_have_count(1, timeout=LIVE)


def shoot(page: Page, name: str, tmp_path: Path) -> None:
    target = DOCS if os.environ.get("OUTRIDER_SCREENSHOTS") == "1" else tmp_path
    page.screenshot(path=str(target / name), full_page=True)
