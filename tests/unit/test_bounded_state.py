"""In-memory state keyed by what an agent or caller chooses (agent ids, breaker keys, request ids) is bounded
(issue 31): 10,000 distinct keys leave each structure at its stated bound, or where it was once they expire.
Sizes are asserted, never timings."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.adapters.memory.fleet import MemoryRateWindows
from server.bootstrap import build_services
from server.config import Config
from server.domain.access.users import FailureThrottle
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, ResourceExhausted
from server.domain.guardrails import ActionCall, GuardrailSpec, build_guardrail
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.rate_limit import SWEEP_FROM, FleetRateLimit, RateLimit
from server.domain.safeguards.breakers import Outcome
from server.rpc.auth import RateLimiter
from server.services.safeguards.breakers import BreakerService
from server.services.safeguards.settings import DEFAULT_MAX_KEYS_PER_AGENT, BreakerSettings, parse_safeguards
from server.services.supervisor.check import _give_back
from server.services.supervisor.plugins import PluginModules
from server.services.supervisor.rates import RateWindows
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore
from tests.fakes.safeguards import MemoryAudit, MemorySafeguards

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


def breakers(max_keys: int = 100) -> BreakerService:
    svc = BreakerService(
        MemorySafeguards(), FakeClock(), BreakerSettings(max_keys_per_agent=max_keys), MemoryAudit(), []
    )
    svc.load()
    return svc


def test_an_agent_creates_at_most_max_keys_per_agent_breakers_and_others_are_unaffected() -> None:
    svc = breakers(max_keys=100)
    refused = 0
    for i in range(MANY):
        try:
            svc.acquire(f"spray:{i}")
        except ResourceExhausted as exc:
            assert (exc.reason, exc.field) == ("BREAKER_KEYS_EXHAUSTED", "key")
            assert "safeguards.breakers.max_keys_per_agent" in exc.message
            refused += 1
    assert refused == MANY - 100
    assert svc.cached_keys("spray") == 100
    assert svc.acquire("spray:7").permit is not None  # a key it already has still works
    assert svc.acquire("calm:db").permit is not None  # another agent's keys are its own
    assert svc.cached_keys("calm") == 1


def test_the_breaker_key_bound_is_a_configuration_key_named_in_errors() -> None:
    assert parse_safeguards({"breakers": {"max_keys_per_agent": 5}}).breakers.max_keys_per_agent == 5
    assert parse_safeguards({}).breakers.max_keys_per_agent == DEFAULT_MAX_KEYS_PER_AGENT
    for bad in (0, -1, 1.5, "many", True):
        with pytest.raises(InvalidArgument) as err:
            parse_safeguards({"breakers": {"max_keys_per_agent": bad}})
        assert err.value.field == "safeguards.breakers.max_keys_per_agent"


def test_settled_permits_are_remembered_for_their_retry_window_only() -> None:
    clock = FakeClock()
    svc = BreakerService(MemorySafeguards(), clock, BreakerSettings(), MemoryAudit(), [])
    svc.load()
    first = ""
    for _ in range(MANY):
        permit = svc.acquire("busy").permit
        assert permit is not None
        svc.report(permit.permit_id, Outcome.SUCCESS)
        first = first or permit.permit_id
    assert svc.settled_kept() == MANY  # within the window: a repeated report is still recognised
    with pytest.raises(FailedPrecondition):
        svc.report(first, Outcome.FAILURE)  # already reported as SUCCESS
    clock.advance(301)
    permit = svc.acquire("busy").permit
    assert permit is not None
    svc.report(permit.permit_id, Outcome.SUCCESS)
    assert svc.settled_kept() == 1  # the 10,000 older ones are forgotten
    with pytest.raises(NotFound):
        svc.report(first, Outcome.FAILURE)


def test_the_auth_rate_limiter_keeps_at_most_max_buckets_for_10000_callers() -> None:
    limiter = RateLimiter(rate=1.0, burst=1)
    limiter.MAX_BUCKETS = 1000  # the class's 10,000, scaled down so 10,000 callers overflow it ten times
    for i in range(MANY):
        limiter.check(f"token-{i}", "a caller")
    assert len(limiter._buckets) <= 1000


def test_console_login_failures_keep_at_most_max_keys_user_names() -> None:
    throttle = FailureThrottle(limit=5, window=60.0, max_keys=1000)
    for i in range(MANY):
        throttle.fail(f"user-{i}", float(i))
    assert len(throttle._failures) == 1000


def test_in_flight_counters_drop_an_agent_at_zero() -> None:
    held: dict[str, int] = {}
    for i in range(MANY):
        held[f"agent-{i}"] = 1
        _give_back(held, f"agent-{i}")
    assert held == {}


def test_recovery_forgets_the_locks_of_agents_it_forgets(tmp_path: Path) -> None:
    """Agents come and go (a kill unregisters one): the per-agent lock of each goes with it."""
    config = Config(data_dir=tmp_path, console_enabled=False)
    recovery = build_services(config, repos=MemoryStore().repositories(), clock=FakeClock()).recovery.recovery
    for i in range(MANY):
        recovery._agent_lock(f"gone-{i}")
        recovery.forget(f"gone-{i}")
    assert recovery._agent_locks == {}
