"""Look-alike actions: `deny: ['shell.*']` must stop `Shell.exec`, `shell\\u200b.exec` (a zero-width space),
`\u0455hell.exec` (a Cyrillic dze) and full-width `shell.exec`; before, all of them went through. Issue 27 adds
leading and trailing whitespace (NBSP too), one-script homoglyphs (a Latin small capital S, all-Cyrillic
`shell`), zero-width joiners, `actions.allowed_scripts` and an action list's `separators`."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2

from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
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


# The look-alikes of issue 27: each went through `deny: ['shell.*']` or `deny: ['shell.exec']` before.
LOOKALIKES = [
    (" shell.exec", "starts with whitespace"),
    ("\u00a0shell.exec", "starts with whitespace"),  # NBSP, a space after NFKC
    ("shell.exec ", "ends with whitespace"),
    ("shell.exec\u2003", "ends with whitespace"),  # an em space
    ("deploy  web-frontend", "run of whitespace"),
    ("\ua731hell.exec", "U+A731"),  # LATIN LETTER SMALL CAPITAL S: one script, looks like `s`
    ("\u0455\u04bb\u0435\u04cf\u04cf.exec", "U+0455"),  # all-Cyrillic `shell`
    ("shell\u200d.exec", "U+200D"),  # a zero-width joiner
    ("shell\u200c.exec", "U+200C"),  # a zero-width non-joiner
    ("shell\u2215exec", "U+2215"),  # a division slash, looks like `/`
]


@pytest.fixture
def exact(sidecar: RunningSidecar) -> RunningSidecar:
    sidecar.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.exec", "shell.*", "shell/exec"]))
    return sidecar


@pytest.mark.parametrize("action, why", LOOKALIKES)
def test_lookalikes_are_invalid_argument_naming_action(exact: RunningSidecar, action: str, why: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        exact.stub.CheckAction(check(action=action))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert why in (err.value.details() or "")
    assert (error_info(err.value).reason, error_info(err.value).metadata["field"]) == ("INVALID_ACTION", "action")


def test_lookalikes_are_refused_on_the_stream_and_by_explain_too(exact: RunningSidecar) -> None:
    requests = [pb.CheckActionsRequest(id=i, check=check(action=a)) for i, (a, _) in enumerate(LOOKALIKES)]
    answers = list(exact.stub.CheckActions(iter(requests)))
    assert len(answers) == len(LOOKALIKES)
    for answer in answers:
        assert answer.WhichOneof("result") == "error", LOOKALIKES[answer.id]
        assert (answer.error.code, answer.error.reason) == (code_pb2.INVALID_ARGUMENT, "INVALID_ACTION")
    for action, why in LOOKALIKES:
        with pytest.raises(grpc.RpcError) as err:
            exact.stub.ExplainAction(pb.ExplainActionRequest(agent_id="agent-1", action=action))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, action
        assert why in (err.value.details() or "")
        assert error_info(err.value).metadata["field"] == "action"


def test_full_width_forms_are_the_name_they_look_like(exact: RunningSidecar) -> None:
    for action in ("\uff53\uff48\uff45\uff4c\uff4c.exec", "shell\uff0eexec"):
        r = exact.stub.CheckAction(check(action=action))
        assert not r.allowed and r.guardrail == "tools"


def test_allowed_scripts_lets_an_operators_script_through(tmp_path: Path) -> None:
    report = "\u043e\u0442\u0447\u0451\u0442.\u0441\u043e\u0437\u0434\u0430\u0442\u044c"  # Russian: report.create
    with RunningSidecar(make_config(tmp_path, action_scripts=frozenset({"Cyrillic"}))) as s:
        assert s.stub.CheckAction(check(action=report)).allowed
        # A word that mixes Cyrillic and Latin letters is still a look-alike; a Greek look-alike too.
        for bad in ("\u0455hell.exec", "\u03bfpen.file"):
            with pytest.raises(grpc.RpcError) as err:
                s.stub.CheckAction(check(action=bad))
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with RunningSidecar(make_config(tmp_path / "default")) as s:
        with pytest.raises(grpc.RpcError) as err:
            s.stub.CheckAction(check(action=report))
        assert "actions.allowed_scripts" in (err.value.details() or "")


def test_slash_and_dot_differ_unless_the_deny_list_says_they_are_alike(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("plain", "action_list", deny=["files.delete"]))
    assert sidecar.stub.CheckAction(check(action="files/delete")).allowed
    sidecar.stub.AddGuardrail(guardrail("alike", "action_list", deny=["shell.exec"], separators=[".", "/"]))
    for action in ("shell/exec", "shell.exec", "Shell/Exec"):
        r = sidecar.stub.CheckAction(check(action=action))
        assert not r.allowed and r.guardrail == "alike", action
    assert sidecar.stub.CheckAction(check(action="shell:exec")).allowed


@pytest.mark.parametrize("separators", [["."], ["*", "/"], ["ab", "/"], [" ", "."]])
def test_bad_separators_are_invalid_argument(sidecar: RunningSidecar, separators: list[str]) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.AddGuardrail(guardrail("bad", "action_list", deny=["x"], separators=separators))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "separators" in (err.value.details() or "")


def test_reversibility_and_plans_refuse_lookalikes_too(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.safeguard.AssessReversibility(
            spb.AssessReversibilityRequest(action="\u0455\u04bb\u0435\u04cf\u04cf.exec")
        )
    assert (err.value.code(), error_info(err.value).metadata["field"]) == (grpc.StatusCode.INVALID_ARGUMENT, "action")
    plan = sg.ExecutionPlan(
        steps=[sg.PlanStep(step_id="a", action="db.read"), sg.PlanStep(step_id="b", action="db.drop ")]
    )
    with pytest.raises(grpc.RpcError) as err:
        sidecar.safeguard.ValidatePlan(spb.ValidatePlanRequest(plan=plan, capabilities=["db.read"]))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).metadata["field"] == "plan.steps[1].action"
