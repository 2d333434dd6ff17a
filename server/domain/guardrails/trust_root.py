"""`trust_root`: the deterministic authority (seed 002, section 9) that runs before every guardrail.

It scans the action and *every* string leaf of the context: nested maps, lists, map keys, and bytes
decoded as UTF-8 with backslash escapes, so nothing hides inside a structure or an encoding.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from .options import Options
from .patterns import GlobSet, compile_regexes


def iter_string_leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Yield (path, text) for every string-like leaf, map keys included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, bytes | bytearray | memoryview):
        yield path, bytes(value).decode("utf-8", errors="backslashreplace")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            key_text = (
                str(key)
                if not isinstance(key, bytes | bytearray)
                else bytes(key).decode("utf-8", errors="backslashreplace")
            )
            yield f"{path} key {key_text!r}", key_text
            yield from iter_string_leaves(item, f"{path}.{key_text}")
    elif isinstance(value, list | tuple | set | frozenset):
        for i, item in enumerate(value):
            yield from iter_string_leaves(item, f"{path}[{i}]")


class TrustRoot(Guardrail):
    kind = "trust_root"
    runs_first = True

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"allowed_actions", "blocked_patterns"})
        self.allowed_actions = GlobSet(opts.strings("allowed_actions"))
        self.blocked = compile_regexes(opts.strings("blocked_patterns"), opts.where("blocked_patterns"))

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        if self.allowed_actions and not self.allowed_actions.matches(call.action):
            return GuardrailResult.blocked(f"Action {call.action!r} is not allowed by the trust root")
        if not self.blocked:
            return GuardrailResult.allow()
        for where, text in self._leaves(call):
            for regex in self.blocked:
                if regex.search(text):
                    return GuardrailResult.blocked(
                        f"Blocked by the trust root: pattern {regex.pattern!r} matched {where}"
                    )
        return GuardrailResult.allow()

    @staticmethod
    def _leaves(call: ActionCall) -> Iterator[tuple[str, str]]:
        yield "the action", call.action
        yield from iter_string_leaves(call.context, "context")
        yield from iter_string_leaves(call.binary_context, "binary_context")
