"""Conditions answered in Python: the common subset of CEL compiled into closures over the call's values, so a
condition such as `has(context.amount) && context.amount > 1000` costs no call into cel-cpp.

Nothing here parses CEL: a condition is parsed and type-checked by cel-cpp as before, and the checked AST it
serialises (a `cel.expr.CheckedExpr`, read by cel_ast.py) is what is compiled. An expression outside the subset is not
native and is evaluated by cel-cpp alone. A native one answers only when it is sure: on any doubt at run time (a
missing key, a value or type the subset does not handle, anything CEL reports as an error) it raises Fallback and the
call is evaluated by cel-cpp, which gives its own answer or error. So a native answer is always the one cel-cpp gives
(tests/unit/test_cel_native.py compares the two on generated expressions and values), and errors stay cel-cpp's, word
for word.

The subset: literals (int, double, string, bool, null; lists of them), `action`, `agent`, `context`, `a.b`, `a[k]`,
`has(a.b)`, `!`, `&&`, `||`, `?:`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `size()`, `startsWith`, `endsWith`,
`contains` and `glob(action, "<literal>")`. CEL's rules where Python's differ: a bool is not a number (`true == 1` is
false, `true < 1` an error); an int and a double compare as cel-cpp compares them (the int as a double; beyond 2**53,
where that rounds, the native path falls back); `==` across unrelated types is false; NaN is equal to nothing, itself
included (Python's `in` and `==` on lists would say otherwise); a string's size counts code points.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from server.domain.guardrails.cel_ast import Call, Const, Ident, ListOf, Node, NotNative, Select, parse_checked
from server.domain.guardrails.patterns import GlobSet

if TYPE_CHECKING:
    from server.domain.guardrails.cel_values import Values

Native = Callable[["Values"], Any]


class Fallback(Exception):
    """The native path is not sure of this call's answer: evaluate it with cel-cpp."""


def compile_checked(serialized: bytes) -> Native:
    """A closure answering the expression (cel-expr-python's `Expression.serialize()`); NotNative when it is outside
    the subset."""
    return _compile(parse_checked(serialized))


# The closures are written for speed (a condition is evaluated on every call): the common shapes (`context.key`, a
# comparison with a literal, a literal list of strings) get closures of their own, and each checks its operands'
# types itself rather than through helpers.


def _compile(node: Node) -> Native:
    if isinstance(node, Const):
        value = node.value
        return lambda v: value
    if isinstance(node, Ident):
        if node.name == "action":
            return lambda v: v.action
        if node.name == "agent":
            return lambda v: v.agent
        if node.name == "context":
            return lambda v: v.context
        raise NotNative(f"variable {node.name}")
    if isinstance(node, Select):
        return _select(node)
    if isinstance(node, ListOf):
        elements = tuple(_compile(e) for e in node.elements)
        return lambda v: [e(v) for e in elements]
    return _call(node)


def _select(node: Select) -> Native:
    field = node.field
    if node.operand == Ident("context"):  # `context.key`, `has(context.key)`: the commonest reads
        if node.test_only:
            return lambda v: field in v.context

        def context_key(v: Values) -> Any:
            try:
                return v.context[field]
            except KeyError:
                raise Fallback from None

        return context_key
    operand = _compile(node.operand)
    if node.test_only:

        def has(v: Values) -> bool:
            m = operand(v)
            if type(m) is not dict:
                raise Fallback
            return field in m

        return has

    def select(v: Values) -> Any:
        m = operand(v)
        if type(m) is dict:
            try:
                return m[field]
            except KeyError:
                pass
        raise Fallback

    return select


def _call(node: Call) -> Native:
    function, args = node.function, node.args
    if node.target is not None:
        target = _compile(node.target)
        if function == "size" and not args:
            return _size(target)
        if function in _STRING_METHODS and len(args) == 1:
            return _string_method(_STRING_METHODS[function], target, _compile(args[0]))
        raise NotNative(f"method {function}")
    if len(args) == 2 and function in _ORDERINGS:
        return _ordering(_ORDERINGS[function], args[0], args[1])
    if len(args) == 2 and function in ("_==_", "_!=_"):
        return _equality(function == "_==_", args[0], args[1])
    if len(args) == 2 and function in ("_&&_", "_||_"):
        return _logical(function == "_&&_", _compile(args[0]), _compile(args[1]))
    if len(args) == 1 and function == "!_":
        return _not(_compile(args[0]))
    if len(args) == 3 and function == "_?_:_":
        return _ternary(_compile(args[0]), _compile(args[1]), _compile(args[2]))
    if len(args) == 2 and function == "@in":
        return _in(args[0], args[1])
    if len(args) == 2 and function == "_[_]":
        return _index(_compile(args[0]), _compile(args[1]))
    if len(args) == 1 and function == "size":
        return _size(_compile(args[0]))
    if (
        function == "glob"
        and len(args) == 2
        and args[0] == Ident("action")
        and isinstance(args[1], Const)
        and type(args[1].value) is str
    ):
        # As conditions.py answers `glob(action, "<literal>")`; any other glob calls Python's `_glob` from CEL.
        return _glob(GlobSet((args[1].value,)))
    raise NotNative(f"function {function}")


# ---- CEL's semantics on Python values --------------------------------------------------------------------------------

_EXACT = 2**53  # beyond it an int does not convert to a double exactly: cel-cpp rounds it, Python compares exactly
_SCALARS = frozenset({str, int, float, bool, type(None)})
_ORDERED = frozenset({str, int, float, bool})  # strings in code point order, which is UTF-8's byte order
_ORDERINGS: dict[str, Callable[[Any, Any], bool]] = {
    "_<_": operator.lt,
    "_<=_": operator.le,
    "_>_": operator.gt,
    "_>=_": operator.ge,
}


def equal(a: Any, b: Any) -> bool:
    """CEL's `==` on plain values: heterogeneous (an int equals the same double; a bool is no number; values of
    unrelated types are unequal), NaN equal to nothing, lists and maps element by element (Python's own `==` on
    lists and `in` would call a NaN equal to itself)."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is list:
            return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
        if ta is dict:
            return len(a) == len(b) and all(k in b and equal(x, b[k]) for k, x in a.items())
        return bool(a == b)  # str, int, float (NaN unequal), bool, None
    if (ta is int and tb is float) or (ta is float and tb is int):
        if abs(a if ta is int else b) > _EXACT:
            raise Fallback
        return bool(a == b)  # exact, as the int converts exactly
    return False


def _equality(eq: bool, left: Node, right: Node) -> Native:
    if isinstance(left, Const) and not isinstance(right, Const):
        left, right = right, left  # `==` is symmetric
    a = _compile(left)
    if isinstance(right, Const):
        c = right.value
        if c is None or type(c) is bool:  # equal only to itself: a bool is no number
            return (lambda v: a(v) is c) if eq else (lambda v: a(v) is not c)
        if type(c) is str:
            if eq:
                return lambda v: type(x := a(v)) is str and x == c
            return lambda v: type(x := a(v)) is not str or x != c
        number = _number_equal(a, c)
        return number if eq else lambda v: not number(v)
    b = _compile(right)

    def same(v: Values) -> bool:
        x, y = a(v), b(v)
        t = type(x)
        if t is type(y) and t in _SCALARS:
            return bool(x == y)
        return equal(x, y)

    return same if eq else lambda v: not same(v)


def _number_equal(a: Native, c: int | float) -> Native:
    big = abs(c) > _EXACT

    def number(v: Values) -> bool:
        x = a(v)
        t = type(x)
        if t is int or t is float:
            if t is not type(c) and (abs(x) > _EXACT if t is int else big):
                raise Fallback
            return bool(x == c)
        return False  # a bool, string, null, list or map: unequal

    return number


def _ordering(op: Callable[[Any, Any], bool], left: Node, right: Node) -> Native:
    a, b = _compile(left), _compile(right)
    if isinstance(right, Const) and type(right.value) in (int, float):
        c = right.value
        big = abs(c) > _EXACT

        def than_number(v: Values) -> bool:
            x = a(v)
            t = type(x)
            if t is int or t is float:
                if t is not type(c) and (abs(x) > _EXACT if t is int else big):
                    raise Fallback
                return op(x, c)
            raise Fallback  # CEL orders no other type against a number

        return than_number

    def ordered(v: Values) -> bool:
        x, y = a(v), b(v)
        t, u = type(x), type(y)
        if t is u and t in _ORDERED:
            return op(x, y)
        if (t is int and u is float) or (t is float and u is int):
            if abs(x if t is int else y) > _EXACT:
                raise Fallback
            return op(x, y)
        raise Fallback  # an error in CEL

    return ordered


def _logical(conjunction: bool, left: Native, right: Native) -> Native:
    """`&&` and `||`, on bools only: where an operand is an error or no bool, CEL may still answer (`false && error`
    is false), but the native path leaves it to cel-cpp."""
    decisive = not conjunction  # `false && …` is false, `true || …` is true

    def logical(v: Values) -> bool:
        x = left(v)
        if x is decisive:
            return not conjunction
        if x is not conjunction:
            raise Fallback
        y = right(v)
        if y is True or y is False:
            return bool(y)
        raise Fallback

    return logical


def _not(operand: Native) -> Native:
    def negation(v: Values) -> bool:
        x = operand(v)
        if x is True or x is False:
            return not x
        raise Fallback

    return negation


def _ternary(test: Native, yes: Native, no: Native) -> Native:
    def ternary(v: Values) -> Any:
        x = test(v)
        if x is True:
            return yes(v)
        if x is False:
            return no(v)
        raise Fallback

    return ternary


def _in(item: Node, container: Node) -> Native:
    a = _compile(item)
    if isinstance(container, ListOf) and all(
        isinstance(e, Const) and type(e.value) is str for e in container.elements
    ):  # `agent.group in ["finance", "treasury"]`: a string equals only a string
        names = frozenset(e.value for e in container.elements if isinstance(e, Const))
        return lambda v: type(x := a(v)) is str and x in names
    b = _compile(container)

    def contains(v: Values) -> bool:
        x, c = a(v), b(v)
        if type(c) is list:
            return any(equal(x, e) for e in c)
        if type(c) is dict and type(x) is str:
            return x in c
        raise Fallback

    return contains


def _index(container: Native, key: Native) -> Native:
    def index(v: Values) -> Any:
        c, k = container(v), key(v)
        t = type(c)
        if t is dict:
            if type(k) is str:
                try:
                    return c[k]
                except KeyError:
                    pass
        elif t is list and type(k) is int and 0 <= k < len(c):  # Python would read c[-1] as the last element
            return c[k]
        raise Fallback

    return index


def _size(operand: Native) -> Native:
    def size(v: Values) -> int:
        x = operand(v)
        t = type(x)
        if t is str or t is list or t is dict:  # a string's size counts code points
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


def _glob(pattern: GlobSet) -> Native:
    """`glob(action, "<literal>")`, answered as conditions.py answers it (`glob_set(pattern).matches(action)`)."""

    def glob(v: Values) -> bool:
        s = v.action
        if type(s) is not str:
            raise Fallback
        return pattern.matches(s)

    return glob


def holds(native: Native, values: Values) -> bool:
    """A condition's native answer: a bool, or Fallback."""
    try:
        value = native(values)
    except RecursionError:  # values nested deeper than Python recurses: cel-cpp answers
        raise Fallback from None
    if value is True or value is False:
        return bool(value)
    raise Fallback
