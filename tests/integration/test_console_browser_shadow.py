"""Shadow mode in the console, in real headless Chromium (Debian's `chromium` via Playwright): a decision a shadow
guardrail would have blocked shows "would have blocked by X: reason" in the overview's decision view, which filters
on it, and on an approval's decision log."""

from __future__ import annotations

from pathlib import Path

from .browserkit import require_chromium
from .consolekit import PASSWORD, add_reviewers
from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

require_chromium()

from playwright.sync_api import Browser, expect  # noqa: E402

SUMMARY = "would have blocked by candidate-deny: Action 'shell.exec' is denied by candidate-deny"


def test_the_decision_view_shows_and_filters_the_shadow_outcome(browser: Browser, tmp_path: Path) -> None:
    config = make_config(tmp_path, console_enabled=True, console_listen="127.0.0.1:0")
    with RunningSidecar(config, with_console=True) as s:
        add_reviewers(s)
        s.stub.AddGuardrail(guardrail("candidate-deny", "action_list", deny=["shell.*"], mode="shadow"))
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        agent = s.as_agent("agent-1").stub
        assert agent.CheckAction(check(action="shell.exec", context={"cost": 1})).allowed
        assert agent.CheckAction(check(action="read.file", context={"cost": 1})).allowed
        s.services.decisions.flush()
        url = s.services.health["console_url"]

        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(f"{url}/login?next=/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        expect(page).to_have_url(f"{url}/")

        rows = page.locator("#decisions tbody tr")
        expect(rows).to_have_count(2)
        shadowed = rows.filter(has_text="shell.exec")
        expect(shadowed.locator("td.shadow")).to_have_text(SUMMARY)
        expect(shadowed).to_contain_text("allowed")  # the agent was allowed: shadow never enforces
        expect(rows.filter(has_text="read.file").locator("td.shadow")).to_have_text("")
        expect(page.get_by_role("columnheader", name="Shadow")).to_be_visible()

        page.get_by_role("link", name="with a shadow outcome").click()
        expect(page).to_have_url(f"{url}/?shadow=blocked")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("shell.exec")
        # The live refresh keeps the filter: a new unshadowed decision does not appear in this view.
        assert agent.CheckAction(check(action="read.other", context={"cost": 1})).allowed
        s.services.decisions.flush()
        with page.expect_response(lambda r: "/partials/decisions?shadow=blocked" in r.url, timeout=10_000) as refresh:
            pass  # the view's own refresh (every 2 s), with its filter
        assert refresh.value.ok
        expect(rows).to_have_count(1)
        page.get_by_role("link", name="without").click()
        expect(rows).to_have_count(2)
        expect(page.locator("#decisions")).not_to_contain_text("would have blocked")
        page.screenshot(path=str(tmp_path / "console-shadow.png"), full_page=True)
