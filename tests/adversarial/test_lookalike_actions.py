"""Look-alike actions: `deny: ['shell.*']` must stop `Shell.exec`, `shell\\u200b.exec` (a zero-width space),
`\u0455hell.exec` (a Cyrillic dze) and full-width `shell.exec`; before, all of them went through."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, error_info, guardrail


@pytest.fixture
def denied(sidecar: RunningSidecar) -> RunningSidecar:
    sidecar.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
    sidecar.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["Deploy"], timeout="1s"))
    return sidecar


@pytest.mark.parametrize(
    "action", ["Shell.exec", "SHELL.EXEC", "\uff53\uff48\uff45\uff4c\uff4c.exec", "\uff53hell.exec"]
)
def test_case_and_compatibility_forms_are_denied(denied: RunningSidecar, action: str) -> None:
    r = denied.stub.CheckAction(check(action=action))
    assert not r.allowed and r.guardrail == "tools"


@pytest.mark.parametrize(
    "action, why",
    [
        ("shell\u200b.exec", "U+200B"),
        ("shell\u202e.exec", "U+202E"),
        ("shell.exec\x00", "U+0000"),
        ("\u0455hell.exec", "mixes letters of CYRILLIC and LATIN"),
    ],
)
def test_invisible_and_mixed_script_actions_are_invalid_argument(denied: RunningSidecar, action: str, why: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        denied.stub.CheckAction(check(action=action))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert why in (err.value.details() or "")
    assert (error_info(err.value).reason, error_info(err.value).metadata["field"]) == ("INVALID_ACTION", "action")


def test_existing_actions_with_spaces_and_other_scripts_keep_working(denied: RunningSidecar) -> None:
    for action in (
        "deploy web-frontend",
        "caf\u00e9.order",
        "\u65e5\u672c\u8a9e\u306e\u30c6\u30b9\u30c8",
        "\ufb01le.read",
    ):
        assert denied.stub.CheckAction(check(action=action)).allowed is not None


def test_case_sensitive_opt_in(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("exact", "action_list", deny=["shell.*"], case_sensitive=True))
    assert sidecar.stub.CheckAction(check(action="Shell.exec")).allowed
    assert not sidecar.stub.CheckAction(check(action="shell.exec")).allowed


def test_strict_charset(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, action_charset="strict")) as s:
        assert s.stub.CheckAction(check(action="mcp/files:read_file-v2.1")).allowed
        for bad in ("deploy web-frontend", "caf\u00e9", "x" * 257, "a;b"):
            with pytest.raises(grpc.RpcError) as err:
                s.stub.CheckAction(check(action=bad))
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "actions.charset: strict" in (err.value.details() or "")
