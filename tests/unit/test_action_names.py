"""Action names and the trust root's normal forms on their own (no server): the look-alike rules of issue 27."""

from __future__ import annotations

import pytest

from server.domain.actions import ActionRules, ascii_lookalikes, canonical_action, script_names
from server.domain.errors import InvalidArgument
from server.domain.guardrails.action_list import ActionList
from server.domain.guardrails.base import ActionCall, GuardrailSpec
from server.domain.guardrails.trust_root import TrustRoot, normal_forms

CYRILLIC_SHELL = "\u0455\u04bb\u0435\u04cf\u04cf.exec"


@pytest.mark.parametrize(
    "action",
    [" a", "\u00a0a", "a ", "a\u3000", "a  b", "\ua731hell", CYRILLIC_SHELL, "a\u200db", "shell\u2215exec", "\u0131d"],
)
def test_lookalikes_are_refused_naming_the_field(action: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        canonical_action(action, field="check.action")
    assert (err.value.field, err.value.reason) == ("check.action", "INVALID_ACTION")


@pytest.mark.parametrize(
    "action, canonical",
    [
        ("files.read", "files.read"),
        ("deploy web-frontend", "deploy web-frontend"),
        ("deploy\u00a0web", "deploy web"),  # one NBSP inside is one space
        ("\uff53hell.exec", "shell.exec"),
        ("caf\u00e9.order", "caf\u00e9.order"),
        ("\u65e5\u672c\u8a9e\u306e\u30c6\u30b9\u30c8", "\u65e5\u672c\u8a9e\u306e\u30c6\u30b9\u30c8"),
    ],
)
def test_valid_names_keep_their_canonical_form(action: str, canonical: str) -> None:
    assert canonical_action(action) == canonical


def test_an_allowed_script_may_look_like_ascii_but_never_mix() -> None:
    rules = ActionRules(allowed_scripts=script_names(["cyrl"]))
    assert rules.canonical(CYRILLIC_SHELL) == CYRILLIC_SHELL
    with pytest.raises(InvalidArgument):
        rules.canonical("\u0455hell.exec")  # Cyrillic and Latin in one word
    with pytest.raises(InvalidArgument):
        rules.canonical("\u03bfpen")  # Greek is not allowed
    with pytest.raises(InvalidArgument):
        script_names(["Klingon"])


def test_ascii_lookalikes_maps_only_non_ascii() -> None:
    assert ascii_lookalikes("\u0433m \u2212rf") == "rm -rf"
    assert ascii_lookalikes("rm -rf") == "rm -rf"  # ASCII `m` is not turned into `rn`
    assert ascii_lookalikes("caf\u00e9") == "caf\u00e9"


def test_normal_forms() -> None:
    assert normal_forms("plain words") == []
    assert normal_forms("tab\there") == ["tab here"]
    assert normal_forms("rm\u200b\u00a0-rf") == ["rm -rf"]
    assert normal_forms("\u0433m -rf") == ["\u0433m -rf".replace("\u0433", "r")]


def _call(action: str = "act", context: dict[str, object] | None = None) -> ActionCall:
    return ActionCall("agent-1", action, context or {}, {}, None)


def test_a_large_non_ascii_leaf_is_normalised_and_matched() -> None:
    root = TrustRoot(GuardrailSpec("root", "trust_root", {"blocked_patterns": [r"rm\s+-rf"]}))
    text = "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 " * 50_000
    assert root.check(_call(context={"note": text}), 0.0).allowed
    assert not root.check(_call(context={"note": text + "\u0433m\u200b -rf"}), 0.0).allowed


def test_separators_make_slash_and_dot_one() -> None:
    alike = ActionList(GuardrailSpec("a", "action_list", {"deny": ["shell.exec"], "separators": [".", "/"]}))
    plain = ActionList(GuardrailSpec("p", "action_list", {"deny": ["shell.exec"]}))
    assert not alike.check(_call("shell/exec"), 0.0).allowed
    assert plain.check(_call("shell/exec"), 0.0).allowed
    assert not plain.check(_call("shell.exec"), 0.0).allowed
