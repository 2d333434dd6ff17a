"""What a guardrail is: a named check of one action call that answers allow, warning or block."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


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

    def __init__(self, spec: GuardrailSpec) -> None:
        self.spec = spec
        self.name = spec.name

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        raise NotImplementedError

    async def check_async(self, call: ActionCall, now: float) -> GuardrailResult:
        """check() for kinds with `is_async`; the default runs check()."""
        return self.check(call, now)

    def explain(self, call: ActionCall, now: float) -> GuardrailResult:
        """What check() would answer, changing nothing (ExplainAction, `outrider policy explain`). Kinds whose
        check() counts, takes a permit or asks a person override this; for the pure kinds it is check()."""
        return self.check(call, now)
