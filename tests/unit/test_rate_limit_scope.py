"""`rate_limit` `scope: fleet | sidecar` (issue 15): the fleet's window is shared through slices taken from one
repository (in memory here, standing for the PostgreSQL row), never a round trip per check."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.adapters.memory.fleet import MemoryRateWindows
from server.bootstrap import build_services
from server.config import Config
from server.domain.errors import InvalidArgument
from server.domain.guardrails import ActionCall, GuardrailSpec, Severity, build_guardrail
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.rate_limit import FleetRateLimit, RateLimit
from server.services.supervisor.plugins import PluginModules
from server.services.supervisor.rates import RateWindows
from server.telemetry.settings import TelemetrySettings
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore

load_plugin = PluginModules(())
WINDOW = 3600.0


def build(rates: RateWindows | None, **options: Any) -> Any:
    spec = GuardrailSpec("pace", "rate_limit", {"max": 300, "window": f"{WINDOW:g}s", **options})
    return build_guardrail(spec, load_plugin, deps=GuardrailDeps(rates=rates))


def call(agent: str = "agent-1") -> ActionCall:
    return ActionCall(agent, "chat", {})


def at_window_start(clock: FakeClock) -> FakeClock:
    """Move `clock` to the start of a window (fleet windows are aligned to the Unix epoch)."""
    now = clock.utcnow().timestamp()
    clock.advance(WINDOW - now % WINDOW)
    return clock


async def run(g: FleetRateLimit, n: int, agent: str = "agent-1") -> list[bool]:
    return [(await g.check_async(call(agent), 0.0)).allowed for _ in range(n)]


@pytest.mark.parametrize("bad", ["cluster", "", "FLEET", "fleet ", 1, True, ["fleet"]])
def test_a_bad_scope_is_invalid_argument_naming_the_field(bad: Any) -> None:
    for rates in (None, RateWindows(MemoryRateWindows(), FakeClock())):
        spec = GuardrailSpec("pace", "rate_limit", {"max": 3, "window": "1s", "scope": bad})
        with pytest.raises(InvalidArgument) as err:
            build_guardrail(spec, load_plugin, deps=GuardrailDeps(rates=rates))
        assert err.value.field == "scope"
        assert "'fleet', 'sidecar'" in err.value.message


def test_fleet_is_the_default_where_windows_are_shared_and_sidecar_keeps_the_old_limiter() -> None:
    rates = RateWindows(MemoryRateWindows(), FakeClock())
    assert type(build(rates)) is FleetRateLimit
    assert type(build(rates, scope="fleet")) is FleetRateLimit
    assert type(build(rates, scope="sidecar")) is RateLimit
    # No shared windows (SQLite: one sidecar is the whole fleet): both scopes count here, as before.
    assert type(build(None)) is RateLimit
    assert type(build(None, scope="fleet")) is RateLimit


def test_three_sidecars_admit_max_per_window_fleet_wide_with_a_round_trip_per_slice_only() -> None:
    repo, clock = MemoryRateWindows(), at_window_start(FakeClock())
    sidecars = [build(RateWindows(repo, clock)) for _ in range(3)]
    assert sidecars[0].slice == 15  # 5 % of max

    async def flood() -> list[bool]:
        return [(await sidecars[i % 3].check_async(call(), 0.0)).allowed for i in range(1200)]

    results = asyncio.run(flood())
    assert sum(results) == 300  # not 900: each sidecar alone would have admitted 300
    assert repo.takes <= 300 // 15 + 3  # one per slice, plus one "nothing left" answer per sidecar
    clock.advance(WINDOW)  # the next window starts empty
    assert asyncio.run(run(sidecars[1], 3)) == [True, True, True]


def test_a_window_that_ends_drops_the_unused_slice() -> None:
    repo, clock = MemoryRateWindows(), at_window_start(FakeClock())
    a, b = (build(RateWindows(repo, clock), max=10) for _ in range(2))
    assert asyncio.run(run(a, 1)) == [True]  # A holds a slice of 1 (max 10 -> slice 1)
    assert asyncio.run(run(b, 12)) == [True] * 9 + [False] * 3
    clock.advance(WINDOW)
    assert asyncio.run(run(a, 10)) == [True] * 10  # a fresh window, nothing carried over
    assert asyncio.run(run(b, 1)) == [False]


def test_a_lagging_clock_overshoots_by_at_most_its_last_slice() -> None:
    """The documented bound: a sidecar whose clock lags uses the rest of its last slice after the others
    moved on; asking for more then gets nothing (never a second slice of the old window)."""
    repo, clock = MemoryRateWindows(), at_window_start(FakeClock())
    clock.advance(10)
    late = FakeClock(clock.t - 5)  # B's clock is 5 s behind A's
    a, b = build(RateWindows(repo, clock)), build(RateWindows(repo, late))
    assert asyncio.run(run(b, 1)) == [True]  # B holds 14 more of this window
    clock.advance(WINDOW - 11)  # A: 1 s before the end; B: 6 s before
    asyncio.run(run(a, 400))
    clock.advance(2)
    late.advance(2)  # A is in window 1, B still in window 0
    first = asyncio.run(run(a, 400))
    leftover = asyncio.run(run(b, 20))
    assert sum(first) == 300 and sum(leftover) == 14  # 300 + 14 in window 1: within one slice of B's
    late.advance(10)
    assert sum(asyncio.run(run(b, 20))) == 0  # B in window 1 now: the fleet has taken it all


def test_concurrent_checks_on_one_sidecar_share_one_slice_request() -> None:
    repo, clock = MemoryRateWindows(), at_window_start(FakeClock())
    g = build(RateWindows(repo, clock))

    async def burst() -> list[bool]:
        results = await asyncio.gather(*(g.check_async(call(), 0.0) for _ in range(50)))
        return [r.allowed for r in results]

    assert asyncio.run(burst()) == [True] * 50
    assert repo.takes == 4  # 15 + 15 + 15 + 15 >= 50: one request per slice, not per waiting check


def test_agents_have_their_own_fleet_windows_and_warnings_count_the_fleet() -> None:
    repo, clock = MemoryRateWindows(), at_window_start(FakeClock())
    a, b = (build(RateWindows(repo, clock), max=10, warn_at=0.5) for _ in range(2))

    async def go() -> list[Severity]:
        out = []
        for i in range(6):
            out.append((await (a if i % 2 else b).check_async(call("x"), 0.0)).severity)
        return out

    severities = asyncio.run(go())
    assert Severity.WARNING not in severities[:4] and severities[4:] == [Severity.WARNING] * 2
    assert asyncio.run(run(a, 10, agent="y")) == [True] * 10


def test_explain_and_shadow_take_nothing_from_the_fleet() -> None:
    repo, clock = MemoryRateWindows(), at_window_start(FakeClock())
    g = build(RateWindows(repo, clock), max=2)
    assert g.explain(call(), 0.0).allowed and repo.takes == 0
    assert asyncio.run(run(g, 3)) == [True, True, False]
    assert not g.explain(call(), 0.0).allowed  # known exhausted: it would block
    shadow = build(RateWindows(repo, clock), max=2, mode="shadow")
    assert [shadow.shadow_check(call("s"), float(i)).allowed for i in range(3)] == [True, True, False]
    assert repo.takes == 3  # the shadow limit counted in this process


def _services(store: Any, tmp_path: Path, clock: FakeClock, fleet: bool) -> Any:
    telemetry = TelemetrySettings(enabled=False, metrics=False)
    config = Config(data_dir=tmp_path / "never-used", console_enabled=False, telemetry=telemetry)
    return build_services(config, repos=store.repositories(fleet=fleet), clock=clock)


def test_check_action_on_two_sidecars_of_one_fleet_shares_the_window(tmp_path: Path) -> None:
    store, clock = MemoryStore(), at_window_start(FakeClock())
    a, b = (_services(store, tmp_path, clock, fleet=True) for _ in range(2))
    try:
        a.chain.add_guardrail("pace", "rate_limit", {"max": 4, "window": f"{WINDOW:g}s"})
        b.chain.refresh()

        async def checks() -> list[bool]:
            out = []
            for i in range(8):
                s = a if i % 2 else b
                out.append((await s.checks.check_action("agent-1", "chat", {}, {}, f"r{i}")).verdict.allowed)
            return out

        assert sum(asyncio.run(checks())) == 4  # per sidecar alone it would be 8
    finally:
        a.close()
        b.close()


def test_without_shared_windows_a_rate_limit_behaves_exactly_as_before(tmp_path: Path) -> None:
    """SQLite (one sidecar): the default scope counts in a sliding window in this process, as it always did."""
    store, clock = MemoryStore(), FakeClock()
    s = _services(store, tmp_path, clock, fleet=False)
    try:
        s.chain.add_guardrail("pace", "rate_limit", {"max": 2, "window": "10s"})
        assert type(s.chain.order[-1]) is RateLimit

        async def check() -> bool:
            return (await s.checks.check_action("agent-1", "chat", {}, {}, "")).verdict.allowed

        assert [asyncio.run(check()) for _ in range(3)] == [True, True, False]
        clock.advance(5)
        assert not asyncio.run(check())
        clock.advance(5.5)  # sliding: the first two checks left the window
        assert asyncio.run(check())
        assert store.rate_windows.takes == 0
    finally:
        s.close()
