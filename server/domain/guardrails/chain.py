"""How a chain's results combine (the SupervisorAgent library, "Supervisor guardrails"), kept apart from how checks run.

No guardrails: allow. In order: the first result that is not allowed is returned at once and later
guardrails do not run; an error counts as a block `Guardrail error: <message>`; a warning is kept and
evaluation goes on; when all allow, the result is the last guardrail's (earlier warnings only appear
in `warnings`). Trust roots are evaluated before every other guardrail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.domain.guardrails.base import Guardrail, GuardrailResult, Severity


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    reason: str
    severity: Severity
    guardrail: str
    warnings: tuple[tuple[str, str], ...]  # (guardrail name, reason), in order


def evaluation_order(chain: Sequence[Guardrail]) -> tuple[Guardrail, ...]:
    """Trust roots first (in their relative order), then the rest in chain order."""
    return tuple(g for g in chain if g.runs_first) + tuple(g for g in chain if not g.runs_first)


class ChainRun:
    """Feed it each guardrail's result in evaluation order; it says when to stop and what to answer."""

    __slots__ = ("_last", "_last_name", "_stopped", "_warnings")

    def __init__(self) -> None:
        self._warnings: list[tuple[str, str]] = []
        self._last: GuardrailResult | None = None
        self._last_name = ""
        self._stopped = False

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
            return Verdict(True, "", Severity.INFO, "", ())
        last = self._last
        return Verdict(last.allowed, last.reason, last.severity, self._last_name, tuple(self._warnings))
