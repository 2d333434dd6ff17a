"""The ExplainAction use case: what CheckAction would answer for one call, guardrail by guardrail, with no side
effect (no rate count, no approval request, no circuit-breaker permit, no decision-log record, no metric).

It runs the same chain in the same evaluation order and combines the results by the same rules (ChainRun), so
its verdict is CheckAction's at that moment; each guardrail answers through `Guardrail.explain`, which the
stateful kinds implement as a read-only preview. A hitl guardrail that matches ends the explanation as CheckAction
ends a non-blocking call: not allowed, "would ask a human". Plugins (user code) run as in CheckAction, off the
event loop under their time limit: whatever their own code does is theirs.

An agent's explanation reveals the chain, so it is audited (`chain.explain`), and `explain.agents: false` keeps
ExplainAction for operators (PERMISSION_DENIED to agents).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from server.domain.errors import PermissionDenied
from server.domain.guardrails import ActionCall, ChainRun, Guardrail, GuardrailResult, Severity, Verdict, gate
from server.domain.guardrails.hitl import Hitl, would_ask_reason
from server.services.ports import AuditSink
from server.services.supervisor.check import CheckActionService
from server.services.supervisor.walk import isolated, walk


@dataclass(frozen=True, slots=True)
class Step:
    """One guardrail of the chain, in evaluation order. `result` is None when it was not evaluated (an earlier
    guardrail decided)."""

    guardrail: str
    kind: str
    result: GuardrailResult | None
    duration_us: int = 0
    decided: bool = False
    needs_approval: bool = False
    error: str = ""
    # In shadow mode: its verdict is reported (and becomes the shadow outcome), never the answer.
    shadow: bool = False

    @property
    def evaluated(self) -> bool:
        return self.result is not None


@dataclass(frozen=True, slots=True)
class Explanation:
    verdict: Verdict
    steps: tuple[Step, ...]
    # A hitl guardrail matched: CheckAction would ask a human (and, blocking, wait for the answer).
    needs_approval: bool = False


class ExplainService:
    """Shares the chain, the agent registry, the plugin pool and the input limits with CheckAction."""

    def __init__(self, checks: CheckActionService, audit: AuditSink | None = None, agents: bool = True) -> None:
        self.checks = checks
        self.audit = audit
        self.agents_may_explain = agents  # `explain.agents`

    def admit(self, by_agent: bool) -> None:
        """PERMISSION_DENIED to an agent when `explain.agents: false` (operators always may explain)."""
        if by_agent and not self.agents_may_explain:
            raise PermissionDenied(
                "ExplainAction is for operators on this sidecar (explain.agents: false)", reason="EXPLAIN_DISABLED"
            )

    def record(self, actor: str, agent_id: str, action: str, explained: Explanation) -> None:
        """Audit an agent's explanation: it showed that agent the chain's guardrails and verdicts."""
        if self.audit is None:
            return
        v = explained.verdict
        details = {"action": action, "allowed": v.allowed, "guardrail": v.guardrail, "steps": len(explained.steps)}
        self.audit.record(actor, "chain.explain", agent_id, details)

    async def explain(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, object],
        binary_context: Mapping[str, bytes],
        context_bytes: int = 0,
    ) -> Explanation:
        self.checks.validate_check(agent_id, action, context_bytes)
        call = self.checks.make_call(agent_id, action, context, binary_context, self.checks.agents.group_of(agent_id))
        explaining = _Explaining(self.checks)
        walked = await walk(
            self.checks.chain.order, call, self.checks.clock.monotonic(), explaining, self.checks.assess_level
        )
        run, steps = walked.run, explaining.steps
        needs_approval = walked.halted_by is not None
        verdict = run.verdict()
        if needs_approval:
            decider = next(s for s in steps if s.needs_approval and not s.shadow)
            assert decider.result is not None
            verdict = Verdict(False, decider.result.reason, Severity.BLOCK, decider.guardrail, run.warnings, run.shadow)
        elif verdict.allowed and any(s.evaluated and not s.shadow for s in steps):
            # All allowed: the answer is the last guardrail's (ChainRun's rule); mark it as the one that decided.
            last = max(i for i, s in enumerate(steps) if s.evaluated and not s.shadow)
            steps[last] = _decided(steps[last])
        return Explanation(verdict, tuple(steps), needs_approval)


def _decided(step: Step) -> Step:
    return replace(step, decided=True)


class _Explaining:
    """ExplainAction's walk of the chain (walk.py): each guardrail answers through its side-effect-free preview
    (`Guardrail.explain`), plugins run as in CheckAction, a matching hitl guardrail "would ask a human" and ends
    the explanation; every guardrail gets a step, evaluated or not, with its time."""

    __slots__ = ("checks", "steps")

    def __init__(self, checks: CheckActionService) -> None:
        self.checks = checks
        self.steps: list[Step] = []

    def skips(self, guardrail: Guardrail) -> bool:
        return False

    async def condition(self, guardrail: Guardrail, call: ActionCall) -> GuardrailResult | None:
        return gate(guardrail, call)

    def begin(self, guardrail: Guardrail) -> float:
        return time.perf_counter()

    async def ask(
        self, hitl: Hitl, call: ActionCall, run: ChainRun, token: float
    ) -> tuple[GuardrailResult | None, bool]:
        return GuardrailResult.blocked(would_ask_reason(hitl.name)), True

    async def answer(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        if guardrail.needs_isolation:
            return await isolated(self.checks.plugin_executor, guardrail.explain, guardrail, call, now)
        return guardrail.explain(call, now)

    def end(
        self, token: float | None, guardrail: Guardrail, result: GuardrailResult | None, error: str, asks: bool
    ) -> None:
        elapsed = int((time.perf_counter() - token) * 1e6) if token is not None else 0
        if guardrail.shadow:
            self.steps.append(Step(guardrail.name, guardrail.kind, result, elapsed, False, asks, error, shadow=True))
            return
        stops = asks or (result is not None and not result.allowed)
        self.steps.append(Step(guardrail.name, guardrail.kind, result, elapsed, stops, asks, error))

    def cancelled(self, token: float | None) -> None:
        pass

    def passed_over(self, guardrail: Guardrail) -> None:
        self.steps.append(Step(guardrail.name, guardrail.kind, None, shadow=guardrail.shadow))
