"""Policy lint (`outrider policy lint`): mistakes a valid chain can still contain. Pure: takes the built chain."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass

from server.domain.guardrails.action_list import ActionList
from server.domain.guardrails.base import ActionCall, Guardrail
from server.domain.guardrails.conditions import AGENT_FIELDS, ConditionError, Scope
from server.domain.guardrails.hitl import Hitl
from server.domain.guardrails.rule import Rule

# Globs that match every action.
_EVERYTHING = {"*", "**"}


@dataclass(frozen=True, slots=True)
class Finding:
    index: int  # position in the policy file's `guardrails:` list
    guardrail: str
    problem: str


def lint_chain(chain: Sequence[Guardrail]) -> list[Finding]:
    """Duplicate names, guardrails after an unconditional block, list entries shadowed by an earlier entry or that
    can never take effect, conditions naming unknown agent fields or that can never apply."""
    index = {id(g): i for i, g in enumerate(chain)}
    mentioned = _mentioned_actions(chain)
    out: list[Finding] = []
    seen: dict[str, int] = {}
    for i, g in enumerate(chain):
        if g.name in seen:
            out.append(Finding(i, g.name, f"duplicate name: guardrails[{seen[g.name]}] is also named {g.name!r}"))
        seen.setdefault(g.name, i)
        if isinstance(g, ActionList):
            out.extend(Finding(i, g.name, p) for p in _list_problems(g))
        if isinstance(g, Hitl):
            out.extend(Finding(i, g.name, p) for p in _shadowed(list(g.patterns), "patterns", substring=True))
        out.extend(Finding(i, g.name, p) for p in _condition_problems(g))
        out.extend(Finding(i, g.name, p) for p in _never_applies(g, mentioned))
    out.extend(_shadowed_rules(chain))
    order = [*(g for g in chain if g.runs_first), *(g for g in chain if not g.runs_first)]
    blocker = next((g for g in order if _blocks_everything(g)), None)
    if blocker is not None:
        for g in order[order.index(blocker) + 1 :]:
            out.append(Finding(index[id(g)], g.name, f"unreachable: {blocker.name!r} before it blocks every action"))
    return sorted(out, key=lambda f: f.index)


def _blocks_everything(g: Guardrail) -> bool:
    if isinstance(g, Rule):
        return g.effect == "deny" and not g.shadow and g.condition is not None and _normal(g.condition.source) == "true"
    if g.condition is not None:
        return False
    if not isinstance(g, ActionList) or g.agents or g.groups or g.spec.options.get("mode", "block") != "block":
        return False
    deny = [str(p) for p in g.spec.options.get("deny") or []]
    return any(p in _EVERYTHING for p in deny)


def _list_problems(g: ActionList) -> list[str]:
    allow = [str(p) for p in g.spec.options.get("allow") or []]
    deny = [str(p) for p in g.spec.options.get("deny") or []]
    out = _shadowed(allow, "allow") + _shadowed(deny, "deny")
    for a in allow:
        for d in deny:
            if fnmatch.fnmatchcase(a, d):
                out.append(f"allow entry {a!r} can never take effect: deny entry {d!r} matches it first")
                break
    return out


def _shadowed(entries: list[str], key: str, *, substring: bool = False) -> list[str]:
    out = []
    for j, entry in enumerate(entries):
        for earlier in entries[:j]:
            covered = earlier.lower() in entry.lower() if substring else fnmatch.fnmatchcase(entry, earlier)
            if covered:
                out.append(f"{key} entry {entry!r} is shadowed by the earlier {earlier!r}")
                break
    return out


# A CEL expression's string literals, dropped before looking for `agent.<field>`: a lint heuristic over the text, not
# a parser (CEL compiled and type-checked the expression when the guardrail was built).
_STRINGS = re.compile(r'(?s)"""(?:.*?)"""|' + r"'''(?:.*?)'''|" + r'"(?:\\.|[^"\\])*"|' + r"'(?:\\.|[^'\\])*'")
_AGENT_FIELD = re.compile(r"(?<![\w.])agent\s*\.\s*([A-Za-z_]\w*)")


def _condition_problems(g: Guardrail) -> list[str]:
    """`agent.<field>` that is not one of the agent's fields: `agent` is a map, so CEL's checker lets it through and
    every call would then fail to evaluate it (a `Guardrail error` block)."""
    if g.condition is None:
        return []
    text = _STRINGS.sub('""', g.condition.source)
    unknown = sorted({m for m in _AGENT_FIELD.findall(text) if m not in AGENT_FIELDS})
    known = ", ".join(f"agent.{f}" for f in AGENT_FIELDS)
    return [f"unknown variable agent.{name} in `when` (known: action, {known}, context, now)" for name in unknown]


def _normal(source: str) -> str:
    return " ".join(source.split())


def _shadowed_rules(chain: Sequence[Guardrail]) -> list[Finding]:
    """A rule whose condition is the same as an earlier enforced deny rule's never decides: the earlier one blocks
    every call it would apply to."""
    out: list[Finding] = []
    denying: dict[str, str] = {}
    for i, g in enumerate(chain):
        if not isinstance(g, Rule) or g.condition is None:
            continue
        cond = _normal(g.condition.source)
        if cond in denying:
            out.append(
                Finding(i, g.name, f"shadowed: rule {denying[cond]!r} before it denies under the same condition")
            )
        elif g.effect == "deny" and not g.shadow:
            denying[cond] = g.name
    return out


# Variables other than `action`: a condition that reads one depends on the call, not only on the action.
_MAX_SAMPLES = 20_000  # actions a condition is tried on at most (each evaluation is microseconds)
_CALL_VARIABLES = re.compile(r"(?<![\w.])(context|agent|now)(?!\w)")
_LITERAL = re.compile(r'"((?:\\.|[^"\\])*)"|' + r"'((?:\\.|[^'\\])*)'")


def _samples(pattern: str) -> set[str]:
    """Actions a glob or substring pattern stands for: itself, and its wildcards filled in."""
    filled = re.sub(r"\*+|\?", "x", pattern)
    return {pattern, filled, filled.rstrip(".-_/:") or filled}


def _mentioned_actions(chain: Sequence[Guardrail]) -> frozenset[str]:
    """Every action the policy names: list entries, hitl patterns, and the string literals of its conditions (so
    `action == "payments.refund"` mentions what it compares with); a pattern's wildcard is also filled with each
    literal (`shell.*` with `.exec` gives `shell.exec`), so conditions that combine a family with a suffix are
    judged on actions that can meet both."""
    patterns: set[str] = set()
    for g in chain:
        if isinstance(g, ActionList):
            for key in ("allow", "deny"):
                patterns.update(str(p) for p in g.spec.options.get(key) or [])
        if isinstance(g, Hitl):
            patterns.update(str(p) for p in g.patterns)
        if g.condition is not None:
            for m in _LITERAL.finditer(g.condition.source):
                patterns.add(m.group(1) if m.group(1) is not None else m.group(2))
    out: set[str] = set()
    for p in patterns:
        out |= _samples(p)
    words = sorted({w for p in patterns if (w := re.sub(r"[*?]", "", p).strip(".-_/:"))})
    for p in sorted(patterns):
        if "*" in p and len(out) < _MAX_SAMPLES:
            out.update(re.sub(r"\*+|\?", "x", p.replace("*", w, 1)) for w in words)
    return frozenset(a for a in out if a)


def _never_applies(g: Guardrail, mentioned: frozenset[str]) -> list[str]:
    """A condition that reads only `action` (or nothing) and is false for every action the policy mentions: the
    guardrail never applies to them (a contradiction, or a typo in a name). Conditions on the context, the agent or
    the time depend on the call and are not judged."""
    if g.condition is None or _CALL_VARIABLES.search(_STRINGS.sub('""', g.condition.source)):
        return []
    candidates = sorted(mentioned) or ["x"]
    for action in candidates:
        try:
            if g.condition.holds(Scope(ActionCall("lint", action, {}))):
                return []
        except ConditionError:
            return []  # it fails to evaluate: a run-time block, not "never applies"
    if len(candidates) == 1 and candidates[0] == "x":
        return [f"`when` can never apply: {g.condition.source!r} is false whatever the action"]
    return [
        f"`when` can never apply to any action the policy mentions: {g.condition.source!r} is false for all of them"
    ]
