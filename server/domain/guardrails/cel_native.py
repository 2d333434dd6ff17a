"""Conditions answered in Python: the common subset of CEL compiled into closures over the call's values, so a
condition such as `has(context.amount) && context.amount > 1000` costs no call into cel-cpp.

Nothing here parses CEL: a condition is parsed and type-checked by cel-cpp as before, and the checked AST it serialises
(a `cel.expr.CheckedExpr`) is what is compiled. An expression outside the subset is not native and is evaluated by
cel-cpp alone. A native one answers only when it is sure: on any doubt at run time (a missing key, a value or type the
subset does not handle, anything CEL reports as an error) it raises Fallback and the call is evaluated by cel-cpp,
which gives its own answer or error. So a native answer is always the one cel-cpp gives (tests/unit/test_cel_native.py
compares the two on generated expressions and values), and errors stay cel-cpp's, word for word.

The subset: literals (int, double, string, bool, null; lists of them), `action`, `agent`, `context`, `a.b`, `a[k]`,
`has(a.b)`, `!`, `&&`, `||`, `?:`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `size()`, `startsWith`, `endsWith`,
`contains` and `glob(x, "<literal>")`. CEL's rules where Python's differ: a bool is not a number (`true == 1` is
false, `true < 1` an error); an int and a double compare as cel-cpp compares them (the int as a double; beyond 2**53,
where that rounds, the native path falls back); `==` across unrelated types is false; NaN is equal to nothing, itself
included (Python's `in` and `==` on lists would say otherwise); a string's size counts code points.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from typing import Any

from server.domain.guardrails.patterns import GlobSet

Native = Callable[["Values"], Any]


class Fallback(Exception):
    """The native path is not sure of this call's answer: evaluate it with cel-cpp."""


class NotNative(Exception):
    """The expression is outside the native subset (at compile time)."""


# ---- the checked AST, read from its protobuf encoding ----------------------------------------------------------------
# cel.expr (cel-spec's syntax.proto and checked.proto): the field numbers this module reads.
_ANY_VALUE = 2
_CHECKED_EXPR = 4
_EXPR = {3: "const", 4: "ident", 5: "select", 6: "call", 7: "list"}  # 8 struct, 9 comprehension: not native
_MAX_DEPTH = 200  # the encoding's nesting; cel-cpp's parser refuses much less


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _fields(buf: bytes) -> dict[int, list[Any]]:
    """One protobuf message: its fields by number, each a list of varints (int), fixed64 and length-delimited
    (bytes) values."""
    out: dict[int, list[Any]] = {}
    i, end = 0, len(buf)
    while i < end:
        key, i = _varint(buf, i)
        wire = key & 7
        value: int | bytes
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire == 2:
            size, i = _varint(buf, i)
            value, i = buf[i : i + size], i + size
        elif wire == 5:
            value, i = buf[i : i + 4], i + 4
        else:
            raise NotNative(f"wire type {wire}")
        out.setdefault(key >> 3, []).append(value)
    return out


def _one(fields: dict[int, list[Any]], number: int, default: Any = None) -> Any:
    values = fields.get(number)
    return values[-1] if values else default


def _int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def compile_checked(serialized: bytes) -> Native:
    """A closure answering the expression (cel-expr-python's `Expression.serialize()`, an Any holding a CheckedExpr);
    NotNative when it is outside the subset."""
    checked = _fields(_one(_fields(serialized), _ANY_VALUE, b""))
    expr = _one(checked, _CHECKED_EXPR)
    if expr is None:
        raise NotNative("no expression")
    return _compile(expr, 0)


def _compile(buf: bytes, depth: int) -> Native:
    if depth > _MAX_DEPTH:
        raise NotNative("too deep")
    fields = _fields(buf)
    kinds = [kind for number, kind in _EXPR.items() if number in fields]
    if len(kinds) != 1 or any(n in fields for n in (8, 9)):
        raise NotNative("not in the subset")
    body = _fields(fields[{v: k for k, v in _EXPR.items()}[kinds[0]]][-1])
    if kinds[0] == "const":
        value = _constant(body)
        return lambda v: value
    if kinds[0] == "ident":
        return _ident(_one(body, 1, b"").decode())
    if kinds[0] == "select":
        operand = _compile(_one(body, 1, b""), depth + 1)
        return _select(operand, _one(body, 2, b"").decode(), bool(_one(body, 3, 0)))
    if kinds[0] == "list":
        if 2 in body:  # optional elements (`[?x]`)
            raise NotNative("optional list elements")
        elements = tuple(_compile(e, depth + 1) for e in body.get(1, []))
        return lambda v: [e(v) for e in elements]
    target_buf = _one(body, 1)
    target = _compile(target_buf, depth + 1) if target_buf is not None else None
    args = [_compile(a, depth + 1) for a in body.get(3, [])]
    return _call(_one(body, 2, b"").decode(), target, args, [_literal(a) for a in body.get(3, [])])


def _literal(buf: bytes) -> Any:
    """What `glob` needs to know of an argument: `action` (the identifier), a string literal's value, else None."""
    fields = _fields(buf)
    if 4 in fields and _one(_fields(fields[4][-1]), 1) == b"action":
        return ACTION
    if 3 not in fields:
        return None
    c = _fields(fields[3][-1])
    return c[6][-1].decode() if 6 in c else None


ACTION = object()


def _constant(c: dict[int, list[Any]]) -> Any:
    if 1 in c:
        return None
    if 2 in c:
        return bool(c[2][-1])
    if 3 in c:
        return _int64(c[3][-1])
    if 5 in c:
        return struct.unpack("<d", c[5][-1])[0]
    if 6 in c:
        return c[6][-1].decode()
    raise NotNative("uint, bytes, duration or timestamp literal")


def _ident(name: str) -> Native:
    if name == "action":
        return lambda v: v.action
    if name == "agent":
        return lambda v: v.agent
    if name == "context":
        return lambda v: v.context
    raise NotNative(f"variable {name}")


def _select(operand: Native, field: str, test_only: bool) -> Native:
    if test_only:  # has(a.b)

        def has(v: Values) -> bool:
            m = operand(v)
            if type(m) is not dict:
                raise Fallback
            return field in m

        return has

    def select(v: Values) -> Any:
        m = operand(v)
        if type(m) is not dict or field not in m:
            raise Fallback
        return m[field]

    return select


def _call(function: str, target: Native | None, args: list[Native], literals: list[Any]) -> Native:
    if target is not None:
        if function == "size" and not args:
            return _size(target)
        if function in _STRING_METHODS and len(args) == 1:
            return _string_method(_STRING_METHODS[function], target, args[0])
        raise NotNative(f"method {function}")
    if function in _COMPARISONS and len(args) == 2:
        return _comparison(_COMPARISONS[function], args[0], args[1])
    if function == "_&&_" and len(args) == 2:
        return _and(args[0], args[1])
    if function == "_||_" and len(args) == 2:
        return _or(args[0], args[1])
    if function == "!_" and len(args) == 1:
        return _not(args[0])
    if function == "_?_:_" and len(args) == 3:
        return _ternary(args[0], args[1], args[2])
    if function == "@in" and len(args) == 2:
        return _in(args[0], args[1])
    if function == "_[_]" and len(args) == 2:
        return _index(args[0], args[1])
    if function == "size" and len(args) == 1:
        return _size(args[0])
    if function == "glob" and len(args) == 2 and literals[0] is ACTION and isinstance(literals[1], str):
        # As conditions.py answers `glob(action, "<literal>")`; another glob calls Python's `_glob` from CEL.
        return _glob(args[0], GlobSet((literals[1],)))
    raise NotNative(f"function {function}")


# ---- CEL's semantics on Python values --------------------------------------------------------------------------------

_EXACT = 2**53  # beyond it an int does not convert to a double exactly: cel-cpp rounds, Python does not


def _mixed(a: Any, b: Any) -> tuple[float, float]:
    """An int and a double as cel-cpp compares them (the int as a double), where that is exact."""
    if abs(a if type(a) is int else b) > _EXACT:
        raise Fallback
    return float(a), float(b)


def equal(a: Any, b: Any) -> bool:
    """CEL's `==` on plain values: heterogeneous (an int equals the same double; a bool is no number; values of
    unrelated types are unequal), NaN equal to nothing, lists and maps element by element."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is list:
            return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
        if ta is dict:
            return len(a) == len(b) and all(k in b and equal(x, b[k]) for k, x in a.items())
        return bool(a == b)  # str, int, float (NaN unequal), bool, None
    if (ta is int and tb is float) or (ta is float and tb is int):
        x, y = _mixed(a, b)
        return x == y
    return False


def _ordered(a: Any, b: Any) -> tuple[Any, Any]:
    """The operands of `<`, `<=`, `>`, `>=` where CEL orders them: two ints, two doubles, an int and a double, two
    strings (code point order is UTF-8's byte order), two bools; anything else is an error in CEL."""
    ta, tb = type(a), type(b)
    if ta is tb and ta in (int, float, str, bool):
        return a, b
    if (ta is int and tb is float) or (ta is float and tb is int):
        return _mixed(a, b)
    raise Fallback


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "_==_": equal,
    "_!=_": lambda a, b: not equal(a, b),
    "_<_": lambda a, b: _lt(*_ordered(a, b)),
    "_<=_": lambda a, b: _le(*_ordered(a, b)),
    "_>_": lambda a, b: _lt(*_ordered(b, a)),
    "_>=_": lambda a, b: _le(*_ordered(b, a)),
}


def _lt(a: Any, b: Any) -> bool:
    return bool(a < b)


def _le(a: Any, b: Any) -> bool:
    return bool(a <= b)


def _comparison(op: Callable[[Any, Any], bool], left: Native, right: Native) -> Native:
    return lambda v: op(left(v), right(v))


def _bool(value: Any) -> bool:
    if type(value) is not bool:  # an error or another type: CEL's answer may still be a bool, but not surely
        raise Fallback
    return value


def _and(left: Native, right: Native) -> Native:
    return lambda v: _bool(left(v)) and _bool(right(v))


def _or(left: Native, right: Native) -> Native:
    return lambda v: _bool(left(v)) or _bool(right(v))


def _not(operand: Native) -> Native:
    return lambda v: not _bool(operand(v))


def _ternary(test: Native, yes: Native, no: Native) -> Native:
    return lambda v: yes(v) if _bool(test(v)) else no(v)


def _in(item: Native, container: Native) -> Native:
    def contains(v: Values) -> bool:
        x, c = item(v), container(v)
        if type(c) is list:
            return any(equal(x, e) for e in c)
        if type(c) is dict and type(x) is str:
            return x in c
        raise Fallback

    return contains


def _index(container: Native, key: Native) -> Native:
    def index(v: Values) -> Any:
        c, k = container(v), key(v)
        if type(c) is dict and type(k) is str and k in c:
            return c[k]
        if type(c) is list and type(k) is int and 0 <= k < len(c):
            return c[k]
        raise Fallback

    return index


def _size(operand: Native) -> Native:
    def size(v: Values) -> int:
        x = operand(v)
        if type(x) in (str, list, dict):  # a string's code points
            return len(x)
        raise Fallback

    return size


_STRING_METHODS: dict[str, Callable[[str, str], bool]] = {
    "startsWith": str.startswith,
    "endsWith": str.endswith,
    "contains": str.__contains__,
}


def _string_method(method: Callable[[str, str], bool], target: Native, arg: Native) -> Native:
    def call(v: Values) -> bool:
        s, p = target(v), arg(v)
        if type(s) is not str or type(p) is not str:
            raise Fallback
        return method(s, p)

    return call


def _glob(value: Native, pattern: GlobSet) -> Native:
    """`glob(x, "<literal>")`, answered as conditions.py answers it (`glob_set(pattern).matches`)."""

    def glob(v: Values) -> bool:
        s = value(v)
        if type(s) is not str:
            raise Fallback
        return pattern.matches(s)

    return glob


# ---- the call's values -----------------------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")  # not UTF-8: cel-expr-python cannot take such a string
_INT64 = (-(2**63), 2**63 - 1)


def plain(value: Any) -> bool:
    """Is it a value the native path reads exactly as cel-expr-python converts it? None, bool, str, an int64, float,
    and lists and string-keyed dicts of them. Anything else (bytes, a tuple, an int beyond int64, which
    cel-expr-python makes a uint or refuses, a non-string key) is left to cel-cpp."""
    t = type(value)
    if t is str:
        return bool(value.isascii()) or _SURROGATE.search(value) is None
    if t is bool or t is float or value is None:
        return True
    if t is int:
        return bool(_INT64[0] <= value <= _INT64[1])
    try:
        if t is list:
            return all(plain(x) for x in value)
        if t is dict:
            return all(type(k) is str and plain(k) and plain(x) for k, x in value.items())
    except RecursionError:
        return False
    return False


class Values:
    """A call's values as native conditions read them (the ones CEL is given, conditions.Scope.variables), each part
    checked `plain` once per call, when a condition first reads it."""

    __slots__ = ("_agent", "_checked", "_fields", "_plain_keys", "action", "context")

    def __init__(
        self,
        action: str,
        agent_fields: tuple[str, str | None, Any, Any],
        context: Any,
    ) -> None:
        self.action = action
        self._fields = agent_fields
        self._agent: dict[str, Any] | None = None
        self.context = context if type(context) is dict else dict(context)
        self._plain_keys: dict[str, bool] = {}
        self._checked: dict[Any, bool] = {}  # by the Needs of a condition: may it be answered natively?

    @property
    def agent(self) -> dict[str, Any]:
        if self._agent is None:
            agent_id, group, labels, capabilities = self._fields
            self._agent = {
                "id": agent_id,
                "group": group or "",
                "labels": dict(labels),
                "capabilities": list(capabilities),
            }
        return self._agent

    def ready(self, needs: Any) -> Values:
        """These values, if every one that CEL would be given for `needs` (conditions.Needs) is plain; else
        Fallback (CEL may refuse it, or read it otherwise)."""
        ok = self._checked.get(needs)
        if ok is None:
            ok = self._checked[needs] = self._check(needs.names, needs.context_keys)
        if not ok:
            raise Fallback
        return self

    def _check(self, names: frozenset[str], context_keys: frozenset[str] | None) -> bool:
        if "action" in names and not plain(self.action):
            return False
        if "agent" in names and not plain(self.agent):
            return False
        if "context" in names:
            keys = self.context.keys() if context_keys is None else context_keys
            for key in keys:
                if key in self.context and not self._plain_key(key):
                    return False
        return True

    def _plain_key(self, key: Any) -> bool:
        ok = self._plain_keys.get(key)
        if ok is None:
            ok = self._plain_keys[key] = type(key) is str and plain(key) and plain(self.context[key])
        return ok


def holds(native: Native, values: Values) -> bool:
    """A condition's native answer: a bool, or Fallback."""
    value = native(values)
    if value is True or value is False:
        return bool(value)
    raise Fallback
