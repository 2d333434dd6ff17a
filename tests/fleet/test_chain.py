"""The guardrail chain across three sidecars: writes are compare-and-set on the chain version (never lost,
never duplicated) and reach the others through the change feed; a refresh keeps the guardrails whose spec
did not change, so their state (a rate window) survives another sidecar's unrelated change."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from outrider.v1 import supervisor_service_pb2 as spb
from tests.integration.rpc import check, guardrail

from .harness import Fleet, guardrail_names, wait_until


def test_concurrent_changes_on_three_sidecars_are_all_kept_once(shared_fleet: Fleet) -> None:
    stubs = [s.supervisor for s in shared_fleet.sidecars]
    wanted = [f"cas-{i}" for i in range(12)]
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda i: stubs[i % 3].AddGuardrail(guardrail(wanted[i], "cost_cap", max=10**9)), range(12)))
    for s in shared_fleet.sidecars:
        wait_until(lambda s=s: set(wanted) <= set(guardrail_names(s)), f"every change on {s.name}")
        counts = Counter(guardrail_names(s))
        assert all(counts[n] == 1 for n in wanted), counts
    # Removals racing on two sidecars: each guardrail goes once, nothing else goes.
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: stubs[i % 2].RemoveGuardrail(spb.RemoveGuardrailRequest(name=wanted[i])), range(6)))
    for s in shared_fleet.sidecars:
        wait_until(lambda s=s: not set(wanted[:6]) & set(guardrail_names(s)), f"the removals on {s.name}")
        assert set(wanted[6:]) <= set(guardrail_names(s))


def test_a_chain_change_on_a_reaches_b_at_once(shared_fleet: Fleet) -> None:
    a, b, _ = shared_fleet.sidecars
    a.supervisor.AddGuardrail(guardrail("cas-fast", "action_list", deny=["cas.fast"]))
    # Arrives by NOTIFY in milliseconds (measured by `make bench`), by the counter poll within
    # fleet.resync_interval without: the suite asserts the arrival, not its latency (issue 25).
    wait_until(lambda: not b.supervisor.CheckAction(check("cas-agent", "cas.fast")).allowed, "B blocks")


def test_an_unrelated_change_on_a_keeps_b_rate_window(shared_fleet: Fleet) -> None:
    a, b, _ = shared_fleet.sidecars
    a.supervisor.AddGuardrail(guardrail("cas-pace", "rate_limit", max=3, window="86400s"))
    wait_until(lambda: "cas-pace" in guardrail_names(b), "the rate limit on B")
    results = [b.supervisor.CheckAction(check("cas-pace-agent", "chat")).allowed for _ in range(4)]
    assert results == [True, True, True, False]
    a.supervisor.AddGuardrail(guardrail("cas-unrelated", "cost_cap", max=10**9))
    wait_until(lambda: "cas-unrelated" in guardrail_names(b), "the unrelated change on B")
    assert not b.supervisor.CheckAction(check("cas-pace-agent", "chat")).allowed  # the window survived
