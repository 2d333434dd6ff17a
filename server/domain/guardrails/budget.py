"""`budget`: blocks an action whose token estimate (`context.tokens`) does not fit the agent's budget.

"Fits" is CanConsume's rule: the agent's and the global remaining both cover it, or only the pool is
short and it is within the priority's minimum context size. A missing or non-numeric estimate is
allowed (as `cost_cap`, only numbers count). Allowed with a WARNING when the agent would reach 90%.
"""

from __future__ import annotations

from server.domain.errors import FailedPrecondition, InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.deps import BudgetGate
from server.domain.guardrails.options import Options
from server.domain.safeguards.budgets import WARN_FRACTION
from server.domain.values import format_number, is_number


class BudgetGuardrail(Guardrail):
    kind = "budget"

    def __init__(self, spec: GuardrailSpec, budgets: BudgetGate | None) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"key", "unallocated"})
        if budgets is None:
            raise FailedPrecondition(f"guardrail {spec.name!r} (budget) needs the token-budget service")
        self.budgets = budgets
        self.key = opts.string("key", "tokens")
        self.unallocated = opts.string("unallocated", "block")
        if self.unallocated not in ("block", "allow"):
            raise InvalidArgument(
                f"{opts.where('unallocated')}: must be block or allow, got {self.unallocated!r}", field="unallocated"
            )

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        value = call.context.get(self.key)
        if not is_number(value) or value <= 0:  # type: ignore[operator]
            return GuardrailResult.allow()
        tokens = int(value)  # type: ignore[arg-type]
        fit = self.budgets.can_consume(call.agent_id, tokens)
        if not fit.allowed:
            if fit.reason == "no allocation" and self.unallocated == "allow":
                return GuardrailResult.allow()
            return GuardrailResult.blocked(f"Token budget: {format_number(tokens)} tokens do not fit ({fit.reason})")
        after = self.budgets.usage_after(call.agent_id, tokens)
        if after is not None and after >= WARN_FRACTION * 100:
            return GuardrailResult.warning(f"Token budget: {call.agent_id} would be at {after:.0f}% of its allocation")
        return GuardrailResult.allow()
