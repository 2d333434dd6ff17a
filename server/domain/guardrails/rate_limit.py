"""`rate_limit`: at most `max` admitted checks per agent in a sliding `window`, warning from `warn_at`."""

from __future__ import annotations

import math
from collections import deque

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.options import Options
from server.domain.values import format_number, is_number, parse_duration

_ALLOW = GuardrailResult.allow()


class RateLimit(Guardrail):
    kind = "rate_limit"

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"max", "window", "warn_at"})
        cap = opts.require("max")
        if not is_number(cap) or cap < 1 or not float(cap).is_integer():
            raise InvalidArgument(f"{opts.where('max')}: must be a whole number >= 1, got {cap!r}", field="max")
        self.max = int(cap)
        self.window = parse_duration(opts.require("window"), opts.where("window"))
        warn_at = opts.get("warn_at")
        if warn_at is not None and (not is_number(warn_at) or not 0 < warn_at <= 1):
            raise InvalidArgument(
                f"{opts.where('warn_at')}: must be a fraction in (0, 1], got {warn_at!r}", field="warn_at"
            )
        # The count from which a check answers WARNING (None: never).
        self.warn_from = math.ceil(float(warn_at) * self.max) if warn_at is not None else None
        self._seen: dict[str, deque[float]] = {}

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        times = self._seen.setdefault(call.agent_id, deque())
        horizon = now - self.window
        while times and times[0] <= horizon:
            times.popleft()
        result = self._answer(call.agent_id, len(times) + 1)
        if result.allowed:  # a refused check is not counted, so a flood does not extend its own block
            times.append(now)
        return result

    def shadow_check(self, call: ActionCall, now: float) -> GuardrailResult:
        """In shadow mode the window still counts: it is this guardrail's own (no other guardrail reads it), and
        without it a shadow limit could never say what it would have blocked. Promoting it to enforce builds a
        new guardrail, whose window starts empty."""
        return self.check(call, now)

    def explain(self, call: ActionCall, now: float) -> GuardrailResult:
        """The answer check() would give now, without counting this call."""
        times = self._seen.get(call.agent_id, ())
        horizon = now - self.window
        return self._answer(call.agent_id, sum(1 for t in times if t > horizon) + 1)

    def _answer(self, agent_id: str, count: int) -> GuardrailResult:
        if count > self.max:
            return GuardrailResult.blocked(f"Rate limit exceeded: more than {self._per()} for agent {agent_id!r}")
        if self.warn_from is not None and count >= self.warn_from:
            return GuardrailResult.warning(f"Rate limit near: {count} of {self._per()}")
        return _ALLOW

    def _per(self) -> str:
        return f"{self.max} checks per {format_number(self.window)}s"
