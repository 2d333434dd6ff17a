"""Each built-in guardrail kind, and the factory's validation."""

from __future__ import annotations

from typing import Any

import pytest

from server.domain.errors import FailedPrecondition, InvalidArgument
from server.domain.guardrails import ActionCall, GuardrailSpec, Severity, build_guardrail, evaluation_order
from server.domain.guardrails.plugin import coerce_result
from server.domain.guardrails.policy import parse_guardrails
from server.services.supervisor.plugins import PluginModules

load_plugin_class = PluginModules(["tests.plugins"])


def build(kind: str, name: str = "g", **options: Any) -> Any:
    return build_guardrail(GuardrailSpec(name, kind, options), load_plugin_class)


def call(action: str = "act", context: dict[str, Any] | None = None, **kw: Any) -> ActionCall:
    return ActionCall("agent-1", action, context or {}, **kw)


class TestCostCap:
    def test_whole_number_prints_without_decimals(self) -> None:
        r = build("cost_cap", max=100).check(call(context={"cost": 140.0}), 0)
        assert (r.allowed, r.reason, r.severity) == (False, "Cost 140 is over the cap", Severity.BLOCK)

    def test_fraction_kept(self) -> None:
        assert build("cost_cap", max=100).check(call(context={"cost": 140.5}), 0).reason == "Cost 140.5 is over the cap"

    def test_at_cap_missing_or_not_a_number_allows(self) -> None:
        g = build("cost_cap", max=100)
        for ctx in ({"cost": 100}, {}, {"cost": "1000"}, {"cost": True}):
            assert g.check(call(context=ctx), 0).allowed, ctx

    def test_custom_key(self) -> None:
        assert not build("cost_cap", key="usd", max=1).check(call(context={"usd": 2}), 0).allowed

    def test_max_required_and_numeric(self) -> None:
        with pytest.raises(InvalidArgument, match="'max': is required"):
            build("cost_cap")
        with pytest.raises(InvalidArgument, match="must be a number"):
            build("cost_cap", max="lots")


class TestTrustRoot:
    def root(self, **kw: Any) -> Any:
        return build("trust_root", name="root", **kw)

    @pytest.mark.parametrize(
        "context, binary, where",
        [
            ({"cmd": "rm -rf /"}, {}, "context.cmd"),
            ({"a": {"b": [1, {"c": "please RM  -RF /tmp"}]}}, {}, "context.a.b[1].c"),
            ({"rm -rf /": 1}, {}, "key 'rm -rf /'"),
            ({}, {"blob": b"\xff\xfe rm -rf /"}, "binary_context.blob"),
            ({}, {"rm -rf x": b"ok"}, "key 'rm -rf x'"),
        ],
    )
    def test_every_string_leaf_is_scanned(self, context: Any, binary: Any, where: str) -> None:
        r = self.root(blocked_patterns=[r"(?i)rm\s+-rf"]).check(call(context=context, binary_context=binary), 0)
        assert not r.allowed and where in r.reason

    def test_action_itself_is_scanned(self) -> None:
        assert not self.root(blocked_patterns=["DROP TABLE"]).check(call("sql: DROP TABLE x"), 0).allowed

    def test_bytes_decoded_with_backslash_escapes(self) -> None:
        # Invalid UTF-8 becomes a visible escape a pattern can match, never a silent skip.
        r = self.root(blocked_patterns=[r"\\xff"]).check(call(binary_context={"b": b"\xff"}), 0)
        assert not r.allowed

    def test_allowed_actions_exact_and_glob(self) -> None:
        g = self.root(allowed_actions=["read", "search.*"])
        assert g.check(call("read"), 0).allowed
        assert g.check(call("search.web"), 0).allowed
        assert not g.check(call("write"), 0).allowed

    def test_clean_call_allowed(self) -> None:
        assert self.root(blocked_patterns=["x{3}"]).check(call(context={"k": ["ab", 1, None]}), 0).allowed

    def test_invalid_regex_is_invalid_argument(self) -> None:
        with pytest.raises(InvalidArgument, match="invalid regular expression"):
            self.root(blocked_patterns=["(unclosed"])

    def test_runs_first_whatever_its_position(self) -> None:
        chain = [build("cost_cap", name="cap", max=1), self.root(blocked_patterns=["x"])]
        assert [g.name for g in evaluation_order(chain)] == ["root", "cap"]


class TestActionList:
    def test_deny_blocks_and_allow_list_limits(self) -> None:
        g = build("action_list", allow=["read.*", "write.*"], deny=["write.secrets"])
        assert g.check(call("read.file"), 0).allowed
        assert not g.check(call("write.secrets"), 0).allowed
        assert not g.check(call("delete.all"), 0).allowed

    def test_warn_mode(self) -> None:
        r = build("action_list", deny=["shell.*"], mode="warn").check(call("shell.exec"), 0)
        assert (r.allowed, r.severity) == (True, Severity.WARNING)

    def test_limited_to_agents_or_groups(self) -> None:
        g = build("action_list", deny=["*"], agents=["bad"], groups=["red"])
        assert g.check(call("x"), 0).allowed
        assert not g.check(ActionCall("bad", "x", {}), 0).allowed
        assert not g.check(ActionCall("other", "x", {}, group="red"), 0).allowed

    def test_needs_a_list_and_a_known_mode(self) -> None:
        with pytest.raises(InvalidArgument):
            build("action_list")
        with pytest.raises(InvalidArgument, match="'block', 'warn'"):
            build("action_list", deny=["x"], mode="loud")


class TestRateLimit:
    def test_warns_from_fraction_and_blocks_beyond_max(self) -> None:
        g = build("rate_limit", max=5, window="60s", warn_at=0.8)
        sev = [g.check(call(), 10.0).severity for _ in range(6)]
        assert sev == [Severity.INFO] * 3 + [Severity.WARNING] * 2 + [Severity.BLOCK]

    def test_window_slides(self) -> None:
        g = build("rate_limit", max=2, window="10s")
        assert g.check(call(), 0).allowed and g.check(call(), 1).allowed
        assert not g.check(call(), 9.9).allowed
        assert g.check(call(), 10.5).allowed  # the first check left the window

    def test_per_agent(self) -> None:
        g = build("rate_limit", max=1, window=60)
        assert g.check(ActionCall("a", "x", {}), 0).allowed
        assert g.check(ActionCall("b", "x", {}), 0).allowed
        assert not g.check(ActionCall("a", "x", {}), 0).allowed

    def test_bad_options(self) -> None:
        with pytest.raises(InvalidArgument, match="duration"):
            build("rate_limit", max=1, window="soon")
        with pytest.raises(InvalidArgument, match="fraction"):
            build("rate_limit", max=1, window="1s", warn_at=2)


class TestFactory:
    def test_unknown_kind_names_the_known_ones(self) -> None:
        with pytest.raises(InvalidArgument, match=r"unknown guardrail kind 'nope'.*cost_cap"):
            build("nope")

    def test_unknown_option_named(self) -> None:
        with pytest.raises(InvalidArgument, match="unknown option 'maxx'"):
            build("cost_cap", maxx=1)

    def test_breaker_and_budget_need_their_service(self) -> None:
        for kind in ("breaker", "budget"):
            with pytest.raises(FailedPrecondition, match="needs the"):
                build(kind)

    def test_policy_errors_name_the_entry(self) -> None:
        with pytest.raises(InvalidArgument, match=r"guardrails\[1\]: .*'max'"):
            parse_guardrails(
                [{"name": "a", "kind": "cost_cap", "max": 1}, {"name": "b", "kind": "cost_cap"}], load_plugin_class
            )


class Verdictish:
    def __init__(self, allowed: bool, reason: str, severity: str) -> None:
        self.allowed, self.reason, self.severity = allowed, reason, severity


def test_plugin_results_coerced() -> None:
    assert coerce_result(None, "p").allowed
    assert coerce_result(False, "p").reason == "Blocked by plugin p"
    r = coerce_result(Verdictish(True, "hm", "warning"), "p")
    assert (r.allowed, r.severity) == (True, Severity.WARNING)
    with pytest.raises(TypeError):
        coerce_result(42, "p")
