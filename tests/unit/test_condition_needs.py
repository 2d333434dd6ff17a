"""What a condition reads (`Needs`): a call's values are given to CEL only as far as its conditions read them, and
reading less never changes an answer: the same conditions over the same calls answer as with every value given."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.domain.guardrails import ActionCall
from server.domain.guardrails.condition_groups import ConditionGroup
from server.domain.guardrails.conditions import EVERYTHING, Condition, ConditionError, Needs, Scope


@pytest.mark.parametrize(
    ("source", "names", "keys"),
    [
        ("context.amount > 1000", {"context"}, {"amount"}),
        ('has(context.a) && context.b.c == 1 && context . d == "x"', {"context"}, {"a", "b", "d"}),
        ('context.tags.exists(t, t == "a")', {"context"}, {"tags"}),
        ("size(context) > 1", {"context"}, None),  # the whole map
        ('context["amount"] > 1', {"context"}, None),
        ('context.exists(k, k == "a")', {"context"}, None),  # a macro on the map itself
        ("context.all(k, true)", {"context"}, None),
        ("[1].exists(context, context > 0)", {"context"}, None),  # a comprehension variable named context
        ("context.?amount.orValue(0) > 1", {"context"}, None),
        ('action == "context.secret" // context.other', {"action"}, set()),  # a literal and a comment
        ('agent.group == "finance" && now.getHours() > 8', {"agent", "now"}, set()),
        ('glob(action, "files.*")', {"action"}, set()),
        ("agent.labels.context == 'x'", {"agent", "context"}, None),  # `context` after a dot: read it all
    ],
)
def test_what_a_condition_reads_is_read_from_its_text(source: str, names: set[str], keys: set[str] | None) -> None:
    needs = Needs.of((source,))
    assert needs.names == names
    assert needs.context_keys == (frozenset(keys) if keys is not None else None)


def test_equal_needs_are_one_object_and_a_group_reads_what_its_conditions_read() -> None:
    assert Needs.of(("action == '' || agent.id == '' || size(context) == 0 || now == now",)) is EVERYTHING
    assert Needs.of(("context.a > 1",)) is Needs.of(("context.a < 5 && has(context.a)",))
    group = ConditionGroup(("context.a > 1", "agent.id == 'x'", 'glob(action, "f.*")'))
    assert group.needs.names == {"context", "agent", "action"}
    assert group.needs.context_keys == {"a"}
    assert ConditionGroup(("context.a > 1", "size(context) == 2")).needs.context_keys is None


def test_a_value_the_condition_does_not_read_is_never_given_to_cel() -> None:
    # An object CEL cannot hold, under a key no condition reads: the condition is still answered.
    c = ActionCall("agent-1", "act", {"amount": 5000, "blob": object()})
    assert Condition("context.amount > 1000", "test", "when").holds(Scope(c)) is True
    with pytest.raises(ConditionError, match="blob"):  # read whole, it is given and refused
        Condition("size(context) == 2", "test", "when").holds(Scope(c))


def test_the_whole_context_is_given_where_a_condition_reads_it_whole() -> None:
    c = ActionCall("agent-1", "act", {"a": 1, "b": 2, "c": 3})
    assert Condition("size(context) == 3 && context.a == 1", "test", "when").holds(Scope(c)) is True
    assert Condition('context.exists(k, k == "c")', "test", "when").holds(Scope(c)) is True
    missing = Condition("context.zz > 1", "test", "when")
    with pytest.raises(ConditionError, match="zz"):  # a key the call lacks: an error, as with the whole map
        missing.holds(Scope(c))
    assert Condition("!has(context.zz)", "test", "when").holds(Scope(c)) is True


def test_a_condition_over_one_key_of_a_large_context_is_answered() -> None:
    context: dict[str, Any] = {f"k{i}": "x" * 1000 for i in range(1024)}  # about 1 MiB
    context["amount"] = 5000.0
    assert Condition("context.amount > 1000", "test", "when").holds(Scope(ActionCall("a", "act", context))) is True


# Answers with pruned values equal answers with every value: the same expressions, evaluated in an activation of the
# whole call (EVERYTHING's needs) and in their own.
CONDITIONS = [
    "context.amount > 1000",
    "has(context.amount) && context.amount < 10",
    'context.tags.exists(t, t == "x")',
    "size(context) > 2",
    'context.exists(k, k.startsWith("a"))',
    'agent.group == "g" || context.user.id == "u"',
    'action.startsWith("files.") && !has(context.dry_run)',
    "now.getHours() >= 0 && context.amount != 3",
]
VALUES = st.one_of(st.integers(-5000, 5000), st.floats(allow_nan=False, width=32), st.text(max_size=4), st.booleans())
CONTEXTS = st.dictionaries(
    st.sampled_from(["amount", "tags", "user", "dry_run", "a1", "b"]),
    st.one_of(
        VALUES,
        st.lists(st.sampled_from(["x", "y"]), max_size=3),
        st.fixed_dictionaries({"id": st.sampled_from(["u", "v"])}),
    ),
)


def _answer(condition: Condition, scope: Scope) -> object:
    try:
        return condition.holds(scope)
    except ConditionError as exc:
        return ("error", str(exc))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CONDITIONS), CONTEXTS, st.sampled_from(["files.read", "shell.exec"]))
def test_reading_less_never_changes_an_answer(source: str, context: dict[str, Any], action: str) -> None:
    call = ActionCall("agent-1", action, context, group="g", time=datetime(2026, 1, 1, tzinfo=UTC))
    pruned = Condition(source, "test", "when")
    whole = Condition(source, "test", "when")
    whole.needs = EVERYTHING
    assert _answer(pruned, Scope(call)) == _answer(whole, Scope(call))
