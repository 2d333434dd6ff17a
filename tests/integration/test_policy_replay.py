"""`outrider policy replay` end to end: a scripted day of traffic against a live sidecar with
`decision_log.capture: masked`, then a replay of it through a candidate policy that reports exactly the decisions
whose outcome changes (allowed -> blocked, blocked -> allowed, a different guardrail/reason, "would ask a human"),
counted per guardrail; filters, JSON, --fail-on-change. On SQLite and PostgreSQL (read from the database URL)."""

from __future__ import annotations

import json
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from server.__main__ import main
from server.services.supervisor.decision_log import DecisionLogSettings
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

CANDIDATE = """\
guardrails:
  - {name: watch, kind: cost_cap, max: 5, mode: shadow}
  - {name: tools, kind: action_list, deny: ['shell.rm*']}
  - {name: no-refunds, kind: action_list, deny: ['payments.*']}
  - {name: cap, kind: cost_cap, max: 50}
  - {name: pace, kind: rate_limit, max: 2, window: 1h}
  - {name: review, kind: hitl, patterns: [deploy]}
"""


@pytest.fixture
def day(tmp_path: Path, db_url: str) -> tuple[list[str], dict[str, str]]:
    """Runs the day; returns the database flags for the CLI and the decision id of each named call."""
    clock = FakeClock()
    clock.base = datetime.now(UTC) - timedelta(hours=30) - timedelta(seconds=clock.t)
    settings = DecisionLogSettings(capture="masked", capture_max_bytes=300, flush_interval=0.01)
    ids: dict[str, str] = {}
    with RunningSidecar(make_config(tmp_path, db_url=db_url, decision_log=settings), clock=clock) as s:
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        s.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
        s.stub.AddGuardrail(guardrail("pace", "rate_limit", max=100, window="1h"))

        def call(name: str, agent: str, action: str, **context: Any) -> None:
            ids[name] = s.stub.CheckAction(check(agent_id=agent, action=action, context=context)).decision_id
            clock.advance(600)

        call("too-old", "agent-a", "read", cost=80)  # 30 h ago: outside --since 24h
        clock.advance(8 * 3600)
        call("cheap-read", "agent-a", "read", cost=10)
        call("pricey-read", "agent-a", "read", cost=80)
        call("shell-exec", "agent-b", "shell.exec", cost=1)
        call("shell-rm", "agent-b", "shell.rm", cost=1)
        call("shell-rm-costly", "agent-b", "shell.rm", cost=500)
        call("huge-read", "agent-a", "read", cost=500)
        call("deploy", "agent-c", "deploy.prod", cost=1)
        call("refund", "agent-a", "payments.refund", cost=5)
        call("secret", "agent-a", "read", cost=1, api_key="sk-live")
        call("big", "agent-d", "read", cost=1, blob="x" * 400)
        for i in range(3):  # the candidate's pace allows 2 an hour
            ids[f"pace-{i}"] = s.stub.CheckAction(check(agent_id="agent-e", action="search")).decision_id
            clock.advance(60)
        s.services.decisions.flush()
    # PostgreSQL by its URL (as from another host); SQLite by the URL the sidecar was given.
    return ["--db-url", db_url], ids


def replay(capsys: pytest.CaptureFixture[str], policy: Path, *argv: str) -> tuple[int, Any]:
    code = main(["policy", "replay", "--policy", str(policy), *argv])
    out = capsys.readouterr().out
    return code, (json.loads(out) if "--format" in argv else out)


def test_replay_reports_exactly_the_changed_decisions(
    day: tuple[list[str], dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags, ids = day
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(textwrap.dedent(CANDIDATE))
    code, report = replay(capsys, candidate, *flags, "--format", "json")
    assert code == 0
    changes = {c["decision_id"]: c for c in report["changes"]}
    name_of = {v: k for k, v in ids.items()}
    assert {name_of[d]: (c["change"], c["guardrail"]) for d, c in changes.items()} == {
        "pricey-read": ("allowed -> blocked", "cap"),
        "shell-exec": ("blocked -> allowed", "tools"),
        "shell-rm-costly": ("different guardrail/reason", "tools"),
        "deploy": ("would ask a human", "review"),
        "refund": ("allowed -> blocked", "no-refunds"),
        "pace-2": ("allowed -> blocked", "pace"),
    }
    assert report["by_guardrail"] == {"tools": 2, "cap": 1, "review": 1, "no-refunds": 1, "pace": 1}
    assert (report["replayed"], report["changed"], report["unchanged"]) == (12, 6, 6)
    assert report["skipped"] == {"context truncated at capture": 1}
    costly = changes[ids["shell-rm-costly"]]
    assert costly["before"] == {
        "allowed": False,
        "guardrail": "cap",
        "reason": "Cost 500 is over the cap",
        "needs_approval": False,
    }
    assert costly["after"]["reason"] == "Action 'shell.rm' is denied by tools"
    assert changes[ids["deploy"]]["after"]["needs_approval"]
    assert changes[ids["pricey-read"]]["shadow"] == "would have blocked by watch: Cost 80 is over the cap"

    code, text = replay(capsys, candidate, *flags, "--fail-on-change")
    assert code == 1
    assert text.startswith("replayed 12 decisions: 6 would change, 6 unchanged")
    assert "skipped 1: context truncated at capture" in text
    assert "changes by guardrail: tools 2, cap 1, review 1, no-refunds 1, pace 1" in text
    assert "    now would ask a human (review)" in text

    code, only_b = replay(capsys, candidate, *flags, "--agent", "agent-b", "--format", "json")
    assert {name_of[c["decision_id"]] for c in only_b["changes"]} == {"shell-exec", "shell-rm-costly"}
    assert only_b["replayed"] == 3
    code, shell = replay(capsys, candidate, *flags, "--action", "shell.*", "--format", "json")
    assert shell["replayed"] == 3 and shell["changed"] == 2
    if flags[1].startswith("sqlite"):  # the usual way to name a SQLite database: its data dir
        data_dir = flags[1].removeprefix("sqlite:///").removesuffix("/outrider.db")
        assert replay(capsys, candidate, "--data-dir", data_dir, "--format", "json")[1]["changed"] == 6
    code, everything = replay(capsys, candidate, *flags, "--since", "2d", "--format", "json")
    assert ids["too-old"] in {c["decision_id"] for c in everything["changes"]}


def test_the_same_policy_changes_nothing_and_a_bad_candidate_exits_2(
    day: tuple[list[str], dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags, _ = day
    same = tmp_path / "same.yaml"
    same.write_text(
        "guardrails:\n  - {name: cap, kind: cost_cap, max: 100}\n"
        "  - {name: tools, kind: action_list, deny: ['shell.*']}\n"
        "  - {name: pace, kind: rate_limit, max: 100, window: 1h}\n"
    )
    code, report = replay(capsys, same, *flags, "--fail-on-change", "--format", "json")
    assert (code, report["changed"], report["replayed"]) == (0, 0, 12)
    bad = tmp_path / "bad.yaml"
    bad.write_text("guardrails:\n  - {name: cap, kind: cost_cap, maxx: 1}\n")
    assert main(["policy", "replay", "--policy", str(bad), *flags]) == 2
    assert "maxx" in capsys.readouterr().err
    assert main(["policy", "replay", "--policy", str(same), *flags, "--since", "soon"]) == 2


def test_no_database_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("guardrails: []\n")
    assert main(["policy", "replay", "--policy", str(policy), "--data-dir", str(tmp_path / "nowhere")]) == 2
    assert "no sidecar database" in capsys.readouterr().err
