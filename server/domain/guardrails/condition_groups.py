"""Conditions evaluated together: the `when:` of consecutive guardrails in a running chain, compiled into one CEL list
and evaluated once per call, so a chain with a condition on every guardrail pays for one activation, one conversion
of the call's values and one evaluation, not one of each per guardrail (about 1 µs of binding per evaluation, and the
context converted again for each activation).

Grouping changes how fast a condition is answered, never what it answers: CEL is pure, a call's values are fixed for
its walk, and answers are kept by expression text (Scope.results), so answering a condition early, or one whose
guardrail the walk never reaches, answers what evaluating it there would have. A group whose evaluation fails for a
call (one of its conditions cannot be evaluated, say: CEL's list is then an error) answers nothing, and an answer that
is not a bool is not kept: those conditions are evaluated alone, as without groups, each giving its own answer or
error. A group that does not compile (too deep once joined) is never used. At most GROUP_SIZE expressions per group
bound the work an early block makes useless, and the extra evaluation a failing group costs.

The group's native conditions (cel_native.py) are answered in Python and only the others are joined into the CEL list,
so a group of native conditions costs no call into cel-cpp; a native one that is not sure of a call's answer is left
to be evaluated alone, as one whose CEL evaluation fails in the group is.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from server.domain.guardrails.cel_native import Fallback, Native
from server.domain.guardrails.conditions import (
    ACTION_GLOBS,
    COMPILE_LOCK,
    EVAL_ENV,
    Condition,
    Needs,
    Scope,
    action_globs,
    action_may_be_rebound,
    glob_set,
    indexed_globs,
    native_globs,
)
from server.domain.guardrails.patterns import GlobSet

GROUP_SIZE = 8  # distinct expressions per group


class ConditionGroup:
    """Distinct condition texts answered by one evaluation; compiled when a call first needs it."""

    __slots__ = (
        "_broken",
        "_cel",
        "_compiled",
        "_expr",
        "_globs",
        "_lock",
        "_native_needs",
        "_natives",
        "needs",
        "sources",
    )

    def __init__(self, sources: Sequence[str], natives: Mapping[str, Native] | None = None) -> None:
        """`natives`: the native forms of those of `sources` that have one (Condition.native)."""
        self.sources = tuple(sources)
        natives = natives or {}
        self._natives = tuple((s, natives[s]) for s in self.sources if s in natives)
        # What the native ones read, checked once for all of them (a value one of them cannot read exactly leaves
        # them all to be evaluated alone, each checking only its own).
        self._native_needs = Needs.of([s for s, _ in self._natives])
        self._cel = tuple(s for s in self.sources if s not in natives)  # joined into one CEL list
        self.needs = Needs.of(self._cel)
        self._expr: Any = None
        self._globs: tuple[GlobSet, ...] = ()
        self._compiled = False
        self._broken = False
        self._lock = threading.Lock()

    def answer(self, scope: Scope) -> None:
        """Keep in `scope.results` the answer of every condition of the group that gives a bool for this call."""
        if not self._compiled and not self._compile():
            return
        results = scope.results
        if self._natives:
            self._answer_natively(scope)
        expr = self._expr
        if expr is None:
            return
        action = scope.action
        variables = scope.variables(self.needs)
        variables[ACTION_GLOBS] = [glob.matches(action) for glob in self._globs]
        try:
            values = expr.eval(data=variables).plain_value()
        except Exception:  # left to each condition alone, which reports it as its own error
            return
        if type(values) is not list:  # an error (its value is the message): some condition failed for this call
            return
        for source, value in zip(self._cel, values, strict=False):
            if type(value) is bool:
                results[source] = value

    def _answer_natively(self, scope: Scope) -> None:
        try:
            values = scope.native_values(self._native_needs)
        except Fallback:  # each is evaluated alone
            return
        results = scope.results
        for source, native in self._natives:
            try:
                value = native(values)
            except (Fallback, RecursionError):  # evaluated alone, by cel-cpp
                continue
            if value is True or value is False:
                results[source] = value

    def _compile(self) -> bool:
        """Compile the CEL list once; False when the group is never to be used."""
        with self._lock:
            if not self._compiled and not self._broken:
                try:
                    if self._cel:
                        self._expr, self._globs = _compile_group(self._cel)
                    self._compiled = True  # last: `answer` reads it without the lock
                except Exception:  # too large or too deep once joined: its conditions are evaluated alone
                    self._broken = True
            return self._compiled


def _compile_group(sources: Sequence[str]) -> tuple[Any, tuple[GlobSet, ...]]:
    patterns: list[str] = []  # the group's `glob(action, "<literal>")` patterns, answered once per call
    parts = []
    for source in sources:
        globs = action_globs(source)
        rebound = bool(globs) and action_may_be_rebound(source, globs)
        parts.append(native_globs(source, globs) if rebound else indexed_globs(source, globs, patterns))
    # One element per line: a `//` comment in a condition ends at its line.
    text = "[\n" + ",\n".join(f"({part}\n)" for part in parts) + "\n]"
    with COMPILE_LOCK:
        expr = EVAL_ENV.compile(text)
    return expr, tuple(glob_set(p) for p in patterns)


def group_conditions(conditions: Sequence[Condition]) -> None:
    """Give the conditions of a running chain (in evaluation order) their groups: runs of up to GROUP_SIZE distinct
    texts. Calling it again for the same chain keeps the groups it has (and what they compiled)."""
    runs: list[list[Condition]] = [[]]
    texts: set[str] = set()
    for condition in conditions:
        if condition.source not in texts and len(texts) == GROUP_SIZE:
            runs.append([])
            texts = set()
        runs[-1].append(condition)
        texts.add(condition.source)
    for run in runs:
        sources = tuple(dict.fromkeys(c.source for c in run))
        held = {id(c.group): c.group for c in run}
        kept = next(iter(held.values())) if len(held) == 1 else None
        if kept is not None and kept.sources == sources:
            continue
        natives = {c.source: c.native for c in run if c.native is not None}
        group = ConditionGroup(sources, natives) if len(sources) > 1 else None  # one text: evaluated alone anyway
        for condition in run:
            condition.group = group
