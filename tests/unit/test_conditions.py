"""Conditions (`when:` in CEL) on every kind, the `rule` kind, `match:` and `strings:` modes, and compile and run-time
errors: the domain rules, on no server."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from server.domain.errors import InvalidArgument
from server.domain.guardrails import ActionCall, ChainRun, GuardrailSpec, Severity, build_guardrail, gate
from server.domain.guardrails.conditions import MAX_LENGTH, Condition, ConditionError, Scope
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.hitl import Hitl
from server.domain.guardrails.lint import lint_chain
from server.domain.guardrails.policy import parse_guardrails
from server.domain.guardrails.rule import AskRule, Rule
from server.services.supervisor.plugins import PluginModules

load_plugin_class = PluginModules(["tests.plugins"])
# Breaker and budget guardrails need their services only at check time; a condition decides before that.
DEPS = GuardrailDeps(breakers=object(), budgets=object())  # type: ignore[arg-type]


def build(kind: str, name: str = "g", **options: Any) -> Any:
    return build_guardrail(GuardrailSpec(name, kind, options), load_plugin_class, deps=DEPS)


def call(action: str = "act", context: dict[str, Any] | None = None, **kw: Any) -> ActionCall:
    return ActionCall("agent-1", action, context or {}, **kw)


def holds(expr: str, c: ActionCall) -> bool:
    return Condition(expr, "test", "when").holds(Scope(c))


# ---- every kind takes `when` -------------------------------------------------------------------------------

EVERY_KIND: list[tuple[str, dict[str, Any]]] = [
    ("trust_root", {"blocked_patterns": ["rm"]}),
    ("cost_cap", {"max": 1}),
    ("action_list", {"deny": ["*"]}),
    ("rate_limit", {"max": 1, "window": "60s", "scope": "sidecar"}),
    ("hitl", {"patterns": ["act"]}),
    ("plugin", {"class": "tests.plugins:NoFridays"}),
    ("breaker", {}),
    ("budget", {}),
    ("rule", {"effect": "deny"}),
]


@pytest.mark.parametrize(("kind", "options"), EVERY_KIND, ids=[k for k, _ in EVERY_KIND])
def test_every_kind_takes_when_and_does_not_apply_when_it_is_false(kind: str, options: dict[str, Any]) -> None:
    g = build(kind, when='context.env == "production"', **options)
    staging = gate(g, call(context={"env": "staging", "cost": 5}))
    assert staging is not None
    assert (staging.allowed, staging.severity) == (True, Severity.INFO)
    assert staging.reason == "Not applied: the condition of g is false"
    assert gate(g, call(context={"env": "production"})) is None  # applies: the kind's own check runs


def test_a_guardrail_without_when_always_applies() -> None:
    assert gate(build("cost_cap", max=1), call()) is None


def test_the_kinds_own_check_runs_only_where_the_condition_holds() -> None:
    cap = build("cost_cap", max=100, when='agent.group == "interns"')
    interns = call(context={"cost": 500}, group="interns")
    assert gate(cap, interns) is None and not cap.check(interns, 0).allowed
    others = call(context={"cost": 500}, group="ops")
    skipped = gate(cap, others)
    assert skipped is not None and skipped.allowed


# ---- variables and helpers ---------------------------------------------------------------------------------


def test_numbers_compare_across_int_and_double() -> None:
    for amount in (5000, 5000.0):
        assert holds("context.amount > 1000", call(context={"amount": amount}))
        assert holds("context.amount == 5000", call(context={"amount": amount}))
    assert not holds("context.amount > 1000.5", call(context={"amount": 1000}))


def test_agent_fields_action_and_helpers() -> None:
    c = ActionCall(
        "bot-7",
        "files.delete",
        {"path": "/etc/passwd", "to": ["a", "b", "c"], "meta": {"k": True}},
        group="ops",
        labels={"team": "payments"},
        capabilities=("files.write",),
    )
    assert holds('agent.id == "bot-7" && agent.group == "ops"', c)
    assert holds('agent.labels.team == "payments" && "files.write" in agent.capabilities', c)
    assert holds('glob(action, "files.*") && !glob(action, "files.read*")', c)
    assert holds('glob("Files.Delete", "files.*") && glob("\\uff46iles.x", "files.*")', c)  # as action_list matches
    assert holds('context.path.startsWith("/etc") && context.path.matches("^/etc/[a-z]+$")', c)
    assert holds("size(context.to) == 3 && context.meta.k", c)
    assert holds("has(context.path) && !has(context.missing)", c)


def test_now_is_the_calls_time_with_timestamp_accessors() -> None:
    monday_ten = call(time=datetime(2026, 1, 5, 10, 30, tzinfo=UTC))
    assert holds('now.getDayOfWeek("UTC") == 1 && now.getHours("UTC") == 10 && now.getMinutes() == 30', monday_ten)
    assert holds('now > timestamp("2026-01-01T00:00:00Z")', monday_ten)
    naive = call(time=datetime(2026, 1, 4, 23, 0))  # a database's naive time is UTC
    assert holds('now.getDayOfWeek("UTC") == 0 && now.getHours("UTC") == 23', naive)


def test_matches_is_re2_a_backreference_is_an_error_never_a_match() -> None:
    literal = Condition(r'action.matches("(a)\\1")', "test", "when")
    with pytest.raises(ConditionError, match="invalid regular expression"):
        literal.holds(Scope(call("aa")))
    dynamic = Condition("action.matches(context.re)", "test", "when")
    with pytest.raises(ConditionError, match="invalid regular expression"):
        dynamic.holds(Scope(call("aa", {"re": r"(a)\1"})))


# ---- run-time errors: a block naming the guardrail and CEL's message, unless on_error: skip ----------------


@pytest.mark.parametrize(
    ("context", "expr", "message"),
    [
        ({}, "context.amount > 1000", "Key not found in map"),
        ({"amount": "5000"}, "context.amount > 1000", "No matching overloads"),
        ({"n": 0}, "10 / context.n > 1", "divide by zero"),
        ({"flag": "yes"}, "context.flag", "not a bool"),
    ],
)
def test_a_condition_that_fails_is_a_guardrail_error_block(context: dict[str, Any], expr: str, message: str) -> None:
    g = build("cost_cap", name="refunds", max=1, when=expr)
    r = gate(g, call(context=context))
    assert r is not None and not r.allowed and r.severity is Severity.BLOCK
    assert r.reason.startswith("Guardrail error: the condition of 'refunds' failed: ")
    assert message in r.reason


def test_on_error_skip_skips_the_guardrail() -> None:
    g = build("cost_cap", name="refunds", max=1, when="context.amount > 1000", on_error="skip")
    r = gate(g, call())
    assert r is not None and r.allowed and r.severity is Severity.INFO and "skipped" in r.reason


def test_an_error_block_stops_the_chain_like_any_block() -> None:
    first = build("rule", name="r1", effect="deny", when="context.amount > 1")
    run = ChainRun()
    r = gate(first, call())
    assert r is not None and run.record(first.name, r)
    assert run.verdict().guardrail == "r1" and run.verdict().reason.startswith("Guardrail error:")


def test_a_value_cel_cannot_hold_is_an_error_not_a_crash() -> None:
    g = build("cost_cap", max=1, when="context.n > 1")
    r = gate(g, call(context={"n": 2**80}))
    assert r is not None and not r.allowed and r.reason.startswith("Guardrail error:")


# ---- compile once, fail early --------------------------------------------------------------------------------


def test_a_syntax_error_names_guardrail_field_and_column() -> None:
    with pytest.raises(InvalidArgument) as err:
        build("cost_cap", name="cap", max=1, when="context.amount >")
    assert err.value.field == "when"
    assert err.value.message.startswith("guardrail 'cap' (cost_cap) option 'when': line 1, column 17: Syntax error")


def test_unknown_variables_and_type_errors_are_refused_at_load() -> None:
    with pytest.raises(InvalidArgument, match=r"column 1: undeclared reference to 'amount'"):
        build("cost_cap", max=1, when="amount > 1")
    with pytest.raises(InvalidArgument, match=r"column 8: found no matching overload for '_>_'"):
        build("cost_cap", max=1, when="action > 3")
    with pytest.raises(InvalidArgument, match=r"gives a STRING, not a bool"):
        build("cost_cap", max=1, when='"yes"')
    with pytest.raises(InvalidArgument, match="non-empty string"):
        build("cost_cap", max=1, when="")


def test_huge_and_deeply_nested_expressions_are_refused_at_load() -> None:
    with pytest.raises(InvalidArgument, match=f"over the limit of {MAX_LENGTH}"):
        build("cost_cap", max=1, when="true && " * 600 + "true")
    with pytest.raises(InvalidArgument, match="recursion limit"):
        build("cost_cap", max=1, when="(" * 40 + "true" + ")" * 40)


def test_on_error_must_be_block_or_skip() -> None:
    with pytest.raises(InvalidArgument) as err:
        build("cost_cap", max=1, when="true", on_error="allow")
    assert err.value.field == "on_error"


def test_the_policy_file_names_the_entry_and_the_option() -> None:
    with pytest.raises(InvalidArgument) as err:
        parse_guardrails(
            [
                {"name": "ok", "kind": "cost_cap", "max": 1},
                {"name": "bad", "kind": "rule", "effect": "deny", "when": "1 +"},
            ],
            load_plugin_class,
        )
    assert err.value.field == "guardrails[1]"
    assert "guardrails[1]: guardrail 'bad' (rule) option 'when': line 1, column" in err.value.message


def test_when_is_not_passed_to_a_plugin_constructor() -> None:
    g = build("plugin", **{"class": "tests.plugins:NoFridays", "when": "true", "on_error": "skip"})
    assert g.check(call(), 0).allowed


# ---- the rule kind ---------------------------------------------------------------------------------------------


def test_rule_deny_blocks_with_placeholders_rendered() -> None:
    g = build(
        "rule",
        name="big",
        effect="deny",
        when="context.amount > 1000",
        reason="refund of {context.amount} by {agent.id}",
    )
    assert isinstance(g, Rule)
    c = call("payments.refund", {"amount": 5000.0})
    assert gate(g, c) is None
    r = g.check(c, 0)
    assert (r.allowed, r.severity, r.reason) == (False, Severity.BLOCK, "refund of 5000 by agent-1")


def test_rule_warn_warns_and_the_chain_goes_on() -> None:
    g = build("rule", name="mass", effect="warn", when="size(context.to) > 2", reason="{size(context.to)} recipients")
    r = g.check(call(context={"to": [1, 2, 3]}), 0)
    assert (r.allowed, r.severity, r.reason) == (True, Severity.WARNING, "3 recipients")
    run = ChainRun()
    assert not run.record("mass", r)
    assert not run.record("next", build("cost_cap", max=10).check(call(), 0))
    assert run.verdict().warnings == (("mass", "3 recipients"),)


def test_rule_ask_asks_as_hitl_does_with_hitls_options() -> None:
    g = build(
        "rule",
        name="prod",
        effect="ask",
        when='context.env == "production"',
        reason="deploy of {context.service} to production",
        approvers=["group:release"],
        timeout="1h",
        on_timeout="escalate",
        escalate_to=["cto"],
        min_approvals=2,
        prevent_self_review=True,
    )
    assert isinstance(g, AskRule) and isinstance(g, Hitl) and g.needs_approval and g.kind == "rule"
    assert g.matches("anything")
    assert (g.policy.approvers, g.policy.timeout, g.policy.on_timeout, g.policy.min_approvals) == (
        ("group:release",),
        3600.0,
        "escalate",
        2,
    )
    assert g.policy.prevent_self_review and g.policy.escalate_to == ("cto",)
    c = call(context={"env": "production", "service": "web"})
    assert g.note(c) == (("prod", "deploy of web to production"),)


def test_a_placeholder_that_cannot_be_evaluated_is_left_as_written() -> None:
    g = build("rule", effect="deny", when="true", reason="amount {context.amount}")
    assert g.check(call(), 0).reason == "amount {context.amount}"


def test_a_placeholder_renders_at_most_200_characters() -> None:
    g = build("rule", effect="deny", when="true", reason="note: {context.note}")
    assert g.check(call(context={"note": "x" * 5000}), 0).reason == "note: " + "x" * 199 + "…"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"effect": "deny"}, "when"),
        ({"effect": "allow", "when": "true"}, "effect"),
        ({"effect": "deny", "when": "true", "reason": "x {nope}"}, "reason"),
        ({"effect": "deny", "when": "true", "approvers": ["a"]}, "approvers"),  # only `ask` takes approval options
        ({"effect": "ask", "when": "true", "on_timeout": "approve"}, "on_timeout"),
    ],
)
def test_rule_options_are_validated(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        build("rule", **options)
    assert err.value.field == field


# ---- match modes -----------------------------------------------------------------------------------------------


def test_hitl_match_modes() -> None:
    contains = build("hitl", patterns=["deploy"])  # the seed's default
    assert contains.matches("get_deployment_status") and contains.matches("Redeploy")
    exact = build("hitl", patterns=["deploy"], match="exact")
    assert exact.matches("deploy") and exact.matches("DEPLOY") and not exact.matches("get_deployment_status")
    glob = build("hitl", patterns=["deploy.*"], match="glob")
    assert glob.matches("deploy.web") and not glob.matches("get_deployment_status") and not glob.matches("deploy")
    with pytest.raises(InvalidArgument) as err:
        build("hitl", patterns=["x"], match="regex")
    assert err.value.field == "match"


def test_action_list_match_modes() -> None:
    glob = build("action_list", deny=["shell.*"])  # the default
    assert not glob.check(call("shell.exec"), 0).allowed
    exact = build("action_list", deny=["shell.exec"], match="exact")
    assert not exact.check(call("Shell.Exec"), 0).allowed
    assert exact.check(call("shell.exec.safe"), 0).allowed and exact.check(call("shell.*"), 0).allowed
    contains = build("action_list", deny=["delete"], match="contains")
    assert not contains.check(call("files.delete_all"), 0).allowed and contains.check(call("files.read"), 0).allowed
    allow_exact = build("action_list", allow=["read"], match="exact")
    assert allow_exact.check(call("read"), 0).allowed and not allow_exact.check(call("read.all"), 0).allowed


# ---- cost_cap strings ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strings", "value", "allowed"),
    [
        ("ignore", "1000", True),  # the seed's rule: only numbers count
        ("ignore", 1000, False),
        ("parse", "1000", False),
        ("parse", " 1e3 ", False),
        ("parse", "50", True),
        ("parse", "lots", False),  # a string that is not a number may still be read as one downstream
        ("parse", "NaN", False),
        ("parse", True, True),  # not a string: ignored as by default
        ("block", "50", False),
        ("block", True, False),
        ("block", [1], False),
        ("block", float("nan"), False),
        ("block", 50, True),
    ],
)
def test_cost_cap_strings(strings: str, value: Any, allowed: bool) -> None:
    g = build("cost_cap", max=100, strings=strings)
    assert g.check(call(context={"cost": value}), 0).allowed is allowed


def test_cost_cap_parse_reason_and_missing_key() -> None:
    g = build("cost_cap", max=100, strings="parse")
    assert g.check(call(context={"cost": "1000"}), 0).reason == "Cost 1000 is over the cap"
    assert g.check(call(context={"cost": "lots"}), 0).reason == "Cost at 'cost' is not a number (the string 'lots')"
    assert build("cost_cap", max=100, strings="block").check(call(), 0).allowed  # nothing at the key
    with pytest.raises(InvalidArgument) as err:
        build("cost_cap", max=100, strings="coerce")
    assert err.value.field == "strings"


# ---- lint ------------------------------------------------------------------------------------------------------


def test_lint_reports_unknown_agent_fields_shadowed_rules_and_what_follows_a_deny_all() -> None:
    chain = [
        build("rule", name="a", effect="deny", when='agent.grup == "x" && "agent.zzz" != action'),
        build("rule", name="b", effect="warn", when='agent.grup  ==  "x" && "agent.zzz" != action'),
        build("rule", name="conditional-list", effect="warn", when="true"),
        build("action_list", name="only-interns", deny=["*"], when='agent.group == "interns"'),
        build("rule", name="stop", effect="deny", when="true"),
        build("cost_cap", name="after", max=1),
    ]
    found = [(f.guardrail, f.problem) for f in lint_chain(chain)]
    assert (
        "a",
        "unknown variable agent.grup in `when` (known: action, agent.id, agent.group, agent.labels, "
        "agent.capabilities, context, now)",
    ) in found
    assert ("b", "shadowed: rule 'a' before it denies under the same condition") in found
    assert ("after", "unreachable: 'stop' before it blocks every action") in found
    assert not any(g == "stop" or "only-interns" in p for g, p in found)  # a deny list under a condition blocks not all
    assert not any(g == "a" and "zzz" in p for g, p in found)  # text inside a string literal is not a variable


def test_lint_reports_conditions_that_can_never_apply_to_any_action_the_policy_mentions() -> None:
    chain = [
        build("action_list", name="tools", deny=["shell.*", "files.delete"]),
        build("hitl", name="ask", patterns=["deploy"]),
        build("rule", name="contradiction", effect="deny", when='action == "deploy" && action.startsWith("shell.")'),
        build("rule", name="two-families", effect="warn", when='glob(action, "files.*") && glob(action, "shell.*")'),
        build(
            "rule", name="family-and-suffix", effect="warn", when='glob(action, "shell.*") && action.endsWith(".exec")'
        ),
        build("rule", name="constant", effect="deny", when="1 > 2"),
        build("rule", name="named-here", effect="deny", when='action == "payments.refund"'),
        build("rule", name="matches-a-glob", effect="warn", when='glob(action, "shell.*")'),
        build("rule", name="on-the-call", effect="deny", when='action == "a" && context.amount > 1 && action == "b"'),
        build("rule", name="always", effect="warn", when="true"),
    ]
    never = {f.guardrail for f in lint_chain(chain) if "can never apply" in f.problem}
    assert never == {"contradiction", "two-families", "constant"}
    [problem] = [f.problem for f in lint_chain(chain) if f.guardrail == "two-families"]
    assert problem.startswith("`when` can never apply to any action the policy mentions")


@pytest.mark.parametrize(
    "pattern", ["files.*", "FILES.read", "db.[!a-c]?*", "shell.?x*", "a[bc]d.*", "ünïcode.*", "x.y\u00df*", "*"]
)
@pytest.mark.parametrize(
    "action", ["files.read", "Files.Delete", "db.drop_all", "db.a", "shell.exec", "acd.x", "ÜNÏCODE.x", "x.ysse", "q"]
)
def test_glob_on_the_action_answers_as_action_lists_match_without_calling_python(
    action: str, pattern: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`glob(action, "...")` never calls from CEL into Python (such a call leaks ~200 bytes in the CEL binding,
    cel-expr-python 0.1.3): it is answered once per call, and answers as action_list's globs do."""
    from server.domain.guardrails import conditions
    from server.domain.guardrails.patterns import GlobSet

    calls: list[str] = []
    monkeypatch.setattr(conditions, "_glob", lambda v, p: calls.append(p) or GlobSet((p,)).matches(v))
    cond = Condition(f'glob(action, "{pattern}")', "g", "when")
    assert cond.holds(Scope(ActionCall("a", action, {}))) is GlobSet((pattern,)).matches(action)
    assert calls == []
    other = Condition(f'glob(context.path, "{pattern}")', "g", "when")  # not the action: the Python function
    assert other.holds(Scope(ActionCall("a", "x", {"path": action}))) is GlobSet((pattern,)).matches(action)
    assert calls == [pattern]
