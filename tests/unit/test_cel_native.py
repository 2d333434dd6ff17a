"""Native conditions (server/domain/guardrails/cel_native.py): wherever the native path answers, cel-cpp gives exactly
the same value (a differential property test over generated expressions of the subset and generated calls), and where
it is not sure it falls back, so errors stay cel-cpp's."""

from __future__ import annotations

import math
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bench.conditions import WHEN as BENCH_WHEN
from server.domain.guardrails import ActionCall, build_guardrail, gate, running_order
from server.domain.guardrails.base import GuardrailSpec
from server.domain.guardrails.cel_ast import NotNative, parse_checked
from server.domain.guardrails.cel_native import Fallback
from server.domain.guardrails.condition_groups import ConditionGroup
from server.domain.guardrails.conditions import _T, Condition, ConditionError, Needs, Scope, _compile, native_of

# Examples of the differential property: 500 take a few seconds; set OUTRIDER_CEL_NATIVE_EXAMPLES for a deeper run
# (30,000, about 5,000 of them answered natively, took 9 minutes on a busy machine and found no difference).
EXAMPLES = int(os.environ.get("OUTRIDER_CEL_NATIVE_EXAMPLES", "500"))

# ---- the differential property -----------------------------------------------------------------------------------

KEYS = ["a", "b", "n", "s", "l", "m", "é"]
PATTERNS = ["files.*", "db.?", "*", "[a-f]*.x", "[!x]*", "ß*", "FILES.READ"]
ACTIONS = ["files.read", "Files.Delete", "db.x", "shell.exec", "ß.x", "ss.x", "file\u017f.read", "a"]

strings = st.one_of(
    st.sampled_from(["", "u-1", "files.read", "é", "e\u0301", "😀", "ß", "SS", "a\nb", '"', "\\", "\x00", "1"]),
    st.text(st.characters(min_codepoint=0, max_codepoint=0x1F64F, exclude_categories=["Cs"]), max_size=5),
)
ints = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([2**53, 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63), 10**6]),
    st.integers(-(2**63), 2**63 - 1),
)
floats = st.one_of(
    st.sampled_from(
        [0.0, -0.0, 0.5, 1.0, 2.0, 3.0, 2.0**53, 2.0**53 + 2, 2.0**63, 1e300, math.inf, -math.inf, math.nan]
    ),
    st.floats(),
)
scalars = st.one_of(st.none(), st.booleans(), ints, floats, strings)
# Values CEL holds otherwise than the native path reads them, or cannot hold at all: the native path must fall back.
odd = st.sampled_from([2**63, 2**64, -(2**63) - 1, b"ab", (1, 2), "\ud800", {1: "int key"}, object()])
values = st.recursive(
    st.one_of(scalars, scalars, scalars, scalars, scalars, odd),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)),
    max_leaves=8,
)
contexts = st.fixed_dictionaries({}, optional=dict.fromkeys(KEYS, st.one_of(values, values, values, odd)))


def cel_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) > 0xFFFF:
            out.append(f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def cel_double(x: float) -> str:
    if math.isinf(x):
        return "1e400" if x > 0 else "-1e400"
    return repr(x)


literals = st.one_of(
    st.sampled_from(["true", "false", "null"]),
    ints.map(str),
    floats.filter(lambda x: not math.isnan(x)).map(cel_double),
    strings.map(cel_string),
)
key = st.sampled_from(KEYS)
paths = st.one_of(
    st.just("action"),
    st.sampled_from(["agent.id", "agent.group", "agent.labels", "agent.capabilities", "agent.labels.team"]),
    key.map(lambda k: f"context.{k}" if k.isascii() else f'context["{k}"]'),
    st.tuples(key, key).map(lambda kk: f'context["{kk[0]}"]["{kk[1]}"]'),
    st.tuples(key, key).map(lambda kk: f"context.{kk[0]}.{kk[1]}" if (kk[0] + kk[1]).isascii() else "context.a.b"),
    st.tuples(key, st.integers(-1, 2)).map(lambda ki: f'context["{ki[0]}"][{ki[1]}]'),
)
KINDS = ("bool", "num", "str", "list", "any")
ATOMS: dict[str, st.SearchStrategy[str]] = {
    "bool": st.one_of(
        st.sampled_from(["true", "false"]),
        paths,
        key.map(lambda k: f"has(context.{k})" if k.isascii() else "has(context.a)"),
        st.tuples(key, key).map(lambda kk: f"has(context.{kk[0]}.{kk[1]})" if (kk[0] + kk[1]).isascii() else "true"),
        st.sampled_from(PATTERNS).map(lambda p: f'glob(action, "{p}")'),
    ),
    "num": st.one_of(ints.map(str), floats.filter(lambda x: not math.isnan(x)).map(cel_double), paths),
    "str": st.one_of(strings.map(cel_string), st.sampled_from(["action", "agent.id", "agent.group"]), paths),
    "list": st.one_of(
        st.just("agent.capabilities"), paths, st.lists(literals, max_size=3).map(lambda xs: f"[{', '.join(xs)}]")
    ),
    "any": st.one_of(literals, paths, paths),
}


@st.composite
def expressions(draw: st.DrawFn, kind: str = "bool", depth: int = 3) -> str:
    """An expression of the native subset giving `kind` (where cel-cpp's checker can know it), nested `depth` deep."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(ATOMS[kind])

    def sub(k: str) -> str:
        return "(" + draw(expressions(k, depth - 1)) + ")"

    rule = draw(st.integers(0, 9))
    if kind == "bool":
        if rule == 0:
            return f"!{sub('bool')}"
        if rule in (1, 2):
            return f"{sub('bool')} {draw(st.sampled_from(['&&', '||']))} {sub('bool')}"
        if rule == 3:
            return f"{sub('bool')} ? {sub('bool')} : {sub('bool')}"
        if rule in (4, 5):
            operands = draw(st.sampled_from(["num", "num", "str", "any"]))
            op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
            return f"{sub(operands)} {op} {sub(operands)}"
        if rule == 6:
            return f"{sub('any')} in {sub('list')}"
        if rule == 7:
            return f"{sub('str')} in {sub('any')}"
        if rule == 8:
            return f"{sub('str')}.{draw(st.sampled_from(['startsWith', 'endsWith', 'contains']))}({sub('str')})"
        return f"{sub('any')} {draw(st.sampled_from(['==', '!=']))} {sub('any')}"
    if kind == "num":
        if rule < 3:
            return f"size({sub(draw(st.sampled_from(['str', 'list', 'any'])))})"
        if rule < 5:
            return f"{sub(draw(st.sampled_from(['str', 'list'])))}.size()"
        if rule < 7:
            return f"{sub('bool')} ? {sub('num')} : {sub('num')}"
        return f"{sub('any')}[{sub('num')}]"
    if kind == "str":
        if rule < 5:
            return f"{sub('bool')} ? {sub('str')} : {sub('str')}"
        return f"{sub('any')}[{sub('str')}]"
    if kind == "list":
        return "[" + ", ".join(sub("any") for _ in range(draw(st.integers(0, 3)))) + "]"
    return sub(draw(st.sampled_from(KINDS[:-1])))


def same(native: Any, cel: Any) -> bool:
    """Equal in type and value (NaN equal to NaN, -0.0 distinct from 0.0), element by element."""
    if type(native) is not type(cel):
        return False
    if type(native) is float:
        return (math.isnan(native) and math.isnan(cel)) or (
            native == cel and math.copysign(1, native) == math.copysign(1, cel)
        )
    if type(native) is list:
        return len(native) == len(cel) and all(same(x, y) for x, y in zip(native, cel, strict=True))
    if type(native) is dict:
        return native.keys() == cel.keys() and all(same(native[k], cel[k]) for k in native)
    return bool(native == cel)


CEL_TYPES = {bool: _T.BOOL, int: _T.INT, float: _T.DOUBLE, str: _T.STRING, type(None): _T.NULL}


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(
    source=expressions(),
    action=st.sampled_from(ACTIONS),
    context=contexts,
    group=st.sampled_from([None, "analysts", "ü"]),
    labels=st.sampled_from([{}, {"team": "payments"}, {"team": "é"}]),
    capabilities=st.sampled_from([(), ("files.write",), ("a", "b")]),
)
def test_wherever_the_native_path_answers_cel_cpp_gives_the_same_value(
    source: str,
    action: str,
    context: dict[str, Any],
    group: str | None,
    labels: dict[str, str],
    capabilities: tuple[str, ...],
) -> None:
    try:
        expr = _compile(source)
    except Exception:  # a type error the checker finds (`1 < "a"`): not a condition
        event("refused by the checker")
        return
    native = native_of(expr)
    if native is None:
        event("not native")
        return
    call = ActionCall("agent-1", action, context, group=group, labels=labels, capabilities=capabilities)
    scope = Scope(call)
    needs = Needs.of((source,))
    try:
        answer = native(scope.native_values(needs))
    except Fallback:
        event("fell back")
        return
    event("answered natively")
    try:
        result = expr.eval(scope.activation(needs))
    except (ConditionError, Exception) as exc:
        raise AssertionError(f"native answered {answer!r}; cel-cpp raised {exc}") from None
    assert result.type() != _T.ERROR, f"native answered {answer!r}; cel-cpp: {result.value()}"
    assert same(answer, result.plain_value()), f"native {answer!r}, cel-cpp {result.plain_value()!r}"
    if type(answer) in CEL_TYPES:
        assert result.type() == CEL_TYPES[type(answer)]


def _no_plugins(path: str) -> Any:
    raise AssertionError("no plugin here")


# ---- tricky cases, one by one --------------------------------------------------------------------------------------


def answers(source: str, context: dict[str, Any] | None = None, action: str = "files.read", **kw: Any) -> Any:
    """The native answer, or Fallback (the class) when the native path is not sure."""
    native = native_of(_compile(source))
    assert native is not None, f"{source} is not native"
    scope = Scope(ActionCall("agent-1", action, context or {}, **kw))
    try:
        return native(scope.native_values(Needs.of((source,))))
    except Fallback:
        return Fallback


def cel(source: str, context: dict[str, Any] | None = None, action: str = "files.read", **kw: Any) -> Any:
    result = _compile(source).eval(Scope(ActionCall("agent-1", action, context or {}, **kw)).activation())
    return ("error", result.value()) if result.type() == _T.ERROR else result.plain_value()


@pytest.mark.parametrize(
    ("source", "context", "expected"),
    [
        # A bool is no number in CEL: unequal to 1, unordered against it (an error, so the native path falls back).
        ("context.a == 1", {"a": True}, False),
        ("context.a != 1.0", {"a": True}, True),
        ("context.a in [1, 2]", {"a": True}, False),
        ("context.a < 2", {"a": True}, Fallback),
        ("context.a < context.b", {"a": False, "b": True}, True),
        # Ints and doubles compare as numbers; beyond 2**53, where cel-cpp rounds the int, the native path falls back.
        ("context.a == 1", {"a": 1.0}, True),
        ("context.a < 2.5", {"a": 2}, True),
        ("context.a > 1000", {"a": 5000.0}, True),
        ("context.a == context.b", {"a": 2**53 + 1, "b": 2.0**53}, Fallback),
        ("context.a == context.b", {"a": 2**53 + 1, "b": 2**53}, False),
        # NaN equals nothing, not even itself in a list (Python's `in` and list `==` would say it does).
        ("context.a == context.a", {"a": math.nan}, False),
        ("context.a in context.l", {"a": math.nan, "l": [math.nan]}, False),
        ("context.l == context.l", {"l": [math.nan]}, False),
        ("context.a != context.a", {"a": math.nan}, True),
        # Unrelated types are unequal; ordering them is an error.
        ('context.a == "1"', {"a": 1}, False),
        ("context.a == null", {"a": 0}, False),
        ("context.a == context.b", {"a": [], "b": {}}, False),
        ('context.a < "b"', {"a": 1}, Fallback),
        # Missing keys, wrong types: CEL reports an error; the native path leaves it to cel-cpp.
        ("context.missing > 1", {}, Fallback),
        ("context.a.b == 1", {"a": "text"}, Fallback),
        ("has(context.a.b)", {"a": None}, Fallback),
        ("context.l[1] == 1", {"l": [1]}, Fallback),
        ("context.l[-1] == 1", {"l": [1, 2]}, Fallback),  # Python would read the last element
        ("context.m[1] == 1", {"m": {"1": 1}}, Fallback),
        ("!context.a", {"a": 1}, Fallback),
        ("context.a && true", {"a": 1}, Fallback),
        ("size(context.a) == 1", {"a": 1}, Fallback),
        ('context.a.startsWith("x")', {"a": 1}, Fallback),
        # Errors CEL forgives (`false && error`): answered where the left side decides.
        ("has(context.a) && context.a > 1", {}, False),
        ("!has(context.a) || context.a > 1", {}, True),
        # Values CEL holds otherwise (uint, bytes) or not at all (a tuple, a lone surrogate, an int key).
        ("context.a > 1", {"a": 2**63}, Fallback),
        ('context.a == "x"', {"a": b"x"}, Fallback),
        ("context.a == 1", {"a": (1,)}, Fallback),
        ('context.a == "x"', {"a": "\ud800"}, Fallback),
        ("has(context.a)", {"a": {1: 2}}, Fallback),
        # Strings: sizes in code points, order in code points (UTF-8's byte order).
        ("size(context.s) == 2", {"s": "é😀"}, True),
        ('context.s < "z"', {"s": "é"}, False),
        ('"\\uffff" < context.s', {"s": "😀"}, True),
        ('"a" in context.m', {"m": {"a": None}}, True),
    ],
)
def test_tricky_cases_answer_as_cel_cpp_or_fall_back(source: str, context: dict[str, Any], expected: Any) -> None:
    got = answers(source, context)
    if expected is Fallback:
        assert got is Fallback
    else:
        assert type(got) is type(expected) and got == expected
        assert cel(source, context) == expected  # and it is cel-cpp's answer


CEL_ERRORS: list[tuple[str, dict[str, Any], str]] = [
    ("context.amount > 1000", {}, 'Key not found in map : "amount"'),
    ('context.amount > 1000 || "" == "x"', {"amount": "5000"}, "No matching overloads found : _>_(string, int64)"),
    (
        "context.user.id.startsWith('u-')",
        {"user": {"id": 7.0}},
        "No matching overloads found : (double).startsWith(string)",
    ),
]


@pytest.mark.parametrize(("source", "context", "message"), CEL_ERRORS)
def test_a_native_condition_that_falls_back_gives_cel_cpps_error_word_for_word(
    source: str, context: dict[str, Any], message: str
) -> None:
    cond, cel_only = Condition(source, "g", "when"), Condition(source, "g", "when")
    assert cond.native is not None
    cel_only.native = None
    errors = []
    for c in (cond, cel_only):
        with pytest.raises(ConditionError) as raised:
            c.holds(Scope(ActionCall("agent-1", "a", context)))
        errors.append(str(raised.value))
    assert errors[0] == errors[1]
    assert message in errors[0]


LOOK_ALIKES = [
    "files.read ",
    "files/read",
    "\ua731hell.exec",  # a small capital s
    "\u0455\u04bb\u0435\u04cf\u04cf.exec",  # all Cyrillic
    "FILES.READ",
    "\ufb01les.read",  # the fi ligature (NFKC: fi)
    "\uff46\uff49\uff4c\uff45\uff53.read",  # full width
]


@pytest.mark.parametrize("pattern", [*PATTERNS, "shell.exec", "files.read"])
@pytest.mark.parametrize("action", [*ACTIONS, *LOOK_ALIKES])
def test_glob_answers_as_an_action_list_with_the_same_pattern_matches(pattern: str, action: str) -> None:
    """`glob(action, p)` holds exactly for the actions `action_list` with `deny: [p]` blocks (NFKC, ignoring case):
    natively, and as cel-cpp answered it before (the glob's answers given to CEL)."""
    deny = build_guardrail(GuardrailSpec("d", "action_list", {"deny": [pattern]}), _no_plugins)
    blocked = not deny.check(ActionCall("agent-1", action, {}), 0).allowed
    source = f'glob(action, "{pattern}")'
    assert answers(source, action=action) is blocked
    cel_only = Condition(source, "g", "when")
    cel_only.native = None
    assert Condition(source, "g", "when").holds(Scope(ActionCall("a", action, {}))) is blocked
    assert cel_only.holds(Scope(ActionCall("a", action, {}))) is blocked


@pytest.mark.parametrize(
    "source",
    [
        "context.a + 1 > 2",  # arithmetic
        "[1, 2].exists(x, x == 1)",  # a macro
        'context.s.matches("^a")',  # RE2
        "now > timestamp('2026-01-01T00:00:00Z')",  # time
        'glob(context.s, "a*")',  # a glob on another string: Python's `_glob`, called from CEL
        "int(context.a) == 1",
        "1u == 1u",
        "b'x' == b'x'",
        '{"a": 1}.a == 1',
    ],
)
def test_what_is_outside_the_subset_is_not_native(source: str) -> None:
    assert native_of(_compile(source)) is None


def test_the_bench_conditions_are_all_native() -> None:
    """bench/conditions.py's five conditions (docs/benchmarks.md, "Conditions"): a chain of them calls no cel-cpp."""
    assert len(BENCH_WHEN) == 5
    for source in BENCH_WHEN:
        assert Condition(source, "g", "when").native is not None, source


def test_a_chain_of_native_conditions_never_evaluates_cel(monkeypatch: pytest.MonkeyPatch) -> None:
    chain = running_order(
        [
            build_guardrail(GuardrailSpec(f"g{i}", "rule", {"effect": "warn", "when": w}), _no_plugins)
            for i, w in enumerate(BENCH_WHEN)
        ]
    )

    def no_cel(self: Scope, *args: object) -> object:
        raise AssertionError("a native condition reached cel-cpp")

    monkeypatch.setattr(Scope, "activation", no_cel)
    call = ActionCall(
        "agent-1",
        "files.read",
        {"cost": 1.0, "tags": ["a"], "user": {"id": "u-1"}, "limits": {"rows": 10.0}},
        group="support",
    )
    for g in chain:
        assert g.condition is not None and g.condition.holds(Scope(call)) is True


# ---- a whole chain: native answers and cel-cpp's, errors included ----------------------------------------------------

CHAIN_WHEN = [
    *BENCH_WHEN,
    "context.cost > 10",  # a missing key: cel-cpp's error
    "context.n / context.d > 1",  # not native: in the group's CEL list
    "context.flag",  # a bool, or not
    '"finance" in agent.capabilities || context.n in [1, 2.0, "x"]',
    'has(context.user.id) ? context.user.id.endsWith("1") : !has(context.n)',
]
chain_contexts = st.fixed_dictionaries(
    {},
    optional={
        "dry_run": st.one_of(st.booleans(), st.just(0)),
        "cost": st.one_of(st.integers(-5, 100), st.floats(0, 100), st.just("12"), st.just(2**63)),
        "tags": st.lists(st.sampled_from(["a", "b"]), max_size=12),
        "user": st.fixed_dictionaries({"id": st.sampled_from(["u-1", "x-2", "\ud800", 7.0])}),
        "limits": st.fixed_dictionaries({"rows": st.one_of(st.integers(0, 200000), st.just(float("nan")))}),
        "n": st.one_of(st.integers(0, 4), st.floats(0, 3), st.booleans()),
        "d": st.integers(0, 2),
        "flag": st.one_of(st.booleans(), st.integers(0, 2), st.just(b"yes")),
    },
)


def rules(native: bool) -> list[Any]:
    chain = running_order(
        [
            build_guardrail(GuardrailSpec(f"g{i}", "rule", {"effect": "warn", "when": w}), _no_plugins)
            for i, w in enumerate(CHAIN_WHEN)
        ]
    )
    if not native:
        groups: dict[int, ConditionGroup] = {}
        for g in chain:
            condition = g.condition
            assert condition is not None
            condition.native = None
            held = condition.group
            if held is not None:  # the same sources, all of them in the group's CEL list
                condition.group = groups.setdefault(id(held), ConditionGroup(held.sources))
    return list(chain)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    action=st.sampled_from(ACTIONS),
    group=st.sampled_from(["analysts", "support", None]),
    capabilities=st.sampled_from([(), ("finance",)]),
    context=chain_contexts,
)
def test_a_chain_answers_every_guardrail_as_it_does_on_cel_cpp_alone(
    action: str, group: str | None, capabilities: tuple[str, ...], context: dict[str, Any]
) -> None:
    native, cel_only = rules(native=True), rules(native=False)
    call = ActionCall("agent-1", action, context, group=group, capabilities=capabilities)
    cel_call = ActionCall("agent-1", action, context, group=group, capabilities=capabilities)
    for g, c in zip(native, cel_only, strict=True):
        assert gate(g, call) == gate(c, cel_call), g.name


def test_only_a_checked_cel_expression_is_read() -> None:
    serialized = _compile("context.a == 1").serialize()
    assert parse_checked(serialized) is not None
    other = serialized.replace(b"cel.expr.CheckedExpr", b"cel.expr.ParsedExpr")  # same length: a valid Any
    with pytest.raises(NotNative):
        parse_checked(other)
    with pytest.raises(NotNative):
        parse_checked(b"")
