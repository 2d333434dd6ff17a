"""What a guardrail is: a named check of one action call that answers allow, warning or block."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from server.domain.errors import InvalidArgument
from server.domain.guardrails.conditions import Condition

# `mode: shadow` on any guardrail (or `chain: {mode: shadow}` for all of them): evaluated and recorded in the
# decision log, never enforced (docs/policy-testing.md).
SHADOW = "shadow"
ENFORCE = "enforce"
# `on_error:` for a condition that fails at run time: block (the chain's rule for an error), or skip the guardrail.
BLOCK_ON_ERROR = "block"
SKIP_ON_ERROR = "skip"
ON_ERROR = (BLOCK_ON_ERROR, SKIP_ON_ERROR)
# The options every kind takes (Guardrail.__init__ reads them).
COMMON_OPTIONS = ("mode", "when", "on_error")


class Severity(enum.IntEnum):
    # Values match outrider.v1.Severity so conversion is a cast.
    INFO = 1
    WARNING = 2
    BLOCK = 3


@dataclass(frozen=True, slots=True)
class GuardrailResult:
    allowed: bool
    reason: str
    severity: Severity
    # Set by the `breaker` kind: the circuit-breaker permit it took, returned with the decision.
    permit_id: str = ""

    @classmethod
    def allow(cls, reason: str = "") -> GuardrailResult:
        return cls(True, reason, Severity.INFO)

    @classmethod
    def warning(cls, reason: str) -> GuardrailResult:
        return cls(True, reason, Severity.WARNING)

    @classmethod
    def blocked(cls, reason: str) -> GuardrailResult:
        return cls(False, reason, Severity.BLOCK)


@dataclass(frozen=True, slots=True)
class ActionCall:
    """One "may I?" question. `group` is the agent's group when the agent is registered."""

    agent_id: str
    action: str
    context: Mapping[str, Any]
    binary_context: Mapping[str, bytes] = field(default_factory=dict)
    group: str | None = None
    # What conditions (`when:`) see besides the above: the agent's record and the wall-clock time of the call
    # (None: read the clock when a condition needs it).
    labels: Mapping[str, str] = field(default_factory=dict)
    capabilities: tuple[str, ...] = ()
    time: datetime | None = None
    # The call's CEL scope, built by the first condition that needs it (conditions.scope_of).
    scope: list[Any] = field(default_factory=list, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class GuardrailSpec:
    """A guardrail as declared: in the policy file or by AddGuardrail."""

    name: str
    kind: str
    options: Mapping[str, Any]
    source: str = "runtime"  # "policy" or "runtime"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, **dict(self.options)}


class Guardrail:
    """Base of every kind. Subclasses validate their options in __init__ and implement check()."""

    kind: ClassVar[str] = ""
    # Trust roots run before every other guardrail, whatever their position.
    runs_first: ClassVar[bool] = False
    # Runs user code: the service runs it off the event loop under a time limit.
    needs_isolation: ClassVar[bool] = False
    # Asks a person (the hitl kind): the service creates an approval request and waits for it.
    needs_approval: ClassVar[bool] = False
    # Awaits a service (the breaker kind's permit): the service awaits check_async() on the event loop,
    # which must never block it (storage work runs off the loop).
    is_async: ClassVar[bool] = False

    # The values the `mode` option takes for this kind; every kind takes "shadow".
    modes: ClassVar[tuple[str, ...]] = (ENFORCE, SHADOW)

    def __init__(self, spec: GuardrailSpec) -> None:
        self.spec = spec
        self.name = spec.name
        mode = spec.options.get("mode")
        if mode is not None and mode not in self.modes:
            allowed = ", ".join(repr(m) for m in self.modes)
            raise InvalidArgument(
                f"guardrail {spec.name!r} ({spec.kind}) option 'mode': must be one of {allowed}, got {mode!r}",
                field="mode",
            )
        # Shadow: the chain evaluates it and records what it would have done; its result never decides.
        self.shadow = mode == SHADOW
        # `when: <CEL>` (every kind): the guardrail applies to a call only when it holds; `on_error: skip` lets a
        # condition that cannot be evaluated skip the guardrail instead of blocking (conditions.gate).
        when = spec.options.get("when")
        where = f"guardrail {spec.name!r} ({spec.kind}) option"
        self.condition = Condition(when, f"{where} 'when'", "when") if when is not None else None
        on_error = spec.options.get("on_error", BLOCK_ON_ERROR)
        if on_error not in ON_ERROR:
            raise InvalidArgument(f"{where} 'on_error': must be 'block' or 'skip', got {on_error!r}", field="on_error")
        self.skip_on_error = on_error == SKIP_ON_ERROR

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        raise NotImplementedError

    async def check_async(self, call: ActionCall, now: float) -> GuardrailResult:
        """check() for kinds with `is_async`; the default runs check()."""
        return self.check(call, now)

    def explain(self, call: ActionCall, now: float) -> GuardrailResult:
        """What check() would answer, changing nothing (ExplainAction, `outrider policy explain`). Kinds whose
        check() counts, takes a permit or asks a person override this; for the pure kinds it is check()."""
        return self.check(call, now)

    def shadow_check(self, call: ActionCall, now: float) -> GuardrailResult:
        """What a guardrail in shadow mode runs in CheckAction. It must not consume state an enforcing guardrail
        reads (a breaker's permit, a budget), so by default it is the side-effect-free explain(); a kind whose
        state is its own (rate_limit's per-guardrail window) overrides this to count as check() does."""
        return self.explain(call, now)
