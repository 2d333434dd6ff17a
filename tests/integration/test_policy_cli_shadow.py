"""Shadow verdicts in `outrider policy explain` and `outrider policy test` (text and JSON), through the real
command: a shadow guardrail is marked, never decides, and gives the shadow outcome; suites can expect it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from server.__main__ import main

POLICY = """\
guardrails:
  - {name: candidate, kind: action_list, deny: ['shell.*'], mode: shadow}
  - {name: review, kind: hitl, patterns: [deploy], mode: shadow}
  - {name: cap, kind: cost_cap, key: cost, max: 100}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["policy", *argv])
    return code, capsys.readouterr().out


def test_explain_marks_shadow_guardrails_and_prints_the_shadow_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(POLICY)
    call = json.dumps({"agent_id": "a", "action": "shell.exec", "context": {"cost": 1}})
    code, out = run(capsys, "explain", "--policy", str(policy), "--input", call)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "   1. candidate (action_list) [shadow]: BLOCK: Action 'shell.exec' is denied by candidate"
        + lines[0][lines[0].index("  [") :]
    )
    assert lines[1] == "   2. review (hitl) [shadow]: not evaluated"
    assert lines[2].startswith("-> 3. cap (cost_cap): INFO")
    assert lines[3] == "answer: allowed by cap"
    assert lines[4] == "shadow: would have blocked by candidate: Action 'shell.exec' is denied by candidate"

    code, out = run(capsys, "explain", "--policy", str(policy), "--input", call, "--format", "json")
    data = json.loads(out)
    assert (data["allowed"], data["guardrail"]) == (True, "cap")
    assert data["shadow"]["guardrail"] == "candidate" and not data["shadow"]["needs_approval"]
    assert [g.get("shadow", False) for g in data["guardrails"]] == [True, True, False]

    deploy = json.dumps({"agent_id": "a", "action": "deploy", "context": {"cost": 1}})
    data = json.loads(run(capsys, "explain", "--policy", str(policy), "--input", deploy, "--format", "json")[1])
    assert data["allowed"] and not data["needs_approval"]  # a shadow hitl does not make the answer wait
    assert data["shadow"]["summary"] == "would have asked a human (review)"


def test_suites_expect_shadow_outcomes_and_report_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.yaml").write_text(POLICY)
    suite = """\
        cases:
          - name: shell is only shadowed
            input: {action: shell.exec, context: {cost: 1}}
            expect: {allowed: true, guardrail: cap, shadow: candidate}
          - name: reads have no shadow outcome
            input: {action: read, context: {cost: 1}}
            expect: {allowed: true, shadow: false}
          - name: a wrong expectation fails
            input: {action: read, context: {cost: 1}}
            expect: {shadow: candidate}
        """
    (tmp_path / "p_test.yaml").write_text(textwrap.dedent(suite))
    code, out = run(capsys, "test", str(tmp_path / "p_test.yaml"))
    assert code == 1
    assert "shadow: would have blocked by candidate: Action 'shell.exec' is denied by candidate" in out
    assert "expected shadow 'candidate', got None" in out
    assert "2 passed, 1 failed" in out
    assert "never decided a case: review" in out  # candidate counts: it gave a shadow outcome
    code, out = run(capsys, "test", str(tmp_path / "p_test.yaml"), "--format", "json")
    cases = json.loads(out)["cases"]
    assert [c["shadow"] for c in cases] == [
        ["would have blocked by candidate: Action 'shell.exec' is denied by candidate"],
        [],
        [],
    ]
