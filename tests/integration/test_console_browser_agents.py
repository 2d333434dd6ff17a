"""The Agents, Breakers and Budgets pages in real headless Chromium (Debian's `chromium` via Playwright),
against a real sidecar: an agent attached over a real Attach stream, breakers opened by real
AcquirePermit / ReportOutcome calls, tokens consumed over gRPC. Skipped like test_console_browser.py
when /usr/bin/chromium is missing (`make test` installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from outrider.v1 import recovery_pb2, safeguard_pb2
from outrider.v1 import safeguard_service_pb2 as spb

from .browserkit import LIVE, console_sidecar, require_chromium, shoot, signed_in, wait_live
from .harness import RunningSidecar
from .recovery_sim import SimAgent, register

require_chromium()

KILL_CMD = recovery_pb2.CONTROL_COMMAND_TYPE_KILL


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[RunningSidecar, str]]:
    with console_sidecar(tmp_path) as both:
        yield both


def open_live(page: Page, url: str) -> list[str]:
    """Go to `url`, wait for its stream; returns the list of later navigations (none may happen)."""
    page.goto(url)
    wait_live(page)
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    return navigations


def fail_calls(s: RunningSidecar, key: str, count: int) -> None:
    for _ in range(count):
        permit = s.safeguard.AcquirePermit(spb.AcquirePermitRequest(key=key))
        assert permit.permitted
        s.safeguard.ReportOutcome(
            spb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=safeguard_pb2.CALL_OUTCOME_FAILURE)
        )


def test_admin_sees_an_agent_attach_live_and_kills_it_after_confirming(
    browser: Browser, live: tuple[RunningSidecar, str], tmp_path: Path
) -> None:
    s, url = live
    page, watch = signed_in(browser, url, "ada")
    navigations = open_live(page, f"{url}/agents")
    register(s, "worker-7", "batch")
    row = page.locator('#agents-table tr[data-agent-id="worker-7"]')
    expect(row.locator(".conn-disconnected")).to_have_text("not connected", timeout=LIVE)
    with SimAgent(s.as_agent("worker-7").recovery, "worker-7") as agent:
        agent.wait_accepted()
        expect(row.locator(".conn-connected")).to_have_text("connected", timeout=LIVE)
        expect(row).to_contain_text("batch")
        assert navigations == []  # it arrived over the stream, no reload

        row.get_by_role("link", name="Kill worker-7").click()
        page.get_by_label("Reason").select_option("BEHAVIORAL_DRIFT")
        page.get_by_label("Details").fill("drifted from its plan <b>twice</b>")
        page.get_by_role("button", name="Review the kill").click()
        expect(page.get_by_role("heading", name="Confirm: kill worker-7?")).to_be_visible()
        expect(page.locator("#confirm-reason")).to_have_text("BEHAVIORAL_DRIFT")
        expect(page.locator("#confirm-details")).to_have_text("drifted from its plan <b>twice</b>")
        assert agent.of(KILL_CMD) == [] and s.services.agents.group_of("worker-7") == "batch"
        shoot(page, "console-kill-confirm.png", tmp_path)

        page.get_by_role("button", name="Kill worker-7 now").click()
        expect(page.get_by_role("heading", name="Killed worker-7")).to_be_visible(timeout=LIVE)
        expect(page.locator("#kill-terminated")).to_have_text("yes (ok)")
        command = agent.wait_command(KILL_CMD)
        assert command.kill.reason == recovery_pb2.KILL_REASON_BEHAVIORAL_DRIFT
    [kill] = s.services.recovery.kill_history("worker-7", 10, "").items
    assert kill.requested_by == "reviewer:ada" and kill.terminated
    history = page.locator(f'#kill-history tr[data-kill-id="{kill.kill_id}"]')
    expect(history).to_contain_text("BEHAVIORAL_DRIFT")
    expect(history).to_contain_text("reviewer:ada")
    expect(history).to_contain_text("drifted from its plan <b>twice</b>")
    expect(row).to_have_count(0)  # unregistered
    shoot(page, "console-agents.png", tmp_path)
    assert page.locator("[onmouseover], [onerror], [onload], b").count() == 0
    assert watch.dialogs == [] and watch.csp == []


def test_a_breaker_opened_by_real_calls_turns_open_live_and_an_admin_resets_it(
    browser: Browser, live: tuple[RunningSidecar, str], tmp_path: Path
) -> None:
    s, url = live
    viewer, watch = signed_in(browser, url, "victor")
    navigations = open_live(viewer, f"{url}/breakers")
    fail_calls(s, "billing:payments-api", 1)
    row = viewer.locator('#breakers-table tr[data-key="billing:payments-api"]')
    expect(row.locator(".breaker-state")).to_have_text("CLOSED", timeout=LIVE)
    expect(row).to_contain_text("1 of 3", timeout=LIVE)  # a count moves without an event: the 1 s refresh
    fail_calls(s, "billing:payments-api", 2)
    expect(row.locator(".breaker-state")).to_have_text("OPEN", timeout=LIVE)
    expect(viewer.locator("#breaker-changes")).to_contain_text("CLOSED → OPEN")
    assert viewer.get_by_role("button", name="Reset billing:payments-api").count() == 0  # viewers only see
    assert navigations == []
    shoot(viewer, "console-breakers.png", tmp_path)

    admin, admin_watch = signed_in(browser, url, "ada")
    admin.goto(f"{url}/breakers")
    wait_live(admin)
    admin.get_by_role("button", name="Reset billing:payments-api").click()
    expect(admin.locator("#breaker-message")).to_contain_text("Reset 'billing:payments-api': it is now CLOSED.")
    expect(row.locator(".breaker-state")).to_have_text("CLOSED", timeout=LIVE)  # on the viewer's screen
    assert s.services.breakers.get("billing:payments-api").state.name == "CLOSED"
    assert navigations == []
    assert watch.dialogs == [] and watch.csp == [] and admin_watch.dialogs == [] and admin_watch.csp == []


def test_admin_allocates_and_the_usage_bar_follows_consumption_live(
    browser: Browser, live: tuple[RunningSidecar, str], tmp_path: Path
) -> None:
    s, url = live
    page, watch = signed_in(browser, url, "ada")
    navigations = open_live(page, f"{url}/budgets")
    page.get_by_label("Agent id").fill("summarizer")
    page.get_by_label("Tokens").fill("2000")
    page.get_by_label("Priority").select_option("HIGH")
    page.get_by_role("button", name="Allocate").click()
    expect(page.locator("#budget-message")).to_contain_text("Allocated 2000 tokens to summarizer (HIGH)")
    row = page.locator('#allocations tr[data-agent-id="summarizer"]')
    expect(row).to_contain_text("HIGH")
    s.safeguard.Consume(spb.ConsumeRequest(agent_id="summarizer", tokens=1900))
    expect(row.locator("meter")).to_have_attribute("value", "95.0", timeout=LIVE)
    expect(row).to_contain_text("warned")
    expect(page.locator("#budget-signals")).to_contain_text("SIGWARN", timeout=LIVE)
    assert navigations == []
    shoot(page, "console-budgets.png", tmp_path)
    assert watch.dialogs == [] and watch.csp == []
