"""In-memory state keyed by what an agent or caller chooses (agent ids, breaker keys, request ids) is bounded
(issue 31): 10,000 distinct keys leave each structure at its stated bound, or where it was once they expire.
Sizes are asserted, never timings."""

from __future__ import annotations

import asyncio
from typing import Any

from server.adapters.memory.fleet import MemoryRateWindows
from server.domain.guardrails import ActionCall, GuardrailSpec, build_guardrail
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.rate_limit import SWEEP_FROM, FleetRateLimit, RateLimit
from server.services.supervisor.plugins import PluginModules
from server.services.supervisor.rates import RateWindows
from tests.fakes import FakeClock

MANY = 10_000
load_plugin = PluginModules(())


def rate_limit(rates: RateWindows | None = None, **options: Any) -> Any:
    spec = GuardrailSpec("pace", "rate_limit", {"max": 5, "window": "60s", **options})
    return build_guardrail(spec, load_plugin, deps=GuardrailDeps(rates=rates))


def test_rate_limit_windows_of_10000_agent_ids_are_forgotten_once_their_window_expired() -> None:
    g = rate_limit(scope="sidecar")
    assert type(g) is RateLimit
    for i in range(MANY):
        assert g.check(ActionCall(f"once-{i}", "chat", {}), 0.0).allowed
    assert g.tracked() <= MANY  # all within one window: every one of them is still counting
    # The window passes; the next checks (of one agent) sweep what expired.
    for _ in range(3):
        g.check(ActionCall("steady", "chat", {}), 61.0)
    assert g.tracked() <= SWEEP_FROM
    # ...and again for a second wave: the map does not keep what the first wave left.
    for i in range(MANY):
        g.check(ActionCall(f"twice-{i}", "chat", {}), 200.0)
    g.check(ActionCall("steady", "chat", {}), 300.0)
    assert g.tracked() <= SWEEP_FROM


def test_a_sweep_keeps_the_windows_that_still_count() -> None:
    g = rate_limit(scope="sidecar", max=2)
    assert g.check(ActionCall("busy", "chat", {}), 0.0).allowed
    assert g.check(ActionCall("busy", "chat", {}), 1.0).allowed
    for i in range(2 * SWEEP_FROM):
        g.check(ActionCall(f"other-{i}", "chat", {}), 30.0)
    assert not g.check(ActionCall("busy", "chat", {}), 59.0).allowed  # still blocked after the sweeps


def test_fleet_rate_limit_slices_of_ended_windows_are_forgotten() -> None:
    clock = FakeClock()
    g = rate_limit(RateWindows(MemoryRateWindows(), clock))
    assert type(g) is FleetRateLimit

    async def checks(prefix: str, n: int) -> None:
        for i in range(n):
            await g.check_async(ActionCall(f"{prefix}-{i}", "chat", {}), 0.0)

    asyncio.run(checks("once", MANY))
    clock.advance(61)
    asyncio.run(checks("later", 3))
    assert g.tracked() <= SWEEP_FROM
