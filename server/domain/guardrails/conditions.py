"""CEL conditions (`when:` on every guardrail, the `rule` kind's test): compiled and type-checked once, when the
guardrail is built, and evaluated against one scope per call.

The runtime is cel-expr-python (the CEL team's Python binding of cel-cpp): a checked AST, RE2 for `matches()`,
heterogeneous numeric comparison (`context.amount > 1000` holds for 5000 and 5000.0) and run-time errors as
values, never exceptions thrown through the chain. A condition in CEL's common subset is answered in Python from the
AST cel-cpp checked (cel_native.py), with cel-cpp's answer, and evaluated by cel-cpp for any call the native path is
not sure of. docs/concepts/conditions.md is the user's side of this module.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cel_expr_python import cel  # type: ignore[import-untyped]

from server.domain.actions import fold
from server.domain.errors import InvalidArgument
from server.domain.guardrails.cel_native import Fallback, Native, compile_checked
from server.domain.guardrails.cel_native import holds as native_holds
from server.domain.guardrails.cel_values import Values
from server.domain.guardrails.patterns import GlobSet
from server.domain.values import format_number

if TYPE_CHECKING:
    from server.domain.guardrails.base import ActionCall
    from server.domain.guardrails.condition_groups import ConditionGroup

# Documented limits (docs/concepts/conditions.md): an expression longer than MAX_LENGTH characters is refused
# at load; cel-cpp refuses one nested deeper than 32 levels (its parser's recursion limit) at load too.
MAX_LENGTH = 4096
MAX_RENDERED = 200  # characters of one rendered `{...}` placeholder in a rule's reason
AGENT_FIELDS = ("id", "group", "labels", "capabilities")

_T = cel.Type


@functools.lru_cache(maxsize=1024)
def glob_set(pattern: str) -> GlobSet:
    return GlobSet((pattern,))


def _glob(value: str, pattern: str) -> bool:
    """`glob(action, "files.*")`: as `action_list` matches (NFKC, ignoring case), so a rule and a deny list agree."""
    return glob_set(pattern).matches(value)


VARIABLES = {
    "action": _T.STRING,
    "agent": _T.Map(_T.STRING, _T.DYN),
    "context": _T.Map(_T.STRING, _T.DYN),
    "now": _T.TIMESTAMP,
}


def new_env(variables: dict[str, Any]) -> Any:
    """A CEL environment with Outrider's functions (`glob`) and these variables."""
    glob = cel.Overload(
        "glob_string_string", _T.BOOL, [_T.STRING, _T.STRING], impl=lambda value, pattern: _glob(value, pattern)
    )
    return cel.NewEnv(variables=variables, functions=[cel.FunctionDecl("glob", [glob])])


_ENV = new_env(VARIABLES)
# Where `glob(action, "<literal>")` calls are given as their answers, by index, computed in Python once per call: not
# a name a condition can use (conditions are checked in `_ENV`), only what their rewritten forms are compiled in.
ACTION_GLOBS = "action_globs__"
EVAL_ENV = new_env({**VARIABLES, ACTION_GLOBS: _T.List(_T.BOOL)})
# The environment is shared; compiling happens at load, rarely, and is kept to one thread at a time.
COMPILE_LOCK = threading.Lock()
_POSITION = re.compile(r"<input>:(\d+):(\d+): ")
_STATUS = re.compile(r"^[A-Z_]+: ")


# `glob(action, "<literal>")` never calls back into Python from CEL: cel-expr-python 0.1.3 does not free what it
# allocates for a call into a Python function (about 200 bytes a call, measured), so a hot condition would grow the
# process for ever. Such a glob depends on the call's action alone, so a condition with a few of them is compiled
# once per combination of their answers, with `true`/`false` in their place, and each call evaluates the variant its
# action selects, the globs answered in Python as `action_list` matches (`_glob`). That also spares the ~5 µs RE2
# `matches()` costs on every evaluation (cel-cpp compiles its pattern each time). Beyond MAX_SPECIALISED_GLOBS
# patterns, the answers are given to CEL as a variable (ACTION_GLOBS), at the price of an activation of the
# condition's own. Where `action` may be a comprehension's variable, the globs are evaluated as RE2 `matches()`:
# the pattern folded as action names compare and matched ignoring case (which differs from `_glob` only for
# characters whose case folding changes their length, such as ß).
MAX_SPECIALISED_GLOBS = 3  # distinct patterns: 2**3 compiled variants at most per condition
_STRING_LITERAL = re.compile(
    r'(?s)[rR]?(?:"""(?:.*?)"""' + r"|'''(?:.*?)'''" + r'|"(?:\\.|[^"\\])*"' + r"|'(?:\\.|[^'\\])*')"
)
_NOT_CODE = re.compile(_STRING_LITERAL.pattern + r"|//[^\n]*")  # string literals and comments
_ACTION_GLOB = re.compile(r"""(?<![\w.])glob\s*\(\s*action\s*,\s*("[^"\\\n]*"|'[^'\\\n]*')\s*\)""")
_ACTION = re.compile(r"(?<![\w.])action(?!\w)")


def action_globs(source: str) -> list[re.Match[str]]:
    """The `glob(action, "<literal>")` calls written as code (not inside a string literal or a comment)."""
    spans = [m.span() for m in _NOT_CODE.finditer(source)]
    return [m for m in _ACTION_GLOB.finditer(source) if not any(a <= m.start() < b for a, b in spans)]


def action_may_be_rebound(source: str, globs: list[re.Match[str]]) -> bool:
    """Whether `action` appears, outside the globs, where a macro names its variable (`list.exists(action, …)`,
    `all(k, action, …)`): a glob there reads that variable, not the call's action. Conservative: any other `action`
    followed by a comma counts (in a list literal too; such a condition is then evaluated the slower way)."""
    spans = [m.span() for m in _NOT_CODE.finditer(source)]
    code = _NOT_CODE.sub(lambda m: " " * len(m.group(0)), source)  # a comment cannot hide the comma
    for m in _ACTION.finditer(source):
        inside = any(a <= m.start() < b for a, b in spans) or any(g.start() <= m.start() < g.end() for g in globs)
        if not inside and code[m.end() :].lstrip().startswith(","):
            return True
    return False


def native_globs(source: str, globs: list[re.Match[str]]) -> str:
    def native(m: re.Match[str]) -> str:
        regex = _glob_regex(m.group(1)[1:-1])
        return 'action.matches("' + regex.replace("\\", "\\\\").replace('"', '\\"') + '")'

    return replace_spans(source, globs, native)


def _answered_globs(source: str, globs: list[re.Match[str]], answers: dict[str, bool]) -> str:
    return replace_spans(source, globs, lambda m: "true" if answers[m.group(1)[1:-1]] else "false")


def indexed_globs(source: str, globs: list[re.Match[str]], patterns: list[str]) -> str:
    """The globs as `action_globs__[i]`, i the pattern's index in `patterns` (a new pattern is appended to it)."""

    def indexed(m: re.Match[str]) -> str:
        pattern = m.group(1)[1:-1]
        if pattern not in patterns:
            patterns.append(pattern)
        return f"{ACTION_GLOBS}[{patterns.index(pattern)}]"

    return replace_spans(source, globs, indexed)


def replace_spans(source: str, matches: list[re.Match[str]], by: Callable[[re.Match[str]], str]) -> str:
    out, pos = [], 0
    for m in matches:
        out += [source[pos : m.start()], by(m)]
        pos = m.end()
    return "".join([*out, source[pos:]])


_NAME = re.compile(r"(?<!\w)(action|agent|context|now)(?!\w)")
_CONTEXT_KEY = re.compile(r"\s*\.\s*([A-Za-z_]\w*)(?!\w|\s*\()")


class Needs:
    """The variables some conditions read: a call's values are given to CEL only as far as they are read, so a
    large context costs a condition the keys it names, not the whole context converted on every call.

    Read from the text, conservatively (extra values are harmless; a missing one would not be): a variable is
    read wherever its name appears as code (outside string literals and comments), and `context` is read key by
    key only where every use of it is `context.<key>` (not a method or macro call on it, not an index, not a
    comprehension variable named `context`); any other use gives the whole context. Equal needs are one object
    (`of` interns them), so the conditions of a call that read the same variables share one activation."""

    __slots__ = ("context_keys", "names")

    def __init__(self, names: frozenset[str], context_keys: frozenset[str] | None) -> None:
        self.names = names  # of VARIABLES
        self.context_keys = context_keys  # None: the whole context

    @classmethod
    def of(cls, sources: Sequence[str]) -> Needs:
        names: set[str] = set()
        keys: set[str] | None = set()
        for source in sources:
            code = _NOT_CODE.sub(lambda m: " " * len(m.group(0)), source)
            for m in _NAME.finditer(code):
                names.add(m.group(1))
                if m.group(1) != "context" or keys is None:
                    continue
                key = _CONTEXT_KEY.match(code, m.end())
                if key is None:
                    keys = None
                else:
                    keys.add(key.group(1))
        return _interned(frozenset(names), frozenset(keys) if keys is not None else None)


@functools.lru_cache(maxsize=4096)
def _interned(names: frozenset[str], context_keys: frozenset[str] | None) -> Needs:
    return Needs(names, context_keys)


EVERYTHING = _interned(frozenset(VARIABLES), None)  # every variable, the whole context


def _glob_regex(pattern: str) -> str:
    """A shell glob (`*`, `?`, `[...]`, `[!...]`) as an anchored RE2 regex, folded as action names compare."""
    p, out, i = fold(pattern), ["(?is)^"], 0
    while i < len(p):
        c = p[i]
        close = p.find("]", i + 2) if c == "[" else -1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif close > 0:
            body = p[i + 1 : close]
            negate = body.startswith("!")
            body = (body[1:] if negate else body).replace("\\", "\\\\").replace("[", "\\[")
            out.append("[" + ("^" if negate else "") + body + "]")
            i = close
        else:
            out.append(re.escape(c))
        i += 1
    out.append("$")
    return "".join(out)


class ConditionError(Exception):
    """A condition that could not be evaluated for one call (missing key, wrong type, division by zero)."""


class Condition:
    """One compiled CEL expression. `where` names the guardrail and the option in error messages."""

    __slots__ = ("_expr", "_globs", "_variants", "group", "native", "needs", "source", "where")

    def __init__(self, source: object, where: str, field: str, *, boolean: bool = True) -> None:
        if not isinstance(source, str) or not source.strip():
            raise InvalidArgument(
                f"{where}: must be a CEL expression (a non-empty string), got {source!r}", field=field
            )
        if len(source) > MAX_LENGTH:
            raise InvalidArgument(
                f"{where}: the expression is {len(source)} characters, over the limit of {MAX_LENGTH}", field=field
            )
        self.source = source
        self.where = where
        self.needs = Needs.of((source,))
        # The running chain's conditions evaluated with this one (condition_groups.py; None: evaluated alone).
        self.group: ConditionGroup | None = None
        try:
            self._expr = _compile(source)
        except Exception as exc:  # cel-cpp raises RuntimeError with an INVALID_ARGUMENT status text
            raise InvalidArgument(f"{where}: {_compile_message(str(exc))}", field=field) from None
        kind = self._expr.return_type()
        if boolean and kind != _T.BOOL and kind != _T.DYN:
            raise InvalidArgument(
                f"{where}: line 1, column 1: the expression gives a {kind.name()}, not a bool", field=field
            )
        # Answered in Python where it is in CEL's common subset (cel_native.py), from the AST cel-cpp checked.
        self.native: Native | None = native_of(self._expr) if boolean else None
        # Checked as written (errors name its columns); evaluated without calls into Python (see _ACTION_GLOB).
        self._globs: tuple[GlobSet, ...] = ()
        self._variants: tuple[Any, ...] = ()
        globs = action_globs(source)
        if not globs:
            return
        patterns = list(dict.fromkeys(m.group(1)[1:-1] for m in globs))
        try:
            if action_may_be_rebound(source, globs):
                self._expr = _compile(native_globs(source, globs))
                return
            if len(patterns) <= MAX_SPECIALISED_GLOBS:
                # Variant i answers pattern j's glob with bit j of i.
                self._variants = tuple(
                    _compile(_answered_globs(source, globs, {p: bool(i >> j & 1) for j, p in enumerate(patterns)}))
                    for i in range(2 ** len(patterns))
                )
            else:
                patterns = []
                self._expr = _compile(indexed_globs(source, globs, patterns), EVAL_ENV)
        except Exception as exc:  # a rewrite the checked text allows always compiles; if not, say so at load
            raise InvalidArgument(f"{where}: {_compile_message(str(exc))}", field=field) from None
        self._globs = tuple(glob_set(p) for p in patterns)

    def holds(self, scope: Scope) -> bool:
        """Does it hold for the call? The same expression text (on several guardrails) is evaluated once per call."""
        known = scope.results.get(self.source)
        if known is not None:
            return known
        group = self.group
        if group is not None and group not in scope.groups:  # the first of the group this call meets answers all
            scope.groups.append(group)
            group.answer(scope)
            known = scope.results.get(self.source)
            if known is not None:
                return known
        native = self.native
        if native is not None:
            try:
                value = native_holds(native, scope.native_values(self.needs))
            except Fallback:  # not sure of this call's answer: cel-cpp gives it, or its error
                pass
            else:
                scope.results[self.source] = value
                return value
        result = self._eval(scope)
        value = result.value()
        if type(value) is not bool:  # an error (its value is the message) or another type
            if result.type() == _T.ERROR:
                raise ConditionError(_STATUS.sub("", str(value), count=1))
            raise ConditionError(f"condition gave {type(value).__name__} {value!r}, not a bool")
        scope.results[self.source] = value
        return value

    def value(self, scope: Scope) -> Any:
        result = self._eval(scope)
        if result.type() == _T.ERROR:
            raise ConditionError(_STATUS.sub("", str(result.value()), count=1))
        return result.plain_value()

    def _eval(self, scope: Scope) -> Any:
        expr = self._expr
        globs = self._globs
        try:
            if not globs:
                return expr.eval(scope.activation(self.needs))
            action = scope.action
            if not self._variants:  # many globs: their answers as a variable, in an activation of its own
                variables = scope.variables(self.needs)
                variables[ACTION_GLOBS] = [glob.matches(action) for glob in globs]
                return expr.eval(data=variables)
            selected = 0  # the variant for this action's answers to the condition's globs
            for bit, glob in enumerate(globs):
                if glob.matches(action):
                    selected |= 1 << bit
            return self._variants[selected].eval(scope.activation(self.needs))
        except Exception as exc:  # CEL reports errors as values; anything raised is still the call's error, not ours
            raise ConditionError(_STATUS.sub("", str(exc) or type(exc).__name__, count=1)) from None


def native_of(expr: Any) -> Native | None:
    """The native form of a compiled expression, None where it is outside the subset."""
    try:
        return compile_checked(expr.serialize())
    except Exception:  # NotNative, or an AST cel_ast.py does not foresee: cel-cpp evaluates it, as it always could
        return None


def _compile(source: str, env: Any = _ENV) -> Any:
    with COMPILE_LOCK:
        return env.compile(source)


def _compile_message(text: str) -> str:
    """cel-cpp's `INVALID_ARGUMENT: ERROR: <input>:1:17: Syntax error: …  | source | ....^ [INVALID_ARGUMENT]` as
    `line 1, column 17: Syntax error: …` (the caret drawing dropped: it does not survive one line of a status)."""
    text = _STATUS.sub("", text.strip(), count=1).removeprefix("ERROR: ")
    first = text.split("\n", 1)[0].strip()
    first = re.sub(r"\s*\[[A-Z_]+\]$", "", first).replace(" (in container '')", "")
    m = _POSITION.match(first)
    if m:
        return f"line {m.group(1)}, column {m.group(2)}: {first[m.end() :]}"
    return first


class Scope:
    """The variables of one call, converted to CEL once and shared by every condition the call meets.

    It keeps the call's values, not the call: the call keeps its scope (`ActionCall.scope`), and a scope that
    pointed back at it would make every call with a condition a reference cycle, left to the cyclic garbage
    collector (that cost a CheckAction more than its five conditions did)."""

    __slots__ = ("_activations", "_native", "_values", "action", "groups", "results")

    def __init__(self, call: ActionCall) -> None:
        self.action = call.action
        self._values = (
            call.action,
            call.agent_id,
            call.group,
            call.labels,
            call.capabilities,
            call.context,
            call.time,
        )
        self._activations: dict[Needs, Any] = {}  # by the Needs of the conditions that share one
        self._native: Values | None = None
        self.results: dict[str, bool] = {}  # by expression text: a condition shared by guardrails runs once
        self.groups: list[ConditionGroup] = []  # the condition groups evaluated for this call

    def variables(self, needs: Needs = EVERYTHING) -> dict[str, Any]:
        """The call's values that `needs` reads, as CEL is given them."""
        action, agent_id, group, labels, capabilities, context, time = self._values
        names = needs.names
        out: dict[str, Any] = {}
        if "action" in names:
            out["action"] = action
        if "agent" in names:
            out["agent"] = {
                "id": agent_id,
                "group": group or "",
                "labels": dict(labels),
                "capabilities": list(capabilities),
            }
        if "context" in names:
            keys = needs.context_keys
            if keys is None:
                out["context"] = context if type(context) is dict else dict(context)
            else:
                out["context"] = {k: context[k] for k in keys if k in context}
        if "now" in names:
            out["now"] = _utc(time) if time is not None else datetime.now(UTC)
        return out

    def native_values(self, needs: Needs) -> Values:
        """The values native conditions read (cel_native.Values); Fallback where one CEL would be given for `needs`
        is not one the native path reads exactly as CEL does."""
        values = self._native
        if values is None:
            action, agent_id, group, labels, capabilities, context, _ = self._values
            try:
                values = self._native = Values(action, (agent_id, group, labels, capabilities), context)
            except Exception:  # a context that is no mapping: CEL reports it
                raise Fallback from None
        return values.ready(needs)

    def activation(self, needs: Needs = EVERYTHING) -> Any:
        held = self._activations.get(needs)
        if held is None:
            try:
                held = self._activations[needs] = _ENV.Activation(self.variables(needs))
            except Exception as exc:  # a value CEL cannot hold (a non-string map key, say)
                raise ConditionError(f"the call's values cannot be given to CEL: {exc}") from None
        return held


def _utc(when: datetime) -> datetime:
    """A naive time (a database's) is UTC."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def scope_of(call: ActionCall) -> Scope:
    """The call's scope, built on first use and kept on the call."""
    held = call.scope
    if not held:
        held.append(Scope(call))
    scope: Scope = held[0]
    return scope


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


class Template:
    """A reason with `{context.amount}` placeholders: each is a CEL expression, compiled at load and rendered
    when the reason is given (a placeholder that cannot be evaluated is left as written)."""

    __slots__ = ("_parts", "text")

    def __init__(self, text: str, where: str, field: str) -> None:
        self.text = text
        self._parts: list[tuple[str, Condition | None]] = []
        pos = 0
        for m in _PLACEHOLDER.finditer(text):
            self._parts.append((text[pos : m.start()], None))
            self._parts.append(
                (m.group(0), Condition(m.group(1), f"{where} placeholder {m.group(0)}", field, boolean=False))
            )
            pos = m.end()
        self._parts.append((text[pos:], None))

    def render(self, call: ActionCall) -> str:
        out = []
        for literal, expr in self._parts:
            if expr is None:
                out.append(literal)
                continue
            try:
                out.append(_show(expr.value(scope_of(call))))
            except ConditionError:
                out.append(literal)
        return "".join(out)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return format_number(value)
    text = str(value)
    # A placeholder renders an agent's value into the reason: never a whole large context.
    return text if len(text) <= MAX_RENDERED else text[: MAX_RENDERED - 1] + "…"
