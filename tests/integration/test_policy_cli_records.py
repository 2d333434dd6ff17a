"""`outrider policy lint|test` on a policy that declares agent records (`agents.records`): the suite's cases
see the declared records (fixtures may add or override them), and an invalid record is reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from server.__main__ import main

POLICY = """\
guardrails:
  - {name: interns, kind: action_list, deny: ['shell.*'], groups: [interns]}
agents:
  records:
    - {id: mallory, group: interns, labels: {owner: alice}}
    - {id: ops-bot, group: ops}
"""

SUITE = """\
policy: chain.yaml
fixtures:
  agents:
    - {id: ops-bot, group: interns}
cases:
  - name: a declared intern is held by its group's deny list
    input: {agent_id: mallory, action: shell.exec}
    expect: {allowed: false, guardrail: interns}
  - name: a fixture overrides the declared record
    input: {agent_id: ops-bot, action: shell.exec}
    expect: {allowed: false, guardrail: interns}
  - name: an undeclared agent has no group
    input: {agent_id: stranger, action: shell.exec}
    expect: {allowed: true}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["policy", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_lint_and_test_accept_declared_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = write(tmp_path, "chain.yaml", POLICY)
    code, out, _ = run(capsys, "lint", str(policy))
    assert code == 0, out
    suite = write(tmp_path, "chain_test.yaml", SUITE)
    code, out, err = run(capsys, "test", str(suite))
    assert code == 0, out + err
    # Without the fixture, the declared record puts ops-bot in ops: the second case then fails.
    write(tmp_path, "chain_test.yaml", SUITE.replace("    - {id: ops-bot, group: interns}\n", ""))
    code, out, _ = run(capsys, "test", str(suite))
    assert code == 1 and "a fixture overrides the declared record" in out


def test_an_invalid_record_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = write(tmp_path, "chain.yaml", POLICY.replace("group: ops}", "group: 'bad group'}"))
    code, out, err = run(capsys, "lint", str(policy))
    assert code == 1 and "agents.records[1].group" in out + err
    suite = write(tmp_path, "chain_test.yaml", SUITE)
    code, out, err = run(capsys, "test", str(suite))
    assert code == 2 and "agents.records[1].group" in out + err
