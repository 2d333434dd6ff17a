"""Replay (`outrider policy replay`): re-run the decision log's captured decisions through a candidate chain and
report every decision whose outcome would change.

Side-effect free, by explain's machinery: the candidate's guardrails answer through `Guardrail.shadow_check` (the
read-only `explain` preview for every kind but rate_limit, whose window is the candidate's own, throwaway copy)
and their results combine by the chain's rules (ChainRun), shadow guardrails included. Decisions are replayed
oldest first on the candidate's clock set to each decision's time, so a tighter rate limit shows up as it would
have. A matching hitl guardrail is "would ask a human" (nobody is asked). `budget` and `breaker` depend on live
state the log does not capture (allocations, circuits): they are not replayed (treated as allowing, and listed).
Nothing is written anywhere; the database is only read.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from server.domain.agents import Agent
from server.domain.guardrails import ActionCall, ChainRun, Guardrail, GuardrailResult, ShadowOutcome, gate
from server.domain.guardrails.breaker import BreakerGuardrail
from server.domain.guardrails.budget import BudgetGuardrail
from server.domain.guardrails.decisions import Decision
from server.domain.guardrails.hitl import Hitl, would_ask_reason
from server.services.ports import DecisionRepository
from server.services.supervisor.walk import run_sync, walk

# The built-in checks that decide before the chain (services/supervisor/check.py): no candidate changes them.
BEFORE_THE_CHAIN = ("kill-switch", "quarantine", "registration")
LIVE_STATE_KINDS = (BudgetGuardrail.kind, BreakerGuardrail.kind)
PAGE = 500

ALLOWED_TO_BLOCKED = "allowed -> blocked"
BLOCKED_TO_ALLOWED = "blocked -> allowed"
DIFFERENT = "different guardrail/reason"
WOULD_ASK = "would ask a human"


@dataclass(frozen=True, slots=True)
class Outcome:
    allowed: bool
    guardrail: str
    reason: str
    needs_approval: bool = False


@dataclass(frozen=True, slots=True)
class Change:
    decision_id: str
    agent_id: str
    action: str
    create_time: datetime
    change: str  # one of the four kinds above
    before: Outcome
    after: Outcome
    shadow: ShadowOutcome | None = None  # the candidate's shadow outcome for the call

    @property
    def guardrail(self) -> str:
        """The guardrail the change is counted against: the candidate's decider, or the one whose block is gone."""
        return self.after.guardrail if not self.after.allowed else self.before.guardrail


@dataclass
class ReplayReport:
    replayed: int = 0
    changes: list[Change] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # why decisions were not replayed
    not_replayed: list[str] = field(default_factory=list)  # candidate guardrails evaluated as allowing

    @property
    def unchanged(self) -> int:
        return self.replayed - len(self.changes)

    def by_guardrail(self) -> dict[str, int]:
        return dict(Counter(c.guardrail for c in self.changes).most_common())


@dataclass(frozen=True, slots=True)
class ReplayFilter:
    start_time: datetime | None = None
    agent_id: str = ""
    action_glob: str = ""


LevelOf = Callable[[str, dict[str, Any]], str | None]


class Replayer:
    """The candidate chain (evaluation order), the agents' groups as they are now, and the reversibility levels."""

    def __init__(
        self,
        order: Sequence[Guardrail],
        group_of: Callable[[str], str | None],
        assess_level: LevelOf,
        profile_of: Callable[[str], Agent | None] | None = None,
    ):
        self.order = tuple(order)
        self.group_of = group_of
        self.assess_level = assess_level
        self.profile_of = profile_of  # the agents' labels and capabilities as they are now, for conditions

    def run(self, decisions: DecisionRepository, flt: ReplayFilter) -> ReplayReport:
        report = ReplayReport(not_replayed=[f"{g.name} ({g.kind})" for g in self.order if g.kind in LIVE_STATE_KINDS])
        for d in _scan(decisions, flt):
            if flt.action_glob and not fnmatch.fnmatchcase(d.action, flt.action_glob):
                continue
            if d.context is None:
                report.skipped["context not captured"] += 1
            elif d.context_truncated:
                report.skipped["context truncated at capture"] += 1
            elif not d.allowed and d.guardrail in BEFORE_THE_CHAIN:
                report.skipped["decided before the chain (kill switch, quarantine, registration)"] += 1
            else:
                report.replayed += 1
                change = self._replay(d)
                if change is not None:
                    report.changes.append(change)
        return report

    def _replay(self, d: Decision) -> Change | None:
        assert d.context is not None
        profile = self.profile_of(d.agent_id) if self.profile_of is not None else None
        call = ActionCall(
            d.agent_id,
            d.action,
            dict(d.context),
            {},
            self.group_of(d.agent_id),
            labels=profile.labels if profile else {},
            capabilities=profile.capabilities if profile else (),
            time=d.create_time,  # `now` in conditions: when the call was made
        )
        after, shadow = self.evaluate(call, d.create_time.timestamp())
        before = Outcome(d.allowed, d.guardrail, d.reason)
        kind = compare(before, after)
        if kind is None:
            return None
        return Change(d.decision_id, d.agent_id, d.action, d.create_time, kind, before, after, shadow)

    def evaluate(self, call: ActionCall, now: float) -> tuple[Outcome, ShadowOutcome | None]:
        walked = run_sync(walk(self.order, call, now, _REPLAYING, self.assess_level))
        run = walked.run
        if walked.halted_by is not None and walked.halt_result is not None:
            return Outcome(False, walked.halted_by.name, walked.halt_result.reason, True), run.shadow
        v = run.verdict()
        return Outcome(v.allowed, v.guardrail, v.reason), v.shadow


class _Replaying:
    """Replay's walk of the chain (walk.py): every guardrail answers through `shadow_check` (nothing is written;
    rate_limit counts in the candidate's own window), the kinds that need live state are left out, a matching
    hitl guardrail "would ask a human" and ends the walk. Nothing in it waits, so it runs without an event loop."""

    __slots__ = ()

    def skips(self, guardrail: Guardrail) -> bool:
        return guardrail.kind in LIVE_STATE_KINDS  # not replayed: see the module docstring

    async def condition(self, guardrail: Guardrail, call: ActionCall) -> GuardrailResult | None:
        return gate(guardrail, call)

    def begin(self, guardrail: Guardrail) -> None:
        return None

    async def ask(
        self, hitl: Hitl, call: ActionCall, run: ChainRun, token: None
    ) -> tuple[GuardrailResult | None, bool]:
        return GuardrailResult.blocked(would_ask_reason(hitl.name)), True

    async def answer(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        return guardrail.shadow_check(call, now)

    def end(self, token: None, guardrail: Guardrail, result: GuardrailResult | None, error: str, asks: bool) -> None:
        pass

    def cancelled(self, token: None) -> None:
        pass

    def passed_over(self, guardrail: Guardrail) -> None:
        pass


_REPLAYING = _Replaying()


def compare(before: Outcome, after: Outcome) -> str | None:
    """The kind of change, or None when the outcome is the same. Allowed both times is the same whichever
    guardrail answered last; a candidate that asks a human through the guardrail that decided before (it asked
    then too) is the same."""
    if after.needs_approval:
        return None if before.guardrail == after.guardrail else WOULD_ASK
    if before.allowed and after.allowed:
        return None
    if before.allowed:
        return ALLOWED_TO_BLOCKED
    if after.allowed:
        return BLOCKED_TO_ALLOWED
    if (before.guardrail, before.reason) != (after.guardrail, after.reason):
        return DIFFERENT
    return None


def _scan(decisions: DecisionRepository, flt: ReplayFilter) -> Iterator[Decision]:
    after = 0
    while True:
        page = decisions.scan(flt.start_time, flt.agent_id, after, PAGE)
        for seq, d in page:
            after = seq
            yield d
        if len(page) < PAGE:
            return
