"""Explaining a check: the chain walked in CheckAction's order without side effects (ExplainAction).

Only side-effect-free guardrails are run; the others are listed as not evaluated; a hitl guardrail that
matches ends the walk where CheckAction would ask a person.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, Severity
from server.domain.guardrails.chain import ChainRun, Verdict


class StepOutcome(enum.IntEnum):
    # Values match outrider.v1.ExplainStepOutcome.
    EVALUATED = 1
    NOT_EVALUATED = 2
    WOULD_ASK = 3
    NOT_REACHED = 4


@dataclass(frozen=True, slots=True)
class Step:
    guardrail: str
    kind: str
    outcome: StepOutcome
    severity: Severity = Severity.INFO
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Explanation:
    verdict: Verdict
    needs_approval: bool
    steps: tuple[Step, ...]


def explain(
    order: Sequence[Guardrail], call: ActionCall, now: float, would_ask: Callable[[Guardrail, ActionCall], bool]
) -> Explanation:
    run = ChainRun()
    steps: list[Step] = []
    decided: Verdict | None = None
    for guardrail in order:
        if run.stopped or decided is not None:
            steps.append(Step(guardrail.name, guardrail.kind, StepOutcome.NOT_REACHED))
            continue
        if guardrail.needs_approval:
            if would_ask(guardrail, call):
                reason = f"would ask a person ({guardrail.name})"
                steps.append(Step(guardrail.name, guardrail.kind, StepOutcome.WOULD_ASK, Severity.BLOCK, reason))
                decided = Verdict(False, reason, Severity.BLOCK, guardrail.name, run.warnings)
            else:
                steps.append(Step(guardrail.name, guardrail.kind, StepOutcome.EVALUATED))
            continue
        if not guardrail.side_effect_free:
            steps.append(Step(guardrail.name, guardrail.kind, StepOutcome.NOT_EVALUATED))
            continue
        try:
            result = guardrail.check(call, now)
        except Exception as exc:  # as in CheckAction: a guardrail that raises blocks
            result = GuardrailResult.blocked(f"Guardrail error: {str(exc) or type(exc).__name__}")
        steps.append(Step(guardrail.name, guardrail.kind, StepOutcome.EVALUATED, result.severity, result.reason))
        run.record(guardrail.name, result)
    return Explanation(decided or run.verdict(), decided is not None, tuple(steps))
