"""Agent records set by operators outside RPC: declared in the policy file (`agents.records`, applied at start
and on every reload, all or nothing with the rest of the policy, the file winning over RPC changes) and set
with `outrider agents set|show|list` on the database of a running sidecar. An agent credential still never
changes them; each change is an audit record."""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import supervisor_service_pb2 as pb
from server.config import load_config
from tests.integration.harness import RunningSidecar
from tests.integration.recovery_sim import eventually
from tests.integration.rpc import check, guardrail

from .helpers import agent, refused

POLICY = """\
guardrails:
  - {{name: interns, kind: action_list, deny: ['shell.*'], groups: [interns]}}
  - {{name: cap, kind: cost_cap, max: {cap}}}
agents:
  records:
    - id: mallory
      group: {group}
      labels: {{owner: alice}}
      capabilities: [read]
{extra}"""


def write(path: Path, group: str = "interns", cap: int = 5, extra: str = "") -> Path:
    path.write_text(POLICY.format(group=group, cap=cap, extra=extra), encoding="utf-8")
    return path


def record(s: Any, agent_id: str) -> tuple[str, dict[str, str], list[str]]:
    a = s.stub.GetAgent(pb.GetAgentRequest(agent_id=agent_id)).agent
    return a.group, dict(a.labels), list(a.capabilities)


def shell_allowed(s: RunningSidecar, agent_id: str = "mallory") -> bool:
    return bool(s.stub.CheckAction(check(agent_id, "shell.exec")).allowed)


def audited(s: RunningSidecar, subject: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [(r.actor, r.action, r.details) for r in s.services.audit.repo.iter_all() if r.subject == subject]


@pytest.fixture
def declared(tmp_path: Path) -> Any:
    path = write(tmp_path / "outrider.yaml")
    overrides = {"listen": "127.0.0.1:0", "console_enabled": False, "data_dir": tmp_path / "data"}
    with RunningSidecar(load_config(str(path), overrides, env={})) as s:  # as `outrider serve --config` reads it
        yield s, path


def test_policy_file_records_are_enforced_by_a_group_deny_list(declared: Any) -> None:
    s, path = declared
    assert record(s, "mallory") == ("interns", {"owner": "alice"}, ["read"])
    assert not shell_allowed(s)
    me = s.as_agent("mallory")
    for field, request in (
        ("agent.group", agent("mallory", "ops")),
        ("agent.labels", agent("mallory", owner="mallory")),
        ("agent.capabilities", agent("mallory", capabilities=("read", "deploy"))),
    ):
        info = refused(lambda request=request: me.stub.RegisterAgent(request))
        assert (info.reason, info.metadata["field"]) == ("OPERATOR_OWNED_FIELD", field)
    assert not me.stub.CheckAction(check("mallory", "shell.exec")).allowed
    declared = {"group": "interns", "labels": {"owner": "alice"}, "capabilities": ["read"], "source": str(path)}
    assert audited(s, "mallory") == [("policy", "agent.register", declared)]


def test_reload_changes_records_and_the_file_wins_over_rpc(declared: Any) -> None:
    s, path = declared
    s.stub.RegisterAgent(agent("mallory", "ops", ("read",), owner="alice"))  # an operator moves it by RPC
    assert shell_allowed(s)
    s.stub.ReloadPolicy(pb.ReloadPolicyRequest())  # the file still says interns: the file wins
    assert record(s, "mallory")[0] == "interns" and not shell_allowed(s)
    write(path, group="ops")
    s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
    assert record(s, "mallory") == ("ops", {"owner": "alice"}, ["read"]) and shell_allowed(s)
    updates = [
        (actor, d["changed"], d.get("source")) for actor, action, d in audited(s, "mallory") if action == "agent.update"
    ]
    assert updates == [
        ("operator:test-operator", ["group"], None),
        ("policy", ["group"], str(path)),
        ("policy", ["group"], str(path)),
    ]  # fmt: skip


def test_a_broken_record_keeps_the_whole_old_policy(declared: Any) -> None:
    s, path = declared
    # Another cap and another group, but one record is broken: nothing of it applies.
    write(path, group="ops", cap=50, extra="    - {id: 'evil:db', group: ops}\n")
    with pytest.raises(grpc.RpcError) as err:
        s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "agents.records[1].id" in (err.value.details() or "")
    assert record(s, "mallory")[0] == "interns" and not shell_allowed(s)
    assert s.stub.CheckAction(check("someone", "x", context={"cost": 6})).allowed is False  # cap 5 stays
    for bad, key in (
        ("    - {id: mallory, group: ops}\n", "agents.records[1].id"),  # declared twice
        ("    - {id: w2, tier: gold}\n", "agents.records[1].tier"),
        ("    - {id: w2, labels: [owner]}\n", "agents.records[1].labels"),
    ):
        write(path, extra=bad)
        with pytest.raises(grpc.RpcError) as err:
            s.stub.ReloadPolicy(pb.ReloadPolicyRequest())
        assert key in (err.value.details() or ""), err.value.details()


def test_the_policy_file_wins_again_at_start(tmp_path: Path) -> None:
    path = write(tmp_path / "outrider.yaml")
    overrides = {"listen": "127.0.0.1:0", "console_enabled": False, "data_dir": tmp_path / "data"}
    with RunningSidecar(load_config(str(path), overrides, env={})) as s:
        s.stub.RegisterAgent(agent("mallory", "ops", owner="bob"))
        s.stub.RegisterAgent(agent("undeclared", "ops"))
    with RunningSidecar(load_config(str(path), overrides, env={})) as s:
        assert record(s, "mallory") == ("interns", {"owner": "alice"}, ["read"])
        assert record(s, "undeclared")[0] == "ops"  # records the file does not declare stay as they are


# ---- the CLI --------------------------------------------------------------------------------------


def cli(s: RunningSidecar, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`outrider agents ...` in process, on the running sidecar's database and data dir (its audit key)."""
    from server.__main__ import _config, _parser
    from server.cli.agents import run_agents

    args = _parser().parse_args(
        ["agents", *argv, "--db-url", s.config.database_url(), "--data-dir", str(s.config.data_dir)]
    )
    code = run_agents(args, _config(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_sets_records_that_a_running_sidecar_enforces(
    sidecar_any_db: RunningSidecar, capsys: pytest.CaptureFixture[str]
) -> None:
    s = sidecar_any_db
    s.stub.AddGuardrail(guardrail("interns", "action_list", deny=["shell.*"], groups=["interns"]))
    assert shell_allowed(s)  # unregistered: no group, the deny list does not apply
    code, out, _ = cli(s, "set", "mallory", "--group", "interns", "--label", "owner=alice", "--capability", "read",
                       capsys=capsys)  # fmt: skip
    assert code == 0 and out.startswith("registered mallory in interns")
    eventually(lambda: not shell_allowed(s), what="the sidecar seeing the CLI's record")  # polled every 250 ms
    assert record(s, "mallory") == ("interns", {"owner": "alice"}, ["read"])

    code, out, _ = cli(s, "show", "mallory", "--json", capsys=capsys)
    shown = json.loads(out)
    assert code == 0 and (shown["group"], shown["labels"], shown["standing"]) == (
        "interns",
        {"owner": "alice"},
        "active",
    )
    code, out, _ = cli(s, "list", "--group", "interns", capsys=capsys)
    assert code == 0 and [line.split()[:3] for line in out.splitlines()[1:]] == [["mallory", "interns", "active"]]

    code, out, _ = cli(s, "set", "mallory", "--group", "ops", "--label", "tier=gold", "--remove-label", "owner",
                       "--capability", "deploy", capsys=capsys)  # fmt: skip
    assert code == 0 and out.startswith("updated mallory in ops")
    eventually(lambda: shell_allowed(s), what="the sidecar seeing the CLI's change")
    assert record(s, "mallory") == ("ops", {"tier": "gold"}, ["read", "deploy"])
    actor = f"cli:{getpass.getuser()}"
    assert [(a, action) for a, action, _ in audited(s, "mallory")] == [
        (actor, "agent.register"),
        (actor, "agent.update"),
    ]
    # Bad input names the problem; nothing changes.
    code, _, err = cli(s, "set", "evil:db", capsys=capsys)
    assert code == 1 and "may not contain ':'" in err
    code, _, err = cli(s, "set", "mallory", "--label", "owner", capsys=capsys)
    assert code == 1 and "KEY=VALUE" in err
    code, _, err = cli(s, "show", "nobody", capsys=capsys)
    assert code == 1 and "not registered" in err
    assert s.services.audit.verify().ok  # the CLI's records are sealed with the sidecar's key


def test_the_cli_warns_when_the_policy_file_declares_the_agent(
    declared: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    s, path = declared
    from server.__main__ import _config, _parser
    from server.cli.agents import run_agents

    args = _parser().parse_args(
        ["agents", "set", "mallory", "--group", "ops", "--config", str(path), "--data-dir", str(s.config.data_dir)]
    )
    assert run_agents(args, _config(args)) == 0
    err = capsys.readouterr().err
    assert "declares mallory in agents.records" in err and "next start or policy reload" in err
