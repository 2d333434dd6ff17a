"""`glob(action, "...")` in a condition: answered in Python once per call and pattern, the condition compiled once per
combination of its globs' answers; never a call from CEL into Python, never a regex compiled per evaluation, and
always the answer the plain `glob()` function (action_list's matching) gives."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from server.domain.guardrails import ActionCall, conditions
from server.domain.guardrails.conditions import MAX_SPECIALISED_GLOBS, Condition, ConditionError, Scope
from server.domain.guardrails.patterns import GlobSet


def scope(action: str, **context: object) -> Scope:
    return Scope(ActionCall("agent-1", action, context))


def reference(source: str, s: Scope) -> bool | str:
    """The expression as written, every glob a call into the Python `glob()` function: the meaning to keep."""
    result = conditions._compile(source).eval(s.activation())
    value = result.value()
    return value if type(value) is bool else "error"


def answer(cond: Condition, s: Scope) -> bool | str:
    try:
        return cond.holds(s)
    except ConditionError:
        return "error"


@pytest.fixture
def no_python_globs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Calls from CEL into the Python `glob()` function (each leaks in cel-expr-python 0.1.3)."""
    calls: list[tuple[str, str]] = []
    original = conditions._glob

    def spy(value: str, pattern: str) -> bool:
        calls.append((value, pattern))
        return original(value, pattern)

    monkeypatch.setattr(conditions, "_glob", spy)
    return calls


EXPRESSIONS = [
    'glob(action, "files.*")',
    '!glob(action, "files.*")',
    'glob(action, "files.*") && !glob(action, "files.read*")',
    'glob(action, "files.*") || glob(action, "shell.?x*") || size(context.tags) > 2',
    "glob(action, 'db.[!a-c]?*') == (context.n > 1)",
    'glob( action , "files.*" ) && glob(action,"files.*") && context.n < 10',  # one pattern twice
    'context.n > 1 ? glob(action, "a[bc]d.*") : glob(action, "ünïcode.*")',
    'glob(action, "*") && glob(action, "files.*") && glob(action, "shell.*")',  # 3 patterns: 8 variants
    'glob(action, "a*") || glob(action, "b*") || glob(action, "c*") || glob(action, "files.*")',  # 4: a variable
    'glob(action, "?") || glob(action, "??") || glob(action, "x*") || glob(action, "y*")',  # "ß" folds to "ss"
    'context.missing > 1 || glob(action, "files.*")',  # an error absorbed by a true glob, as CEL's `||` does
    'glob(action, "files.*") && context.missing > 1',
]
ACTIONS = ["files.read", "Files.Delete", "db.drop_all", "db.a", "shell.exec", "acd.x", "ÜNÏCODE.x", "b.q", "q", "ß"]


@pytest.mark.parametrize("source", EXPRESSIONS)
def test_every_glob_on_the_action_answers_as_the_python_glob_function_would(
    source: str, no_python_globs: list[tuple[str, str]]
) -> None:
    cond = Condition(source, "g", "when")
    for action, n in itertools.product(ACTIONS, (0, 5)):
        no_python_globs.clear()
        got = answer(cond, scope(action, n=n, tags=["a", "b", "c"]))
        assert no_python_globs == [], "the condition called into Python from CEL"
        assert got == reference(source, scope(action, n=n, tags=["a", "b", "c"])), (source, action, n)


def test_a_condition_with_few_globs_is_compiled_once_per_combination_of_their_answers() -> None:
    one = Condition('glob(action, "files.*") && context.n < 10', "g", "when")
    assert len(one._variants) == 2 and len(one._globs) == 1
    three = Condition('glob(action, "*") && (glob(action, "a.*") || glob(action, "b.*"))', "g", "when")
    assert len(three._variants) == 2**MAX_SPECIALISED_GLOBS
    many = Condition(" || ".join(f'glob(action, "p{i}.*")' for i in range(MAX_SPECIALISED_GLOBS + 1)), "g", "when")
    assert many._variants == () and len(many._globs) == MAX_SPECIALISED_GLOBS + 1  # answers given as a variable


@pytest.mark.parametrize(
    "source",
    [
        '["files.a"].exists(action, glob(action, "files.*"))',
        '["files.a"].exists(action // the loop variable\n, glob(action, "files.*"))',
        '["x", "files.a"].all(action, glob(action, "files.*")) || glob(action, "x")',
    ],
)
def test_a_glob_on_a_comprehension_variable_named_action_reads_that_variable(
    source: str, no_python_globs: list[tuple[str, str]]
) -> None:
    cond = Condition(source, "g", "when")
    assert cond._variants == ()  # not answered from the call's action
    for action in ("x", "files.b", "y"):
        no_python_globs.clear()
        got = answer(cond, scope(action))
        assert no_python_globs == []
        assert got == reference(source, scope(action)), (source, action)


def test_globs_in_string_literals_and_comments_are_not_code() -> None:
    cond = Condition('"glob(action, \\"x\\")" == context.s // glob(action, "y")\n', "g", "when")
    assert cond._variants == () and cond._globs == ()
    assert cond.holds(scope("x", s='glob(action, "x")')) is True


@settings(max_examples=200, deadline=None)
@example(action="ß", patterns=["?", "[", ".", "??"], ops=["&&", "&&", "||"], negate=[False] * 4)
@given(
    action=st.text(alphabet="abcfilesFILES.*?[]!_-ßü", min_size=1, max_size=12),
    patterns=st.lists(st.text(alphabet="abcfiles.*?[]!ßü", min_size=1, max_size=8), min_size=1, max_size=4),
    ops=st.lists(st.sampled_from(["&&", "||"]), min_size=3, max_size=3),
    negate=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_specialised_and_plain_evaluation_agree_on_generated_globs(
    action: str, patterns: list[str], ops: list[str], negate: list[bool]
) -> None:
    parts = [("!" if neg else "") + f'glob(action, "{p}")' for p, neg in zip(patterns, negate, strict=False)]
    source = parts[0] + "".join(f" {op} {part}" for op, part in zip(ops, parts[1:], strict=False))
    cond = Condition(source, "g", "when")
    expected = reference(source, scope(action))
    assert answer(cond, scope(action)) == expected
    direct = [GlobSet((p,)).matches(action) for p in patterns]  # the single-glob case, spelled out
    if len(patterns) == 1:
        assert expected is (direct[0] != negate[0])
