"""`rule`: a condition and what happens when it holds: `effect: deny` blocks, `warn` warns and the chain goes on,
`ask` asks a human exactly as `hitl` does (with hitl's approval options).

    - {name: big-refund, kind: rule, when: 'context.amount > 1000 && agent.group != "finance"',
       effect: deny, reason: "refund of {context.amount} needs finance"}

The condition is the guardrail's `when:` (chain.gate decides whether the rule applies); a rule that applies has
its effect. `{...}` in the reason are CEL expressions, rendered for the call.
"""

from __future__ import annotations

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.conditions import Template
from server.domain.guardrails.hitl import APPROVAL_OPTIONS, Hitl, approval_policy
from server.domain.guardrails.options import Options

KIND = "rule"
EFFECTS = ("deny", "ask", "warn")


def _effect(spec: GuardrailSpec) -> str:
    effect = spec.options.get("effect")
    if effect not in EFFECTS:
        raise InvalidArgument(
            f"guardrail {spec.name!r} (rule) option 'effect': must be one of 'deny', 'ask', 'warn', got {effect!r}",
            field="effect",
        )
    if spec.options.get("when") is None:
        raise InvalidArgument(
            f"guardrail {spec.name!r} (rule) option 'when': is required (the condition under which the rule applies)",
            field="when",
        )
    return str(effect)


def _reason(opts: Options, default: str) -> Template:
    text = opts.get("reason", default)
    if not isinstance(text, str) or not text:
        raise InvalidArgument(f"{opts.where('reason')}: must be a non-empty string, got {text!r}", field="reason")
    return Template(text, opts.where("reason"), "reason")


class Rule(Guardrail):
    """`effect: deny` or `effect: warn`."""

    kind = KIND

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        self.effect = _effect(spec)
        opts = Options(spec, allowed={"effect", "reason"})
        verb = "denied" if self.effect == "deny" else "flagged"
        self.reason = _reason(opts, f"Action {{action}} is {verb} by rule {spec.name}")
        self._verdict = GuardrailResult.blocked if self.effect == "deny" else GuardrailResult.warning

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        return self._verdict(self.reason.render(call))


class AskRule(Hitl):
    """`effect: ask`: every call the condition admits needs a person's approval (the approval options are hitl's);
    the reason is shown to the reviewer beside the chain's warnings."""

    kind = KIND

    def __init__(self, spec: GuardrailSpec) -> None:
        Guardrail.__init__(self, spec)
        self.effect = _effect(spec)
        opts = Options(spec, allowed={"effect", "reason", *APPROVAL_OPTIONS})
        self.reason = _reason(opts, f"Rule {spec.name} asks a human before {{action}}")
        self.patterns = ()
        self.case_sensitive = False
        self.reversibility = False
        self.policy = approval_policy(opts)

    def matches(self, action: str, level: str | None = None) -> bool:
        return True  # the condition (chain.gate) already admitted the call

    def note(self, call: ActionCall) -> tuple[tuple[str, str], ...]:
        return ((self.name, self.reason.render(call)),)


def build_rule(spec: GuardrailSpec) -> Guardrail:
    Options(spec, allowed={"effect", "reason", *APPROVAL_OPTIONS})  # a typo first, whatever the effect
    return AskRule(spec) if _effect(spec) == "ask" else Rule(spec)
