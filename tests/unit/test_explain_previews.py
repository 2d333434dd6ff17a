"""The read-only previews ExplainAction relies on: `Guardrail.explain` of the stateful kinds answers what check()
would, and changes nothing (a rate limit's count, a breaker's permits and state)."""

from __future__ import annotations

from typing import Any

from server.domain.guardrails import ActionCall, GuardrailSpec, Severity, build_guardrail
from server.domain.safeguards.breakers import BreakerConfig, BreakerState
from server.services.safeguards.breakers import BreakerService
from server.services.safeguards.settings import BreakerSettings
from server.services.supervisor.plugins import PluginModules
from tests.fakes import FakeClock
from tests.fakes.safeguards import MemoryAudit, MemorySafeguards


def call(agent_id: str = "agent-1") -> ActionCall:
    return ActionCall(agent_id, "act", {})


def rate(**options: Any) -> Any:
    return build_guardrail(GuardrailSpec("pace", "rate_limit", options), PluginModules(["tests.plugins"]))


def test_rate_limit_explain_counts_nothing_and_matches_check() -> None:
    g = rate(max=2, window="10s", warn_at=0.5)
    for _ in range(10):
        assert g.explain(call(), 0.0).allowed  # never counted
    first = g.explain(call(), 0.0)
    assert first == g.check(call(), 0.0)  # count 1: a warning from 1 of 2
    assert first.severity is Severity.WARNING
    second = g.explain(call(), 1.0)
    assert second == g.check(call(), 1.0)
    blocked = g.explain(call(), 2.0)
    assert not blocked.allowed and blocked == g.check(call(), 2.0)
    assert g.explain(call(), 10.5).allowed  # the first admitted check left the window (10s after t=0)
    assert g.explain(call("agent-2"), 2.0).allowed  # per agent


def service(clock: FakeClock) -> BreakerService:
    return BreakerService(MemorySafeguards(), clock, BreakerSettings(BreakerConfig()), MemoryAudit(), [])


def test_breaker_preview_takes_no_permit_and_creates_no_breaker() -> None:
    clock = FakeClock()
    svc = service(clock)
    a = svc.preview_permit("agent-1:db")
    assert a.permitted and a.state is BreakerState.CLOSED
    assert svc.list(0, "", 10, "").items == []  # nothing was created
    svc.force_open("agent-1:db", "test")
    before = svc.get("agent-1:db")
    refused = svc.preview_permit("agent-1:db")
    assert not refused.permitted and refused.state is BreakerState.OPEN
    assert svc.get("agent-1:db") == before


def test_breaker_preview_of_a_half_open_circuit_leaves_its_probe_slot() -> None:
    clock = FakeClock()
    svc = service(clock)
    taken = svc.acquire("agent-1")
    assert taken.permit is not None
    for _ in range(3):  # the default threshold
        p = svc.acquire("agent-1").permit
        assert p is not None
        svc.report(p.permit_id, 2)
    svc.release(taken.permit.permit_id)
    assert svc.get("agent-1").state is BreakerState.OPEN
    clock.advance(31)  # past the default 30s recovery timeout: the next admission is a probe
    for _ in range(3):
        assert svc.preview_permit("agent-1").permitted  # every preview sees the one free probe slot
    assert svc.acquire("agent-1").permitted  # the real probe still gets it
    assert not svc.preview_permit("agent-1").permitted  # and a preview now sees none left
