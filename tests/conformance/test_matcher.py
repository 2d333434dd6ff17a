"""The matching rules of the conformance drivers (tests/conformance/README.md), on the Python driver."""

from __future__ import annotations

from typing import Any

import pytest

from .driver import StepFailure, lookup, match, substitute


@pytest.mark.parametrize(
    "expected, actual",
    [
        ({"allowed": False, "reason": "", "position": 0, "warnings": [], "agent": {}}, {}),
        ({"severity": "SEVERITY_BLOCK"}, {"severity": "SEVERITY_BLOCK", "extra": 1}),
        ({"count": 2}, {"count": 2.0}),
        ({"reason": {"$contains": "over the cap"}}, {"reason": "Cost 140 is over the cap"}),
        ({"id": {"$matches": "^[0-9a-f]{4}$"}}, {"id": "00ff"}),
        ({"warnings": [{"guardrail": "w1"}]}, {"warnings": [{"guardrail": "w1", "reason": "r"}]}),
    ],
)
def test_matches(expected: Any, actual: Any) -> None:
    assert match(expected, actual, "response") == []


@pytest.mark.parametrize(
    "expected, actual, problem",
    [
        ({"allowed": True}, {}, "response.allowed: expected true, got nothing"),
        ({"allowed": 1}, {"allowed": True}, "response.allowed: expected 1, got true"),
        ({"created": "false"}, {"created": False}, 'response.created: expected "false", got false'),
        ({"warnings": []}, {"warnings": [{"guardrail": "w"}]}, "response.warnings: expected 0 items"),
        ({"reason": {"$contains": "x"}}, {}, 'response.reason: expected $contains "x", got ""'),
        ({"reason": {"$matches": "^a"}}, {"reason": 3}, "response.reason: expected a string for $matches"),
        ({"a": {"$nope": 1}}, {"a": "b"}, "response.a: unknown matcher $nope"),
        ({"agent": {"group": "g"}}, {"agent": "x"}, "response.agent: expected an object"),
    ],
)
def test_mismatches(expected: Any, actual: Any, problem: str) -> None:
    problems = match(expected, actual, "response")
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_substitute_and_lookup() -> None:
    doc = {"token": {"tokenId": "tok_1"}, "items": [{"n": 2.0}], "ok": True}
    variables = {"id": lookup(doc, "token.tokenId"), "n": lookup(doc, "items.0.n")}
    assert variables == {"id": "tok_1", "n": "2"}
    assert substitute({"a": ["${id}-${n}", 5]}, variables) == {"a": ["tok_1-2", 5]}
    for bad in ("token.missing", "items.1.n", "ok"):
        with pytest.raises(StepFailure):
            lookup(doc, bad)
    with pytest.raises(StepFailure, match=r"unknown variable \$\{nope\}"):
        substitute("${nope}", variables)
