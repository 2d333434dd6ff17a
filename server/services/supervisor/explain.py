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

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import cast

from server.domain.errors import PermissionDenied
from server.domain.guardrails import ActionCall, ChainRun, Guardrail, GuardrailResult, Severity, Verdict, gate
from server.domain.guardrails.hitl import Hitl, would_ask_reason
from server.services.ports import AuditSink
from server.services.supervisor.check import CheckActionService


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
        order = self.checks.chain.order
        now = self.checks.clock.monotonic()
        run = ChainRun()
        steps: list[Step] = []
        needs_approval = False
        for guardrail in order:
            shadow = guardrail.shadow
            if run.stopped or needs_approval or run.skips(guardrail):
                steps.append(Step(guardrail.name, guardrail.kind, None, shadow=shadow))
                continue
            started = time.perf_counter()
            error = ""
            asks = False
            try:
                # A guardrail whose condition is false (or failed) answers that as its result (chain.gate).
                gated = gate(guardrail, call) if guardrail.condition is not None else None
                if gated is not None:
                    result = gated
                elif guardrail.needs_approval and self._matches(cast(Hitl, guardrail), call):
                    asks = True
                    needs_approval = not shadow
                    result = GuardrailResult.blocked(would_ask_reason(guardrail.name))
                elif guardrail.needs_isolation:
                    result = await self._isolated(guardrail, call, now)
                else:
                    result = guardrail.explain(call, now)
            except Exception as exc:
                error = str(exc) or type(exc).__name__
                result = GuardrailResult.blocked(f"Guardrail error: {error}")
            elapsed = int((time.perf_counter() - started) * 1e6)
            if shadow:
                run.record_shadow(guardrail.name, result, needs_approval=asks)
                steps.append(Step(guardrail.name, guardrail.kind, result, elapsed, False, asks, error, shadow=True))
                continue
            stop = run.record(guardrail.name, result) if not needs_approval else True
            steps.append(Step(guardrail.name, guardrail.kind, result, elapsed, stop, needs_approval and stop, error))
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

    def _matches(self, hitl: Hitl, call: ActionCall) -> bool:
        level = self.checks.assess_level(call.action, dict(call.context)) if hitl.reversibility else None
        return hitl.matches(call.action, level)

    async def _isolated(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        timeout: float = getattr(guardrail, "timeout", 1.0)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.checks.plugin_executor, guardrail.explain, call, now)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(f"{guardrail.name} did not answer within {timeout:g}s") from None


def _decided(step: Step) -> Step:
    return replace(step, decided=True)
