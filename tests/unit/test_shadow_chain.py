"""Shadow mode's rules on the pure parts: how ChainRun combines shadow results, which `mode` values each kind
takes, and the policy's chain-level `chain.mode`."""

from __future__ import annotations

import pytest

from server.adapters.policy_file import apply_chain_mode
from server.domain.errors import InvalidArgument
from server.domain.guardrails import ChainRun, GuardrailResult, GuardrailSpec, Severity, build_guardrail
from server.domain.guardrails.plugin import PluginLoader

NO_PLUGINS: PluginLoader = lambda path: None  # noqa: E731 - no plugin guardrail in these tests


def test_a_shadow_block_never_stops_the_chain_and_becomes_the_shadow_outcome() -> None:
    run = ChainRun()
    run.record_shadow("candidate", GuardrailResult.blocked("too big"))
    assert not run.stopped
    assert not run.record("cap", GuardrailResult.allow("fine"))
    v = run.verdict()
    assert (v.allowed, v.guardrail, v.reason) == (True, "cap", "fine")
    assert v.shadow is not None
    assert (v.shadow.guardrail, v.shadow.reason, v.shadow.severity) == ("candidate", "too big", Severity.BLOCK)
    assert v.shadow.describe() == "would have blocked by candidate: too big"


def test_only_the_first_shadow_block_counts_and_later_shadow_guardrails_are_skipped() -> None:
    first = build_guardrail(GuardrailSpec("first", "cost_cap", {"max": 1, "mode": "shadow"}), NO_PLUGINS)
    enforcing = build_guardrail(GuardrailSpec("cap", "cost_cap", {"max": 1}), NO_PLUGINS)
    run = ChainRun()
    assert not run.skips(first)
    run.record_shadow("first", GuardrailResult.blocked("one"))
    assert run.skips(first) and not run.skips(enforcing)
    run.record_shadow("second", GuardrailResult.blocked("two"))
    assert run.shadow is not None and run.shadow.guardrail == "first"


def test_shadow_warnings_and_allows_leave_no_trace() -> None:
    run = ChainRun()
    run.record_shadow("w", GuardrailResult.warning("near"))
    run.record_shadow("a", GuardrailResult.allow())
    v = run.verdict()
    assert (v.allowed, v.guardrail, v.warnings, v.shadow) == (True, "", (), None)


def test_a_shadow_approval_is_reported_as_would_ask() -> None:
    run = ChainRun()
    run.record_shadow("review", GuardrailResult.blocked("Would ask a human"), needs_approval=True)
    assert run.shadow is not None and run.shadow.needs_approval
    assert run.shadow.describe() == "would have asked a human (review)"


def test_a_shadow_error_is_a_shadow_block_and_the_enforced_block_keeps_it() -> None:
    run = ChainRun()
    run.record_shadow_error("flaky", "boom")
    assert run.record("cap", GuardrailResult.blocked("over"))
    v = run.verdict()
    assert (v.allowed, v.guardrail) == (False, "cap")
    assert v.shadow is not None and (v.shadow.guardrail, v.shadow.reason) == ("flaky", "Guardrail error: boom")


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        ("cost_cap", {"max": 1}),
        ("rate_limit", {"max": 1, "window": "1m"}),
        ("hitl", {"patterns": ["x"]}),
        ("trust_root", {"blocked_patterns": ["x"]}),
        ("action_list", {"deny": ["x"]}),
    ],
)
def test_every_kind_takes_mode_shadow_and_enforce(kind: str, options: dict[str, object]) -> None:
    assert build_guardrail(GuardrailSpec("g", kind, {**options, "mode": "shadow"}), NO_PLUGINS).shadow
    enforce = "block" if kind == "action_list" else "enforce"
    assert not build_guardrail(GuardrailSpec("g", kind, {**options, "mode": enforce}), NO_PLUGINS).shadow
    with pytest.raises(InvalidArgument) as err:
        build_guardrail(GuardrailSpec("g", kind, {**options, "mode": "Shadow"}), NO_PLUGINS)
    assert err.value.field == "mode"


def test_an_action_list_keeps_its_own_modes() -> None:
    warn = build_guardrail(GuardrailSpec("g", "action_list", {"deny": ["x"], "mode": "warn"}), NO_PLUGINS)
    assert not warn.shadow


def test_chain_mode_shadow_marks_every_entry_and_enforce_changes_nothing() -> None:
    raw = [{"name": "a", "kind": "cost_cap", "max": 1}, {"name": "b", "kind": "action_list", "deny": ["x"]}]
    assert apply_chain_mode(raw, None, "p") == raw
    assert apply_chain_mode(raw, {"mode": "enforce"}, "p") == raw
    assert [e["mode"] for e in apply_chain_mode(raw, {"mode": "shadow"}, "p")] == ["shadow", "shadow"]
    assert "mode" not in raw[0]  # the caller's entries are not changed in place
    for bad in ({"mode": "loud"}, {"mode": "shadow", "extra": 1}, "shadow"):
        with pytest.raises(InvalidArgument):
            apply_chain_mode(raw, bad, "p")
