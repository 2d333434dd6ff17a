"""`action_list`: allow and deny lists of action globs, optionally only for some agents or groups.

Globs match the NFKC form of the action ignoring case (`deny: ['shell.*']` stops `Shell.exec`), unless
`case_sensitive: true`; `match: exact` compares whole names, `match: contains` looks for the entry inside the name.
`/` and `.` are different characters; `separators: [".", "/"]` makes the listed characters one (a deny of
`shell.exec` then stops `shell/exec` too)."""

from __future__ import annotations

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import SHADOW, ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.options import Options
from server.domain.guardrails.patterns import NameSet, match_mode


class ActionList(Guardrail):
    kind = "action_list"
    # `block` and `warn` are the list's own; `shadow` records what it would have blocked, never enforcing it.
    modes = ("block", "warn", SHADOW)

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(
            spec, allowed={"allow", "deny", "agents", "groups", "mode", "case_sensitive", "match", "separators"}
        )
        case_sensitive = opts.boolean("case_sensitive", False)
        match = match_mode(opts.get("match"), "glob", opts.where("match"))
        self._same = _separators(opts.strings("separators"), opts.where("separators"))
        self.allow = NameSet((p.translate(self._same) for p in opts.strings("allow")), match, case_sensitive)
        self.deny = NameSet((p.translate(self._same) for p in opts.strings("deny")), match, case_sensitive)
        if not self.allow and not self.deny:
            raise InvalidArgument(f"{opts.where('allow')}: give an `allow` or a `deny` list", field="allow")
        self.agents = frozenset(opts.strings("agents"))
        self.groups = frozenset(opts.strings("groups"))
        mode = opts.string("mode", default="block")
        if mode not in self.modes:
            raise InvalidArgument(
                f"{opts.where('mode')}: must be 'block', 'warn' or 'shadow', got {mode!r}", field="mode"
            )
        self._verdict = GuardrailResult.warning if mode == "warn" else GuardrailResult.blocked

    def applies_to(self, call: ActionCall) -> bool:
        if not self.agents and not self.groups:
            return True
        return call.agent_id in self.agents or (call.group is not None and call.group in self.groups)

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        if not self.applies_to(call):
            return GuardrailResult.allow()
        action = call.action.translate(self._same) if self._same else call.action
        if self.deny.matches(action):
            return self._verdict(f"Action {call.action!r} is denied by {self.name}")
        if self.allow and not self.allow.matches(action):
            return self._verdict(f"Action {call.action!r} is not in the allow list of {self.name}")
        return GuardrailResult.allow()


_GLOB_SPECIALS = frozenset("*?[]!")


def _separators(chars: tuple[str, ...], where: str) -> dict[int, str]:
    """A translation that writes every listed separator as the first one; empty when none are listed."""
    for ch in chars:
        if len(ch) != 1 or ch.isalnum() or ch.isspace() or ch in _GLOB_SPECIALS:
            raise InvalidArgument(
                f"{where}: each separator is one punctuation character such as '.' or '/', got {ch!r}",
                field="separators",
            )
    if len(chars) == 1:
        raise InvalidArgument(
            f"{where}: list two or more separators to treat alike, e.g. ['.', '/']", field="separators"
        )
    return {ord(ch): chars[0] for ch in chars[1:]} if chars else {}
