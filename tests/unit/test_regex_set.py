"""Operator patterns under RE2: linear time, each pattern enforced exactly as alone, RE2-only syntax refused.

Before: `^(a+)+$` froze the event loop (doubling per character), and the trust root's joined fast scan
renumbered capture groups, so `(\\w)\\1{3,}` beside another pattern let `AAAA-padding` through.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import re2
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from server.domain.errors import InvalidArgument
from server.domain.guardrails import GuardrailSpec, build_guardrail
from server.domain.guardrails.base import ActionCall
from server.domain.guardrails.patterns import RegexSet


def _root(patterns: list[str]) -> Any:
    return build_guardrail(GuardrailSpec("root", "trust_root", {"blocked_patterns": patterns}, "test"), lambda _: None)


def _call(context: dict[str, Any], action: str = "act") -> ActionCall:
    return ActionCall("agent-1", action, context, {}, None)


@pytest.mark.timeout(60)
def test_catastrophic_pattern_answers_in_linear_time() -> None:
    """No stopwatch: the action alone would take a backtracking engine ~2**64 steps (centuries; Python's re
    needed seconds for 2**26), so answering at all, within the test's timeout, proves the scan is linear."""
    root = _root([r"^(a+)+$"])
    result = root.check(_call({"payload": "a" * 5000 + "!"}, action="a" * 64 + "!"), 0)
    assert result.allowed
    compiled = RegexSet([r"^(a+)+$"], "p", "p").regexes
    assert all(type(r) is type(re2.compile("a")) and not isinstance(r, re.Pattern) for r in compiled)  # RE2


def test_back_references_are_refused_at_build_time_naming_the_pattern() -> None:
    with pytest.raises(InvalidArgument) as err:
        _root([r"(DROP|TRUNCATE)\s+TABLE", r"(\w)\1{3,}"])
    assert "blocked_patterns'[1]" in err.value.message and repr(r"(\w)\1{3,}") in err.value.message
    with pytest.raises(InvalidArgument, match="look-around"):
        _root([r"foo(?=bar)"])


def test_each_pattern_is_enforced_as_alone() -> None:
    """The issue's bypass, in RE2 syntax: a capture group in the first pattern must not shift the second."""
    root = _root([r"(DROP|TRUNCATE)\s+TABLE", r"(A)A{3,}"])
    assert not root.check(_call({"payload": "AAAA-padding"}), 0).allowed
    assert not root.check(_call({"payload": "x TRUNCATE  TABLE y"}), 0).allowed
    assert root.check(_call({"payload": "AAA"}), 0).allowed


# ---- the property: the combined scan equals one-by-one matching ---------------------------------------

_ATOMS = st.sampled_from(["a", "b", "ab", ".", "[ab]", "[^a]", "\\d", "\\w", "\\s", "-"])


def _pattern() -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}|{t[1]}"),
            inner.map(lambda p: f"({p})"),
            inner.map(lambda p: f"(?:{p})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,3}"])).map(lambda t: f"({t[0]}){t[1]}"),
        )

    body = st.recursive(_ATOMS, grow, max_leaves=6)
    return st.tuples(st.sampled_from(["", "^", "(?i)"]), body, st.sampled_from(["", "$"])).map("".join)


@seed(20261201)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    patterns=st.lists(_pattern(), min_size=1, max_size=6),
    texts=st.lists(st.text(alphabet="abAB 1-\n", max_size=12), min_size=1, max_size=5),
)
def test_combined_scan_matches_one_by_one(patterns: list[str], texts: list[str]) -> None:
    regexes = RegexSet(patterns, "test", "blocked_patterns")
    for text in texts:
        alone = [p for p in patterns if re2.search(p, text)]
        assert regexes.matching(text) == alone
        assert regexes.any_match(text) == bool(alone)
        # The same patterns mean the same in Python's re (the grammar stays in their common subset).
        assert bool(alone) == any(re.search(p, text) for p in patterns)


@seed(20261202)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    patterns=st.lists(_pattern(), min_size=1, max_size=4),
    texts=st.lists(st.text(alphabet="abAB 1-\n", max_size=8), min_size=0, max_size=6),
)
def test_one_search_over_all_texts_answers_as_each_text_alone(patterns: list[str], texts: list[str]) -> None:
    """The joined search (one GIL release per call instead of one per leaf) neither misses a match inside
    one text nor reports one that only straddles two: anchored patterns are searched text by text."""
    regexes = RegexSet(patterns, "test", "blocked_patterns")
    assert regexes.any_match_in(texts) == any(re2.search(p, t) for p in patterns for t in texts)


def test_the_joined_search_is_exact_at_its_edges() -> None:
    straddles = RegexSet([r"a\sb"], "test", "blocked_patterns")
    assert straddles.context_free and not straddles.any_match_in(["xa", "by"])  # "xa\nby" only when joined
    assert straddles.any_match_in(["zz", "a b"])
    anchored = RegexSet([r"^rm"], "test", "blocked_patterns")
    assert not anchored.context_free and anchored.any_match_in(["x", "rm -rf"])  # not at the joined text's start
    word = RegexSet([r"\bDROP"], "test", "blocked_patterns")
    assert not word.context_free and word.any_match_in(["x", "DROP"])
    assert not RegexSet([], "test", "blocked_patterns").any_match_in(["anything"])
