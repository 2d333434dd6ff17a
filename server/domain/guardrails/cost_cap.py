"""`cost_cap`: block when a numeric context value is above a cap (the CostCap example of the SupervisorAgent
library).

`strings:` says what a string at the key is: `ignore` (the source's rule: only numbers count), `parse` (a numeric
string is compared as its number, and a string that is not one blocks), or `block` (anything but a number blocks).
"""

from __future__ import annotations

import math

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.options import Options
from server.domain.values import format_number, is_number

STRINGS = ("ignore", "parse", "block")
_MISSING = object()


class CostCap(Guardrail):
    kind = "cost_cap"

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"key", "max", "strings"})
        self.key = opts.string("key", default="cost")
        cap = opts.require("max")
        if not is_number(cap):
            raise InvalidArgument(f"{opts.where('max')}: must be a number, got {cap!r}", field="max")
        self.max = float(cap)
        strings = opts.get("strings", "ignore")
        if strings not in STRINGS:
            raise InvalidArgument(
                f"{opts.where('strings')}: must be one of 'ignore', 'parse', 'block', got {strings!r}", field="strings"
            )
        self.strings = str(strings)

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        value = call.context.get(self.key, _MISSING)
        if is_number(value) and not math.isnan(value):
            number = float(value)
        elif value is _MISSING or self.strings == "ignore":
            # As in the source, only numbers count: a missing or non-numeric value is allowed.
            return GuardrailResult.allow()
        elif self.strings == "parse" and isinstance(value, str) and (parsed := _parse(value)) is not None:
            number = parsed
        elif self.strings == "parse" and not isinstance(value, str):
            return GuardrailResult.allow()  # `parse` reads strings; other values are ignored as by default
        else:
            # `block`: anything but a number; `parse`: a string that is not a number (the tool might read it as one).
            return GuardrailResult.blocked(f"Cost at {self.key!r} is not a number ({_describe(value)})")
        if number > self.max:
            return GuardrailResult.blocked(f"Cost {format_number(number)} is over the cap")
        return GuardrailResult.allow()


def _parse(text: str) -> float | None:
    """A numeric string as its number (`"1000"`, `" 1e3 "`, `"1_000"`: what Python's and most tools' parsers
    read as a number); None for anything else. NaN is not a number here: it compares false with every cap."""
    try:
        number = float(text)
    except ValueError:
        return None
    return None if math.isnan(number) else number


def _describe(value: object) -> str:
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, float):  # NaN
        return "NaN"
    return f"a {type(value).__name__}"
