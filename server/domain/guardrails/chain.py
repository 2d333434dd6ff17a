"""How a chain's results combine (the SupervisorAgent library, "Supervisor guardrails"), kept apart from how checks run.

No guardrails: allow. In order: the first result that is not allowed is returned at once and later
guardrails do not run; an error counts as a block `Guardrail error: <message>`; a warning is kept and
evaluation goes on; when all allow, the result is the last guardrail's (earlier warnings only appear
in `warnings`). Trust roots are evaluated before every other guardrail.

Shadow mode (Outrider's own, after AWS AgentCore Policy's LOG_ONLY): a guardrail in shadow is evaluated in its
place but never decides. The shadow outcome is what the chain would have answered with its shadow guardrails
enforced, when that differs: the first shadow guardrail that would have blocked (or asked a human) before any
enforcing guardrail blocked. Once one is found, later shadow guardrails are not evaluated (enforced, they would
not have run); a shadow guardrail's warning is not added to the answer's warnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, Severity
from server.domain.guardrails.condition_groups import group_conditions
from server.domain.guardrails.conditions import ConditionError, scope_of


@dataclass(frozen=True, slots=True)
class ShadowOutcome:
    """What a shadow guardrail would have answered, had it been enforced."""

    guardrail: str
    reason: str
    severity: Severity = Severity.BLOCK
    needs_approval: bool = False  # a shadow hitl guardrail matched: it would have asked a human

    def describe(self) -> str:
        """`would have blocked by X: reason` (the decision log's and the console's wording)."""
        if self.needs_approval:
            return f"would have asked a human ({self.guardrail})"
        return f"would have blocked by {self.guardrail}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    reason: str
    severity: Severity
    guardrail: str
    warnings: tuple[tuple[str, str], ...]  # (guardrail name, reason), in order
    # Set when a shadow guardrail would have blocked before any enforcing one did.
    shadow: ShadowOutcome | None = None


def evaluation_order(chain: Sequence[Guardrail]) -> tuple[Guardrail, ...]:
    """Trust roots first (in their relative order), then the rest in chain order."""
    return tuple(g for g in chain if g.runs_first) + tuple(g for g in chain if not g.runs_first)


def running_order(chain: Sequence[Guardrail]) -> tuple[Guardrail, ...]:
    """`evaluation_order` for a chain that is about to run: its conditions grouped to be evaluated together
    (condition_groups.py), which changes how fast they are answered, never what they answer."""
    order = evaluation_order(chain)
    group_conditions([g.condition for g in order if g.condition is not None])
    return order


def gate(guardrail: Guardrail, call: ActionCall) -> GuardrailResult | None:
    """A guardrail's `when:` for one call. None: it applies (run it). Otherwise the result that stands in for it:
    an INFO allow saying it did not apply, or, when the condition cannot be evaluated, the chain's error block
    (`Guardrail error: …`, naming the guardrail and CEL's message) unless it says `on_error: skip`.

    Every walk of the chain (CheckAction, ExplainAction, shadow mode, replay, `policy test`) asks this first."""
    condition = guardrail.condition
    if condition is None:
        return None
    try:
        if condition.holds(scope_of(call)):
            return None
    except ConditionError as exc:
        if guardrail.skip_on_error:
            return GuardrailResult.allow(f"Not applied: the condition of {guardrail.name} failed ({exc}); skipped")
        return GuardrailResult.blocked(f"Guardrail error: the condition of {guardrail.name!r} failed: {exc}")
    return GuardrailResult.allow(f"Not applied: the condition of {guardrail.name} is false")


class ChainRun:
    """Feed it each guardrail's result in evaluation order; it says when to stop and what to answer."""

    __slots__ = ("_last", "_last_name", "_shadow", "_stopped", "_warnings")

    def __init__(self) -> None:
        self._warnings: list[tuple[str, str]] = []
        self._last: GuardrailResult | None = None
        self._last_name = ""
        self._stopped = False
        self._shadow: ShadowOutcome | None = None

    @property
    def shadow(self) -> ShadowOutcome | None:
        return self._shadow

    def skips(self, guardrail: Guardrail) -> bool:
        """A shadow guardrail after the shadow outcome is known is not evaluated."""
        return guardrail.shadow and self._shadow is not None

    def record_shadow(self, name: str, result: GuardrailResult, needs_approval: bool = False) -> None:
        """Record a shadow guardrail's result: kept when it is the first that would have blocked; never stops."""
        if self._stopped:
            raise RuntimeError("chain already stopped")
        if self._shadow is None and (needs_approval or not result.allowed):
            self._shadow = ShadowOutcome(name, result.reason, result.severity, needs_approval)

    def record_shadow_error(self, name: str, message: str) -> None:
        self.record_shadow(name, GuardrailResult.blocked(f"Guardrail error: {message}"))

    @property
    def warnings(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._warnings)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def record(self, name: str, result: GuardrailResult) -> bool:
        """Record one result; True means stop here (a block)."""
        if self._stopped:
            raise RuntimeError("chain already stopped")
        if result.severity is Severity.WARNING:
            self._warnings.append((name, result.reason))
        self._last, self._last_name = result, name
        if not result.allowed:
            self._stopped = True
        return self._stopped

    def record_error(self, name: str, message: str) -> bool:
        """A guardrail that raised counts as a block."""
        return self.record(name, GuardrailResult.blocked(f"Guardrail error: {message}"))

    def verdict(self) -> Verdict:
        if self._last is None:
            return Verdict(True, "", Severity.INFO, "", (), self._shadow)
        last = self._last
        return Verdict(last.allowed, last.reason, last.severity, self._last_name, tuple(self._warnings), self._shadow)
