"""`breaker`: takes a circuit-breaker permit inside CheckAction, so a guarded call needs one round trip.

The key is the agent id, or `agent_id:<dependency>` with a fixed `dependency` option or one read from
the context key named by `dependency_from`. Allowed: the answer carries the permit id, to settle with
ReportOutcome(s) or ReleasePermit. OPEN (or HALF_OPEN with every probe taken): a block whose reason
names the degradation strategy; nothing may run.
"""

from __future__ import annotations

import fnmatch

from server.domain.errors import FailedPrecondition
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec, Severity
from server.domain.guardrails.deps import PermitSource
from server.domain.guardrails.options import Options
from server.domain.safeguards.breakers import Admission, Directive
from server.domain.values import format_number


class BreakerGuardrail(Guardrail):
    kind = "breaker"

    def __init__(self, spec: GuardrailSpec, breakers: PermitSource | None) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"dependency", "dependency_from", "actions"})
        if breakers is None:
            raise FailedPrecondition(f"guardrail {spec.name!r} (breaker) needs the circuit-breaker service")
        self.breakers = breakers
        self.dependency = opts.string("dependency", "-") if opts.get("dependency") is not None else ""
        self.dependency_from = opts.string("dependency_from", "-") if opts.get("dependency_from") is not None else ""
        self.actions = opts.strings("actions")

    def key_for(self, call: ActionCall) -> str:
        dependency = self.dependency
        if self.dependency_from:
            value = call.context.get(self.dependency_from)
            if isinstance(value, str) and value:
                dependency = value
        return f"{call.agent_id}:{dependency}" if dependency else call.agent_id

    is_async = True  # CheckAction awaits check_async: the permit never blocks the event loop

    def _applies(self, call: ActionCall) -> bool:
        return not self.actions or any(fnmatch.fnmatchcase(call.action, p) for p in self.actions)

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        """Off the event loop (a worker thread, `outrider policy test`)."""
        if not self._applies(call):
            return GuardrailResult.allow()
        return _result(self.breakers.guardrail_permit(self.key_for(call)))

    async def check_async(self, call: ActionCall, now: float) -> GuardrailResult:
        if not self._applies(call):
            return GuardrailResult.allow()
        return _result(await self.breakers.guardrail_permit_async(self.key_for(call)))

    def explain(self, call: ActionCall, now: float) -> GuardrailResult:
        """Would a permit be granted now? No permit is taken and no breaker changes."""
        if self.actions and not any(fnmatch.fnmatchcase(call.action, p) for p in self.actions):
            return GuardrailResult.allow()
        admission = self.breakers.preview_permit(self.key_for(call))
        if admission.permitted:
            return GuardrailResult.allow()  # as check() answers (its permit id aside)
        return GuardrailResult.blocked(refusal(admission))


def _result(admission: Admission) -> GuardrailResult:
    if admission.permitted and admission.permit is not None:
        return GuardrailResult(True, "", Severity.INFO, admission.permit.permit_id)
    return GuardrailResult.blocked(refusal(admission))


def refusal(a: Admission) -> str:
    """`Circuit 'a:db' is OPEN: degrade (FALLBACK), retry in 12s`."""
    d = a.degradation
    strategy = d.strategy.name if d is not None else "FALLBACK"
    what = "fail fast (CircuitOpenError)" if a.directive is Directive.FAIL_FAST else f"degrade ({strategy})"
    retry = ""
    if d is not None and d.retry_after is not None:
        retry = f", retry in {format_number(round(d.retry_after, 3))}s"
    return f"Circuit {a.key!r} is {a.state.name}: {what}{retry}"
