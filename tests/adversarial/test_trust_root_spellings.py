"""The trust root's patterns against other spellings of the same text (issue 27): `rm\\s+-rf` must stop `rm -rf`
written with a zero-width space, in full-width letters, with an NBSP, an em space or an ideographic space,
with a Cyrillic ghe for the `r` and with a minus sign for the `-`, in the action and in any context leaf.
Before, the trust root matched the raw text and all of them went through."""

from __future__ import annotations

import grpc
import pytest

from tests.integration.harness import RunningSidecar
from tests.integration.rpc import check, guardrail

SPELLINGS = [
    "rm\u200b -rf /",  # a zero-width space
    "rm\u2060 -rf /",  # a word joiner
    "\uff52\uff4d -\uff52\uff46 /",  # full-width letters
    "rm\u00a0-rf /",  # NBSP
    "rm\u2003-rf /",  # an em space
    "rm\u3000-rf /",  # an ideographic space
    "\u0433m -rf /",  # a Cyrillic ghe for the r
    "rm \u2212rf /",  # a minus sign
    "rm\u00ad -rf /",  # a soft hyphen (a format character)
]


@pytest.fixture
def rooted(sidecar: RunningSidecar) -> RunningSidecar:
    sidecar.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=[r"rm\s+-rf", "DROP TABLE"]))
    return sidecar


@pytest.mark.parametrize("text", SPELLINGS)
def test_other_spellings_in_a_context_leaf_are_blocked(rooted: RunningSidecar, text: str) -> None:
    r = rooted.stub.CheckAction(check(action="shell.exec", context={"args": {"cmd": [text]}}))
    assert not r.allowed and r.guardrail == "root"
    assert "context.args.cmd[0]" in r.reason and "normal form" in r.reason


def test_a_map_key_and_a_whitespace_run_are_normalised_too(rooted: RunningSidecar) -> None:
    r = rooted.stub.CheckAction(check(context={"DROP\u200b  TABLE users": 1}))
    assert not r.allowed and r.guardrail == "root"
    assert rooted.stub.CheckAction(check(context={"cmd": "ls -la"})).allowed


def test_the_raw_text_is_still_matched(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=["\u200b"]))
    r = sidecar.stub.CheckAction(check(context={"note": "hidden\u200btext"}))
    assert not r.allowed and r.guardrail == "root"


def test_normalize_none_matches_the_raw_text_only(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("raw", "trust_root", blocked_patterns=[r"rm\s+-rf"], normalize="none"))
    for text in SPELLINGS:
        assert sidecar.stub.CheckAction(check(context={"cmd": text})).allowed, text
    assert not sidecar.stub.CheckAction(check(context={"cmd": "rm  -rf /"})).allowed


def test_an_unknown_normalize_is_invalid_argument(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.AddGuardrail(guardrail("raw", "trust_root", blocked_patterns=["x"], normalize="nfc"))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "normalize" in (err.value.details() or "")
