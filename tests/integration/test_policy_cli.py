"""`outrider policy test|explain|lint` end to end: suites that pass and fail with the right exit codes, JSON and
JUnit output, hitl decide scripts, stateful sequences on the suite's clock, coverage, file:line for invalid input;
and the project's own example policy suite (this is how `make test` runs it)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from server.__main__ import main

ROOT = Path(__file__).resolve().parents[2]

POLICY = """\
guardrails:
  - {name: cap, kind: cost_cap, key: cost, max: 100}
  - {name: tools, kind: action_list, deny: ['shell.*']}
  - {name: pace, kind: rate_limit, max: 2, window: 60s}
  - {name: approval, kind: hitl, patterns: [deploy]}
  - {name: budget, kind: budget, key: tokens}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["policy", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    return write(tmp_path, "chain.yaml", POLICY)


def test_the_example_policy_suite_passes() -> None:
    """The suite beside outrider.example.yaml, through the real command."""
    r = subprocess.run(
        [sys.executable, "-m", "server", "policy", "test", "outrider.example_test.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "6 passed, 0 failed" in r.stdout


def test_the_conditions_example_suite_passes() -> None:
    """examples/policies/conditions.yaml (the "Why" examples of conditions, one line each) against its suite."""
    r = subprocess.run(
        [sys.executable, "-m", "server", "policy", "test", "examples/policies/conditions_test.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "15 passed, 0 failed" in r.stdout


def test_passing_suite_with_hitl_decisions_sequences_and_fixtures(
    tmp_path: Path, policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        "chain_test.yaml",
        """\
        fixtures:
          agents: [{id: a1, group: ops}]
          budgets: [{agent: a1, tokens: 100}]
        cases:
          - name: over the cap
            input: {agent_id: a1, action: search, context: {cost: 140}}
            expect: {allowed: false, guardrail: cap, reason: "Cost 140 is over the cap"}
          - name: deploy waits for a human
            input: {agent_id: a1, action: deploy-prod}
            expect: {pending: true, allowed: false, guardrail: approval}
          - name: deploy approved by alice
            input: {agent_id: a1, action: deploy-prod}
            decide: {approve: true, by: alice}
            expect: {pending: false, allowed: true, guardrail: budget}  # the approval let the chain go on
          - name: deploy rejected
            input: {agent_id: a1, action: deploy-prod}
            decide: {approve: false, by: bob, comment: "not today"}
            expect: {allowed: false, guardrail: approval, reason_matches: "(?i)reject"}
          - name: rate limit over a sequence, then the window passes
            steps:
              - {input: {agent_id: a1, action: search}, expect: {allowed: true}}
              - {input: {agent_id: a1, action: search}, expect: {allowed: true}}
              - input: {agent_id: a1, action: search}
                expect: {allowed: false, guardrail: pace, reason_matches: "^Rate limit exceeded"}
              - advance: 61s
              - {input: {agent_id: a1, action: search}, expect: {allowed: true}}
          - name: the budget fixture applies
            input: {agent_id: a1, action: llm, context: {tokens: 500}}
            expect: {allowed: false, guardrail: budget, reason_matches: "do not fit"}
        """,
    )
    code, out, _ = run(capsys, "test", str(tmp_path))
    assert code == 0, out
    assert "6 passed, 0 failed" in out
    # `tools` decided no case: the coverage summary says so.
    assert "never decided a case: tools" in out


def test_failing_case_exit_1_with_junit_and_json(
    tmp_path: Path, policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        "chain_test.yaml",
        """\
        cases:
          - name: passes
            input: {action: shell.exec}
            expect: {allowed: false, guardrail: tools}
          - name: wrong expectation
            input: {action: search, context: {cost: 5}}
            expect: {allowed: false}
        """,
    )
    code, out, _ = run(capsys, "test", "--format", "junit", str(tmp_path / "chain_test.yaml"))
    assert code == 1
    root = ET.fromstring(out.split("?>", 1)[1])
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    cases = root.findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == ["passes", "wrong expectation"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and "chain_test.yaml:7: expected allowed False, got True" in str(failure.get("message"))

    code, out, _ = run(capsys, "test", "--format", "json", str(tmp_path))
    report = json.loads(out)
    assert code == 1 and (report["passed"], report["failed"]) == (1, 1)
    assert [c["passed"] for c in report["cases"]] == [True, False]

    code, out, _ = run(capsys, "test", "--run", "^pass", str(tmp_path))  # --run: only the matching cases
    assert code == 0 and "1 passed, 0 failed" in out


def test_invalid_suite_exit_2_with_file_and_line(
    tmp_path: Path, policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write(
        tmp_path,
        "chain_test.yaml",
        """\
        cases:
          - name: ok
            input: {action: a}
            expect: {allowed: true}
          - name: typo
            input: {action: a}
            expect: {alowed: true}
        """,
    )
    code, _, err = run(capsys, "test", str(suite))
    assert code == 2
    assert f"{suite}:7: case 'typo' expect: unknown key 'alowed'" in err


def test_invalid_policy_exit_2_with_the_guardrail_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = write(
        tmp_path,
        "bad.yaml",
        """\
        guardrails:
          - {name: cap, kind: cost_cap, max: 100}
          - {name: pace, kind: rate_limit, max: 0, window: 60s}
        """,
    )
    write(tmp_path, "bad_test.yaml", "cases: [{name: x, input: {action: a}, expect: {allowed: true}}]\n")
    code, out, err = run(capsys, "test", "--format", "json", str(tmp_path))
    assert code == 2
    assert f"{policy}:3: guardrails[1]: guardrail 'pace' (rate_limit) option 'max'" in err
    assert json.loads(out)["error"]["line"] == 3


def test_explain_prints_every_guardrail_and_the_answer(
    tmp_path: Path, policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "explain", "--policy", str(policy), "--format", "json", "--input", '{"action": "deploy-prod"}'
    )
    e = json.loads(out)
    assert code == 0
    assert (e["allowed"], e["needs_approval"], e["guardrail"]) == (False, True, "approval")
    assert [(g["guardrail"], g["evaluated"]) for g in e["guardrails"]] == [
        ("cap", True),
        ("tools", True),
        ("pace", True),
        ("approval", True),
        ("budget", False),
    ]
    code, out, _ = run(capsys, "explain", "--policy", str(policy), "--input", '{"action": "shell.ls"}')
    assert "-> 2. tools (action_list): BLOCK: Action 'shell.ls' is denied by tools" in out
    assert "answer: blocked by tools" in out
    code, _, err = run(capsys, "explain", "--policy", str(policy), "--input", '{"agent_id": "a1"}')
    assert code == 2 and '"action"' in err


def test_lint_findings_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = write(
        tmp_path,
        "lint.yaml",
        """\
        guardrails:
          - {name: tools, kind: action_list, allow: ['db.*', 'db.read', 'db.drop_all'], deny: ['db.drop*']}
          - {name: tools, kind: cost_cap, max: 10}
          - {name: wall, kind: action_list, deny: ['*']}
          - {name: late, kind: cost_cap, max: 5}
          - {name: ask, kind: hitl, patterns: [deploy, deploy-prod]}
        """,
    )
    code, out, _ = run(capsys, "lint", str(policy))
    assert code == 1
    lines = out.strip().splitlines()
    assert f"{policy}:2: tools: allow entry 'db.read' is shadowed by the earlier 'db.*'" in lines
    assert (
        f"{policy}:2: tools: allow entry 'db.drop_all' can never take effect: deny entry 'db.drop*' matches it first"
        in lines
    )
    assert f"{policy}:3: tools: duplicate name: guardrails[0] is also named 'tools'" in lines
    assert f"{policy}:5: late: unreachable: 'wall' before it blocks every action" in lines
    assert f"{policy}:6: ask: unreachable: 'wall' before it blocks every action" in lines
    assert f"{policy}:6: ask: patterns entry 'deploy-prod' is shadowed by the earlier 'deploy'" in lines
    clean = write(tmp_path, "clean.yaml", "guardrails:\n  - {name: cap, kind: cost_cap, max: 1}\n")
    assert run(capsys, "lint", str(clean))[0] == 0
    unknown = write(tmp_path, "unknown.yaml", "guardrails:\n  - {name: cap, kind: cost_cap, max: 1, maxx: 2}\n")
    code, out, _ = run(capsys, "lint", str(unknown))
    assert code == 1 and "maxx" in out


FULLWIDTH = "\uff53\uff48\uff45\uff4c\uff4c.ls"  # shell.ls in fullwidth letters: NFKC makes it ASCII


def test_policy_test_and_explain_see_the_action_a_sidecar_would_see(
    tmp_path: Path, policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`policy test` and `policy explain` canonicalise the action as CheckAction does (actions.*): a fullwidth
    spelling is the ASCII action the deny list names, and a look-alike (a Cyrillic e in shell.ls) is refused,
    a failure unless the case expects the refusal."""
    write(
        tmp_path,
        "canon_test.yaml",
        f"""\
        policy: {policy.name}
        cases:
          - name: fullwidth is the ASCII action
            input: {{action: "{FULLWIDTH}"}}
            expect: {{allowed: false, guardrail: tools}}
          - name: a look-alike is refused
            input: {{action: "sh\u0435ll.ls"}}
            expect: {{refused: "action"}}
          - name: a look-alike that was meant to be checked
            input: {{action: "sh\u0435ll.ls"}}
            expect: {{allowed: false}}
          - name: a plain action expected refused
            input: {{action: search}}
            expect: {{refused: true}}
        """,
    )
    code, out, _ = run(capsys, "test", "--format", "json", str(tmp_path / "canon_test.yaml"))
    report = json.loads(out)
    assert code == 1 and (report["passed"], report["failed"]) == (2, 2), out
    failures = {c["name"]: " ".join(c["failures"]) for c in report["cases"] if c["failures"]}
    assert "the sidecar refuses this input (INVALID_ARGUMENT)" in failures["a look-alike that was meant to be checked"]
    assert "expected the input to be refused" in failures["a plain action expected refused"]
    code, out, _ = run(capsys, "explain", "--policy", str(policy), "--input", json.dumps({"action": FULLWIDTH}))
    assert code == 0 and "answer: blocked by tools" in out
    code, _, err = run(capsys, "explain", "--policy", str(policy), "--input", '{"action": "sh\u0435ll.ls"}')
    assert code == 2 and "action" in err
