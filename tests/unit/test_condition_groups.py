"""Condition groups (server/domain/guardrails/condition_groups.py): a running chain's conditions evaluated together
once per call answer exactly what each evaluated alone answers, errors included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.domain.errors import InvalidArgument
from server.domain.guardrails import ActionCall, Guardrail, GuardrailSpec, build_guardrail, gate, running_order
from server.domain.guardrails import condition_groups as groups
from server.domain.guardrails.condition_groups import GROUP_SIZE, ConditionGroup, group_conditions
from server.domain.guardrails.conditions import Condition, Scope, scope_of


def cond(guardrail: Guardrail) -> Condition:
    assert guardrail.condition is not None
    return guardrail.condition


def _no_plugins(path: str) -> Any:
    raise AssertionError("no plugin here")


# Each can hold, fail, fail to evaluate (a missing key, a string compared with a number, a division by zero) or give
# a non-bool, depending on the call.
WHEN = [
    'action != "shell.exec"',
    "!has(context.dry_run) || context.dry_run == false",
    'agent.group == "analysts" || context.cost < 50',
    'glob(action, "files.*") && size(context.tags) <= 2',
    'context.user.id.startsWith("u-") // a comment ends at its line\n&& context.limits.rows <= 100000',
    "context.cost > 10",  # a missing key: an error
    "context.n / context.d > 1",  # division by zero: an error
    "context.flag",  # dyn: a bool, or a non-bool
    'glob(action, "files.*") || glob(action, "db.*") || glob(action, "x?") || glob(action, "??")',
    '["a", "files.x"].exists(action, glob(action, "files.*")) && glob(action, "*")',
    "context.cost > 10",  # the same text twice: one answer
]


def chain(when: list[str], *, on_error: str = "block") -> list[Any]:
    return [
        build_guardrail(
            GuardrailSpec(f"g{i}", "rule", {"effect": "warn", "when": w, "on_error": on_error}), _no_plugins
        )
        for i, w in enumerate(when)
    ]


contexts = st.fixed_dictionaries(
    {},
    optional={
        "dry_run": st.booleans(),
        "cost": st.one_of(st.integers(-5, 100), st.floats(0, 100), st.just("12")),
        "tags": st.lists(st.sampled_from(["a", "b"]), max_size=4),
        "user": st.fixed_dictionaries({"id": st.sampled_from(["u-1", "x-2"])}),
        "limits": st.fixed_dictionaries({"rows": st.integers(0, 200000)}),
        "n": st.integers(0, 4),
        "d": st.integers(0, 2),
        "flag": st.one_of(st.booleans(), st.integers(0, 2), st.just("yes")),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    action=st.sampled_from(["files.read", "Files.Write", "shell.exec", "db.drop", "xy", "ß", "a"]),
    group=st.sampled_from(["analysts", "support", None]),
    context=contexts,
    on_error=st.sampled_from(["block", "skip"]),
)
def test_a_grouped_chain_answers_every_guardrail_as_its_condition_alone_would(
    action: str, group: str | None, context: dict[str, Any], on_error: str
) -> None:
    grouped = running_order(chain(WHEN, on_error=on_error))
    alone = chain(WHEN, on_error=on_error)
    assert all(cond(g).group is not None for g in grouped) and all(cond(g).group is None for g in alone)
    grouped_call = ActionCall("agent-1", action, context, group=group)
    alone_call = ActionCall("agent-1", action, context, group=group)
    for with_group, without in zip(grouped, alone, strict=True):
        assert gate(with_group, grouped_call) == gate(without, alone_call), cond(with_group).source


def test_the_first_condition_a_call_meets_answers_its_whole_group() -> None:
    order = running_order(chain(WHEN[:5]))
    call = ActionCall("agent-1", "files.read", {"cost": 1, "tags": [], "user": {"id": "u-1"}, "limits": {"rows": 1}})
    assert gate(order[0], call) is None
    assert scope_of(call).results == dict.fromkeys(WHEN[:5], True)


def test_a_group_that_cannot_be_evaluated_for_a_call_leaves_each_condition_its_own_answer_and_error() -> None:
    order = running_order(chain(["context.cost > 10", "true", 'action == "x"']))
    call = ActionCall("agent-1", "files.read", {})  # no cost: the first condition fails, so does the group
    blocked = gate(order[0], call)
    assert blocked is not None and not blocked.allowed
    assert blocked.reason.startswith("Guardrail error: the condition of 'g0' failed: ")
    assert "cost" in blocked.reason
    assert gate(order[1], call) is None
    stood_in = gate(order[2], call)
    assert stood_in is not None and stood_in.reason == "Not applied: the condition of g2 is false"


def test_groups_hold_at_most_GROUP_SIZE_distinct_texts_and_one_text_is_evaluated_alone() -> None:
    texts = [f"context.n > {i}" for i in range(GROUP_SIZE * 2 + 1)]
    order = running_order(chain([*texts[:3], *texts[:3], *texts[3:]]))  # repeats share a group's answer
    held = [cond(g).group for g in order]
    first = held[0]
    assert first is not None and held[:6] == [first] * 6 and len(first.sources) == GROUP_SIZE
    assert all(g is not None and len(g.sources) <= GROUP_SIZE for g in held[:-1])
    assert held[-1] is None  # the last text alone in its run
    call = ActionCall("agent-1", "a", {"n": GROUP_SIZE})
    assert [gate(g, call) is None for g in order] == [
        int(t.rsplit(" ", 1)[1]) < GROUP_SIZE for t in texts[:3] * 2 + texts[3:]
    ]


def test_grouping_a_running_chain_again_keeps_its_groups() -> None:
    guardrails = chain(WHEN[:4])
    first = [cond(g).group for g in running_order(guardrails)]
    again = [cond(g).group for g in running_order(guardrails)]
    assert first == again and first[0] is not None
    changed = [cond(g).group for g in running_order(guardrails[:3])]  # a chain with one guardrail less
    assert changed[0] is not first[0] and changed[0] is not None and len(changed[0].sources) == 3


def test_a_group_that_does_not_compile_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(sources: object) -> object:
        raise RuntimeError("INVALID_ARGUMENT: too deep once joined")

    monkeypatch.setattr(groups, "_compile_group", refuse)
    group = ConditionGroup(["true", "false"])
    s = Scope(ActionCall("agent-1", "a", {}))
    group.answer(s)
    group.answer(s)
    assert s.results == {} and group._broken
    conditions = [Condition("true", "g", "when"), Condition("false", "g", "when")]
    group_conditions(conditions)
    s = Scope(ActionCall("agent-1", "a", {}))
    assert [c.holds(s) for c in conditions] == [True, False]


def test_an_expression_at_the_nesting_limit_is_answered_alone_when_its_group_would_be_too_deep() -> None:
    def nested(depth: int) -> str:  # `int()`: not native (cel_native.py), so joined into the group's CEL list
        return "(" * depth + "int(context.n) > 1" + ")" * depth

    def compiles(depth: int) -> bool:
        try:
            Condition(nested(depth), "g", "when")
        except InvalidArgument:
            return False
        return True

    deepest = max(d for d in range(1, 64) if compiles(d))  # cel-cpp's parser refuses what is deeper
    order = running_order(chain([nested(deepest), "context.n < 5"]))
    call = ActionCall("agent-1", "a", {"n": 2})
    assert gate(order[0], call) is None and gate(order[1], call) is None
    group = cond(order[0]).group
    assert group is not None and group._broken  # one level deeper inside the group's list: never used


@pytest.mark.parametrize("context", [{"n": 2**80}, {"n": 1, 3: "an int key"}, {"n": float("nan")}, {"n": b"\xff"}])
def test_values_cel_cannot_hold_give_each_grouped_guardrail_the_error_it_gives_alone(context: dict[Any, Any]) -> None:
    when = ["context.n > 1", "true", 'action == "a"', "size(context) > 0"]
    grouped, alone = running_order(chain(when)), chain(when)
    for with_group, without in zip(grouped, alone, strict=True):
        expected = gate(without, ActionCall("agent-1", "a", context))
        assert gate(with_group, ActionCall("agent-1", "a", context)) == expected, cond(with_group).source
