"""Replay's rules on in-memory repositories: what counts as a change, which decisions are skipped, and that a
candidate's rate limit counts replayed calls on each decision's time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from server.adapters.memory import MemoryDecisions
from server.domain.agents import Agent
from server.domain.guardrails import GuardrailSpec, Severity, build_guardrail, evaluation_order
from server.domain.guardrails.breaker import BreakerGuardrail
from server.domain.guardrails.budget import BudgetGuardrail
from server.domain.guardrails.decisions import Decision
from server.domain.guardrails.plugin import PluginLoader
from server.services.supervisor.replay import (
    ALLOWED_TO_BLOCKED,
    BLOCKED_TO_ALLOWED,
    DIFFERENT,
    WOULD_ASK,
    Outcome,
    Replayer,
    ReplayFilter,
    compare,
)

NO_PLUGINS: PluginLoader = lambda path: None  # noqa: E731 - no plugin guardrail here
T0 = datetime(2026, 11, 30, 12, tzinfo=UTC)


def test_compare() -> None:
    allowed, blocked = Outcome(True, "cap", ""), Outcome(False, "cap", "Cost 5 is over the cap")
    assert compare(allowed, Outcome(True, "other", "fine")) is None  # allowed both times: the same
    assert compare(allowed, blocked) == ALLOWED_TO_BLOCKED
    assert compare(blocked, allowed) == BLOCKED_TO_ALLOWED
    assert compare(blocked, Outcome(False, "cap", "Cost 5 is over the cap")) is None
    assert compare(blocked, Outcome(False, "tools", "denied")) == DIFFERENT
    assert compare(blocked, Outcome(False, "cap", "another reason")) == DIFFERENT
    asks = Outcome(False, "review", "Would ask a human", needs_approval=True)
    assert compare(allowed, asks) == WOULD_ASK
    assert compare(Outcome(True, "review", "Approved by alice"), asks) is None  # it asked then too


def decision(
    i: int, action: str, context: dict[str, object] | None, allowed: bool = True, guardrail: str = ""
) -> Decision:
    return Decision(
        f"d{i}", "agent-1", action, "", allowed, "", Severity.INFO if allowed else Severity.BLOCK, guardrail, (), 1,
        T0 + timedelta(seconds=i), context=context,
    )  # fmt: skip


def replayer(*specs: GuardrailSpec) -> Replayer:
    chain = [build_guardrail(s, NO_PLUGINS) for s in specs]
    return Replayer(evaluation_order(chain), lambda agent_id: None, lambda action, context: None)


def test_skips_uncaptured_truncated_and_before_the_chain_and_filters_by_glob() -> None:
    repo = MemoryDecisions()
    repo.insert_many(
        [
            decision(1, "read", None),
            decision(2, "read", {"a": 1}),
            Decision(
                "d3", "agent-1", "read", "", True, "", Severity.INFO, "", (), 1, T0, context={}, context_truncated=True
            ),
            decision(4, "read", {}, allowed=False, guardrail="kill-switch"),
            decision(5, "write", {}),
        ]
    )  # fmt: skip
    r = replayer(GuardrailSpec("deny", "action_list", {"deny": ["write"]})).run(repo, ReplayFilter())
    assert (r.replayed, [c.decision_id for c in r.changes]) == (2, ["d5"])
    assert dict(r.skipped) == {
        "context not captured": 1,
        "context truncated at capture": 1,
        "decided before the chain (kill switch, quarantine, registration)": 1,
    }
    only_reads = replayer(GuardrailSpec("deny", "action_list", {"deny": ["write"]})).run(
        repo, ReplayFilter(action_glob="r*")
    )
    assert only_reads.replayed == 1 and only_reads.changes == []


def test_a_candidate_rate_limit_counts_replayed_calls_on_their_own_times() -> None:
    repo = MemoryDecisions()
    repo.insert_many([decision(i * 20, "search", {}) for i in range(4)])  # 0 s, 20 s, 40 s, 60 s
    r = replayer(GuardrailSpec("pace", "rate_limit", {"max": 2, "window": "50s"})).run(repo, ReplayFilter())
    # At 40 s the third call in 50 s is refused (and not counted); at 60 s the window holds only 20 s: allowed.
    assert [c.decision_id for c in r.changes] == ["d40"]
    assert r.by_guardrail() == {"pace": 1}


class Unreachable:
    """Live state replay must not consult: any call is a guardrail error, which would show as a change."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"replay consulted live state: {name}")


def test_budget_and_breaker_are_not_replayed_and_listed() -> None:
    chain = [
        BudgetGuardrail(GuardrailSpec("tokens", "budget", {"key": "tokens"}), Unreachable()),  # type: ignore[arg-type]
        BreakerGuardrail(GuardrailSpec("circuit", "breaker", {}), Unreachable()),  # type: ignore[arg-type]
    ]
    repo = MemoryDecisions()
    repo.insert_many([decision(1, "search", {"tokens": 10**9})])
    r = Replayer(chain, lambda a: None, lambda a, c: None).run(repo, ReplayFilter())
    assert (r.replayed, r.changes) == (1, [])
    assert r.not_replayed == ["tokens (budget)", "circuit (breaker)"]


def test_replay_re_evaluates_conditions_with_now_the_decisions_time_and_the_agents_record() -> None:
    repo = MemoryDecisions()
    # T0 is Monday 2026-11-30 12:00 UTC: d1 at 12:00:01, d2 seven hours later (19:00, after hours).
    repo.insert_many(
        [decision(1, "shell.exec", {}), decision(7 * 3600, "shell.exec", {}), decision(2, "refund", {"amount": 5000})]
    )
    hours = GuardrailSpec(
        "hours", "rule", {"effect": "deny", "when": 'action == "shell.exec" && now.getHours("UTC") >= 17'}
    )
    refunds = GuardrailSpec(
        "refunds",
        "rule",
        {"effect": "deny", "when": 'has(context.amount) && context.amount > 1000 && agent.labels.team != "finance"'},
    )
    chain = evaluation_order([build_guardrail(hours, NO_PLUGINS), build_guardrail(refunds, NO_PLUGINS)])
    finance = Agent("agent-1", "ops", (), {"team": "finance"})
    support = Agent("agent-1", "ops", (), {"team": "support"})
    as_finance = Replayer(chain, lambda a: "ops", lambda a, c: None, {"agent-1": finance}.get).run(repo, ReplayFilter())
    assert [(c.decision_id, c.change, c.after.guardrail) for c in as_finance.changes] == [
        ("d25200", ALLOWED_TO_BLOCKED, "hours")
    ]
    as_support = Replayer(chain, lambda a: "ops", lambda a, c: None, {"agent-1": support}.get).run(repo, ReplayFilter())
    assert sorted(c.decision_id for c in as_support.changes) == ["d2", "d25200"]
