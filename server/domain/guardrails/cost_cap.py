"""`cost_cap`: block when a numeric context value is above a cap (the CostCap example of the SupervisorAgent
library)."""

from __future__ import annotations

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.options import Options
from server.domain.values import format_number, is_number


class CostCap(Guardrail):
    kind = "cost_cap"

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"key", "max"})
        self.key = opts.string("key", default="cost")
        cap = opts.require("max")
        if not is_number(cap):
            raise InvalidArgument(f"{opts.where('max')}: must be a number, got {cap!r}", field="max")
        self.max = float(cap)

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        value = call.context.get(self.key)
        # As in the source, only numbers count: a missing or non-numeric value is allowed.
        if is_number(value) and float(value) > self.max:  # type: ignore[arg-type]
            return GuardrailResult.blocked(f"Cost {format_number(value)} is over the cap")  # type: ignore[arg-type]
        return GuardrailResult.allow()
