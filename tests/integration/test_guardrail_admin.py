"""AddGuardrail / RemoveGuardrail / ListGuardrails / ReloadPolicy: persisted, validated, restart-proof."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import grpc
import pytest

from outrider.v1 import supervisor_service_pb2 as pb
from server.config import load_config

from .harness import RunningSidecar, make_config
from .rpc import check, error_info, guardrail


def names(s: RunningSidecar) -> list[str]:
    return [g.name for g in s.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]


def test_add_appends_and_reports_position(sidecar: RunningSidecar) -> None:
    r1 = sidecar.stub.AddGuardrail(guardrail("a", "cost_cap", max=1))
    r2 = sidecar.stub.AddGuardrail(guardrail("b", "action_list", deny=["x"]))
    assert (r1.position, r2.position) == (0, 1)
    assert r2.guardrail.source == "runtime" and dict(r2.guardrail.options)["deny"] == ["x"]
    assert names(sidecar) == ["a", "b"]


def test_remove_removes_every_guardrail_with_the_name(sidecar: RunningSidecar) -> None:
    for n in ("dup", "keep", "dup"):
        sidecar.stub.AddGuardrail(guardrail(n, "cost_cap", max=1))
    assert sidecar.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="dup")).removed_count == 2
    assert names(sidecar) == ["keep"]
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="dup"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND and "dup" in (err.value.details() or "")


def test_trust_root_cannot_be_removed_over_grpc(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=["x"]))
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="root"))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err.value).reason == "TRUST_ROOT_IMMUTABLE"
    assert names(sidecar) == ["root"]


@pytest.mark.parametrize(
    "request_, field, text",
    [
        (
            guardrail("root", "trust_root", blocked_patterns=["(unclosed"]),
            "blocked_patterns",
            "invalid regular expression",
        ),
        (guardrail("x", "no_such_kind"), "kind", "unknown guardrail kind"),
        (guardrail("", "cost_cap", max=1), "name", "guardrail name"),
        (guardrail("cap", "cost_cap", max="a lot"), "max", "must be a number"),
        (guardrail("cap", "cost_cap", max=1, typo=2), "typo", "unknown option"),
        (guardrail("p", "plugin", **{"class": "no.such.module:Thing"}), "class", "not in the policy file's plugins"),
        (guardrail("p", "plugin", **{"class": "tests.plugins:Nothing"}), "class", "has no attribute"),
    ],
)
def test_bad_guardrails_are_invalid_argument(
    sidecar: RunningSidecar, request_: pb.AddGuardrailRequest, field: str, text: str
) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.AddGuardrail(request_)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert text in (err.value.details() or "")
    assert error_info(err.value).metadata["field"] == field
    assert names(sidecar) == []


def test_changes_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config) as s:
        s.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=["secret"]))
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=10))
        s.stub.AddGuardrail(guardrail("gone", "cost_cap", max=10))
        s.stub.RemoveGuardrail(pb.RemoveGuardrailRequest(name="gone"))
    with RunningSidecar(config) as s:
        assert names(s) == ["root", "cap"]
        assert s.stub.CheckAction(check(context={"cost": 11})).reason == "Cost 11 is over the cap"
        assert s.stub.CheckAction(check(context={"note": "secret"})).guardrail == "root"


POLICY = """
guardrails:
  - {name: root, kind: trust_root, blocked_patterns: ['(?i)rm\\s+-rf']}
  - {name: cost-cap, kind: cost_cap, key: cost, max: 100}
  - {name: mine, kind: plugin, class: "tests.plugins:NoFridays"}
"""


def write_policy(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


def test_policy_file_builds_the_chain(tmp_path: Path) -> None:
    policy = write_policy(tmp_path / "outrider.yaml", POLICY)
    with RunningSidecar(make_config(tmp_path, config_path=policy)) as s:
        gs = s.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails
        assert [(g.name, g.kind, g.source) for g in gs] == [
            ("root", "trust_root", "policy"),
            ("cost-cap", "cost_cap", "policy"),
            ("mine", "plugin", "policy"),
        ]
        assert not s.stub.CheckAction(check(context={"weekday": "Friday"})).allowed
        assert s.stub.CheckAction(check(context={"weekday": "Monday"})).allowed


def test_reload_applies_the_file_and_a_broken_file_keeps_the_old_chain(tmp_path: Path) -> None:
    policy = write_policy(tmp_path / "outrider.yaml", POLICY)
    with RunningSidecar(make_config(tmp_path, config_path=policy)) as s:
        write_policy(policy, "guardrails:\n  - {name: only, kind: cost_cap, max: 5}\n")
        r = s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert (r.guardrail_count, r.source) == (1, str(policy))
        assert names(s) == ["only"]

        write_policy(
            policy,
            "guardrails:\n  - {name: a, kind: cost_cap, max: 5}\n  - {name: b, kind: trust_root,"
            " blocked_patterns: ['(bad']}\n",
        )
        with pytest.raises(grpc.RpcError) as err:
            s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        details = err.value.details() or ""
        assert str(policy) in details and "guardrails[1]" in details and "invalid regular expression" in details
        assert names(s) == ["only"]
        assert s.stub.CheckAction(check(context={"cost": 6})).reason == "Cost 6 is over the cap"

        write_policy(policy, "guardrails: [oops\n")
        with pytest.raises(grpc.RpcError) as err:
            s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "not valid YAML" in (err.value.details() or "")
        assert names(s) == ["only"]


def test_runtime_changes_survive_restart_until_the_file_changes(tmp_path: Path) -> None:
    policy = write_policy(tmp_path / "outrider.yaml", POLICY)
    config = make_config(tmp_path, config_path=policy)
    with RunningSidecar(config) as s:
        s.stub.AddGuardrail(guardrail("extra", "cost_cap", max=1))
    with RunningSidecar(config) as s:
        assert names(s) == ["root", "cost-cap", "mine", "extra"]
    write_policy(policy, "guardrails:\n  - {name: fresh, kind: cost_cap, max: 5}\n")
    with RunningSidecar(config) as s:
        assert names(s) == ["fresh"]


def test_reload_without_a_policy_file_is_failed_precondition(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.ReloadPolicy(pb.ReloadPolicyRequest())
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_chain_changed_by_another_process_is_picked_up(tmp_path: Path, db_url: str) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("several sidecars share a database only on PostgreSQL (SQLite is locked to one)")
    config = make_config(tmp_path, db_url=db_url)
    with RunningSidecar(config) as a, RunningSidecar(config) as b:
        a.stub.AddGuardrail(guardrail("cap", "cost_cap", max=5))
        deadline = time.monotonic() + 30
        while names(b) != ["cap"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert names(b) == ["cap"]
        assert b.stub.CheckAction(check(context={"cost": 6})).reason == "Cost 6 is over the cap"


def test_reload_also_applies_the_recovery_and_reversibility_sections(tmp_path: Path) -> None:
    from outrider.v1 import recovery_service_pb2 as rpb
    from outrider.v1 import safeguard_pb2
    from outrider.v1 import safeguard_service_pb2 as spb

    def file(max_retries: int, level: str, extra: str = "") -> str:
        return (
            "guardrails:\n  - {name: cap, kind: cost_cap, max: 5}\n"
            f"recovery:\n  policies:\n    - {{group: blue, max_retries: {max_retries}, escalate_after: 2}}\n{extra}"
            f"reversibility:\n  - {{action: 'migrate_*', level: {level}, reason: ours}}\n"
        )

    policy = write_policy(tmp_path / "outrider.yaml", file(5, "irreversible"))
    overrides = {"listen": "127.0.0.1:0", "console_enabled": False, "data_dir": tmp_path / "data"}
    with RunningSidecar(load_config(str(policy), overrides, env={})) as s:  # as `outrider serve --config` reads it

        def retries() -> int:
            return s.recovery.GetRecoveryPolicy(rpb.GetRecoveryPolicyRequest(group="blue")).policy.max_retries

        def level() -> int:
            return s.safeguard.AssessReversibility(
                spb.AssessReversibilityRequest(action="migrate_users")
            ).assessment.level

        assert (retries(), level()) == (5, safeguard_pb2.REVERSIBILITY_LEVEL_IRREVERSIBLE)
        write_policy(policy, file(7, "fully_reversible"))
        s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert (retries(), level()) == (7, safeguard_pb2.REVERSIBILITY_LEVEL_FULLY_REVERSIBLE)
        # A broken section anywhere keeps all of the old policy, the chain included.
        write_policy(policy, file(9, "fully_reversible", "  cascade: {threshold: lots}\n").replace("max: 5", "max: 6"))
        with pytest.raises(grpc.RpcError) as err:
            s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "recovery.cascade" in (
            err.value.details() or ""
        )
        assert retries() == 7
        assert s.stub.CheckAction(check(context={"cost": 6})).reason == "Cost 6 is over the cap"
