"""One fleet policy across three sidecar processes, each with its own copy of the policy file: a reload on
one (ReloadPolicy or a real SIGHUP) reaches the others in every section (chain, recovery policies and
cascade, reversibility rules, agent records), a sidecar whose file differs refuses to start unless
`--apply-policy`, and an invalid reload changes nothing anywhere."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import grpc
import pytest
from sqlalchemy import select
from sqlmodel import Session, col

from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as gpb
from outrider.v1 import supervisor_service_pb2 as spb
from server.storage.db import create_db_engine
from server.storage.fleet.policy import SqlFleetPolicyRepository
from server.storage.tables import AuditRow
from tests.integration.rpc import check

from .conftest import _pg
from .harness import SidecarProc, operator_token, wait_until

# NOTIFY gets a reload there in milliseconds, the counter poll within fleet.resync_interval: how fast is
# measured by `make bench`; the suite asserts that it arrives (generous deadlines: a loaded CI machine).


def _policy(tag: str, retries: int, level: str = "irreversible") -> str:
    return (
        "guardrails:\n"
        f"  - {{name: deny-{tag}, kind: action_list, deny: ['{tag}.*']}}\n"
        "recovery:\n"
        f"  policies:\n    - {{group: pol, max_retries: {retries}, escalate_after: {retries}, cooldown: 1s}}\n"
        f"  cascade: {{window: 60s, threshold: {retries + 1}, action: none}}\n"
        "reversibility:\n"
        f"  - {{action: 'rv_{tag}_*', level: {level}, reason: 'policy {tag}'}}\n"
        "agents:\n"
        f"  records:\n    - {{id: pol-record, group: g-{tag}}}\n"
    )


def _observed(s: SidecarProc, tag: str) -> tuple[bool, int, str]:
    """What a sidecar runs, through its RPCs: is `tag.x` blocked, group pol's max_retries, rv_tag_x's level."""
    blocked = not s.supervisor.CheckAction(check(f"pol-agent-{s.name}", f"{tag}.x")).allowed
    retries = s.recovery.GetRecoveryPolicy(rpb.GetRecoveryPolicyRequest(group="pol")).policy.max_retries
    level = s.safeguard.AssessReversibility(gpb.AssessReversibilityRequest(action=f"rv_{tag}_x")).assessment.level
    return blocked, retries, str(level)


def _runs(s: SidecarProc, tag: str, retries: int) -> bool:
    """Every section of policy `tag`: the chain, recovery policies and cascade, reversibility, records."""
    blocked, got_retries, level = _observed(s, tag)
    cascade = s.recovery.GetCascadePolicy(rpb.GetCascadePolicyRequest()).policy.threshold
    group = s.supervisor.GetAgent(spb.GetAgentRequest(agent_id="pol-record")).agent.group
    return (blocked, got_retries, level, cascade, group) == (True, retries, str(_IRREVERSIBLE), retries + 1, f"g-{tag}")


_IRREVERSIBLE = 3  # ReversibilityLevel.REVERSIBILITY_LEVEL_IRREVERSIBLE


def _status(tmp: Path, db_url: str) -> dict[str, object]:
    """What `outrider policy status --json` reports, read straight from the database (a CLI process per
    look is slow on a shared machine; tests/integration/test_fleet_policy_storage.py runs the command)."""
    engine = create_db_engine(db_url)
    try:
        repo = SqlFleetPolicyRepository(engine)
        fleet, applied = repo.get(), repo.applied()
    finally:
        engine.dispose()
    policy = None if fleet is None else {**asdict(fleet), "apply_time": fleet.apply_time.isoformat()}
    return {"policy": policy, "sidecars": [{"sidecar_id": a.sidecar_id, "policy_version": a.version} for a in applied]}


def _audit(db_url: str, action: str) -> list[tuple[str, dict[str, object]]]:
    """The audit records of `action` (actor, details), read straight from the chain's table."""
    engine = create_db_engine(db_url)
    try:
        with Session(engine) as s:
            rows = s.execute(select(AuditRow).where(col(AuditRow.action) == action)).scalars()
            return [(r.actor, dict(r.details)) for r in rows]
    finally:
        engine.dispose()


class PolicyFleet:
    """A, B and C, each started with its own copy of one policy file."""

    def __init__(self, tmp: Path, db_url: str) -> None:
        self.tmp, self.db_url = tmp, db_url
        self.token = operator_token(tmp, db_url)
        self.files = {n: tmp / f"policy-{n}.yaml" for n in "ABC"}
        for f in self.files.values():
            f.write_text(_policy("one", 2))
        procs = [SidecarProc(tmp, db_url, self.token, n, config=self.files[n]) for n in "ABC"]
        self.sidecars = [p.wait_serving(timeout=180) for p in procs]
        self.extra: list[SidecarProc] = []

    def close(self) -> None:
        procs = [*self.sidecars, *self.extra]
        for p in procs:  # all told at once: their shutdowns overlap
            if p.p.poll() is None:
                p.p.send_signal(signal.SIGTERM)
        for p in procs:
            p.close()


@pytest.fixture(scope="module")
def pfleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PolicyFleet]:
    for url in _pg():
        f = PolicyFleet(tmp_path_factory.mktemp("policy"), url)
        try:
            yield f
        finally:
            f.close()


@pytest.mark.timeout(240)  # the module's three sidecars start here, on a shared machine
def test_the_first_sidecar_stores_the_policy_and_all_run_it(pfleet: PolicyFleet) -> None:
    for s in pfleet.sidecars:
        assert _runs(s, "one", 2), s.name
    status = _status(pfleet.tmp, pfleet.db_url)
    policy = status["policy"]
    assert isinstance(policy, dict) and policy["version"] == 1
    versions = {r["sidecar_id"]: r["policy_version"] for r in status["sidecars"]}  # type: ignore[attr-defined]
    assert sorted(versions.values()) == [1, 1, 1]


@pytest.mark.timeout(240)  # `outrider policy status` runs as a process several times, on a shared machine
def test_reload_on_a_reaches_b_and_c_in_every_section(pfleet: PolicyFleet) -> None:
    a, b, c = pfleet.sidecars
    pfleet.files["A"].write_text(_policy("two", 5))  # only A's file changes
    a.supervisor.ReloadPolicy(spb.ReloadPolicyRequest())
    for s in (b, c):
        wait_until(lambda s=s: _runs(s, "two", 5), f"{s.name} runs A's new policy")
    for s in (a, b, c):
        blocked_old, _, level_old = _observed(s, "one")
        assert not blocked_old and level_old != str(_IRREVERSIBLE), s.name  # the old policy is gone everywhere
    status = _status(pfleet.tmp, pfleet.db_url)
    policy = status["policy"]
    assert isinstance(policy, dict) and policy["version"] == 2 and policy["path"] == str(pfleet.files["A"])
    wait_until(
        lambda: sorted(r["policy_version"] for r in _status(pfleet.tmp, pfleet.db_url)["sidecars"]) == [2, 2, 2],  # type: ignore[attr-defined]
        "every sidecar reports version 2",
    )


def test_an_invalid_reload_changes_nothing_anywhere(pfleet: PolicyFleet) -> None:
    a, b, c = pfleet.sidecars
    before = _status(pfleet.tmp, pfleet.db_url)["policy"]
    runs = [_observed(s, "two") for s in (a, b, c)]
    # A valid chain with an invalid recovery section: the chain must not change either.
    pfleet.files["A"].write_text(_policy("three", 7).replace("max_retries: 7", "max_retries: lots"))
    with pytest.raises(grpc.RpcError) as err:
        a.supervisor.ReloadPolicy(spb.ReloadPolicyRequest())
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    details = err.value.details() or ""
    assert str(pfleet.files["A"]) in details and "recovery.policies[0].max_retries" in details, details
    assert "(line 5)" in details, details
    # An unknown guardrail kind (the chain's own error), then YAML that does not parse (named with its line).
    pfleet.files["A"].write_text(_policy("three", 7).replace("kind: action_list", "kind: no_such_kind"))
    with pytest.raises(grpc.RpcError) as err:
        a.supervisor.ReloadPolicy(spb.ReloadPolicyRequest())
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert str(pfleet.files["A"]) in (err.value.details() or "")
    pfleet.files["A"].write_text("guardrails:\n  - {name: x, kind: [\n")
    with pytest.raises(grpc.RpcError) as err:
        a.supervisor.ReloadPolicy(spb.ReloadPolicyRequest())
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "line" in (err.value.details() or ""), err.value.details()
    # A change would have reached the others by now (resync_interval is 0.5 s; nothing to wait for: none
    # comes). A negative: a slow machine can only make it pass vacuously, never fail spuriously.
    time.sleep(1.0)
    assert [_observed(s, "two") for s in (a, b, c)] == runs
    assert not any(_observed(s, "three")[0] for s in (a, b, c))
    assert _status(pfleet.tmp, pfleet.db_url)["policy"] == before


def test_a_real_sighup_to_one_sidecar_applies_fleet_wide(pfleet: PolicyFleet) -> None:
    a, b, c = pfleet.sidecars
    pfleet.files["B"].write_text(_policy("four", 6))
    b.p.send_signal(signal.SIGHUP)
    for s in (a, b, c):
        wait_until(lambda s=s: _runs(s, "four", 6), f"{s.name} runs B's policy after SIGHUP")
    policy = _status(pfleet.tmp, pfleet.db_url)["policy"]
    assert isinstance(policy, dict) and policy["actor"] == "SIGHUP" and policy["path"] == str(pfleet.files["B"])


@pytest.mark.timeout(600)  # two sidecar processes start one after the other, on a shared machine
def test_a_sidecar_with_another_file_refuses_to_start_then_applies_it_with_the_flag(pfleet: PolicyFleet) -> None:
    a, b, c = pfleet.sidecars
    fleet_digest = _status(pfleet.tmp, pfleet.db_url)["policy"]["digest"]  # type: ignore[index]
    other = pfleet.tmp / "policy-D.yaml"
    other.write_text(_policy("five", 9))
    d = SidecarProc(pfleet.tmp, pfleet.db_url, pfleet.token, "D", config=other)
    assert d.p.wait(180) == 2
    d.log.close()
    message = d.log_path.read_text()
    assert "differs from the fleet's policy" in message and "--apply-policy" in message, message
    assert str(fleet_digest)[:12] in message
    assert [_observed(s, "five")[0] for s in (a, b, c)] == [False, False, False]  # the refusal changed nothing

    d = SidecarProc(pfleet.tmp, pfleet.db_url, pfleet.token, "D2", "--apply-policy", config=other).wait_serving(
        timeout=180
    )
    pfleet.extra.append(d)
    for s in (a, b, c, d):
        wait_until(lambda s=s: _runs(s, "five", 9), f"{s.name} runs D's applied policy")
    policy = _status(pfleet.tmp, pfleet.db_url)["policy"]
    assert isinstance(policy, dict) and "(--apply-policy)" in str(policy["actor"])
    # Audited once: one policy.apply record naming the digest and the one who applied it.
    applied = [
        (actor, details) for actor, details in _audit(pfleet.db_url, "policy.apply") if "--apply-policy" in actor
    ]
    assert len(applied) == 1, applied
    assert applied[0][1]["digest"] == policy["digest"] and applied[0][1]["previous_digest"] == fleet_digest


@pytest.mark.timeout(300)  # a sidecar starts, then the module's five stop (teardown), on a shared machine
def test_a_sidecar_without_a_policy_file_follows_the_fleet(pfleet: PolicyFleet) -> None:
    e = SidecarProc(pfleet.tmp, pfleet.db_url, pfleet.token, "E").wait_serving(timeout=180)
    pfleet.extra.append(e)
    assert _runs(e, "five", 9)
