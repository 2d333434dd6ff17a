"""Policy test suites (`outrider policy test`): load `*_test.yaml` files, run each case against the chain of a
policy file in process (in-memory repositories, a clock moved by hand, no sidecar), and report as text, JSON or
JUnit XML.

Each case runs on freshly built services (the policy loaded, the suite's fixtures applied), so a rate limit or a
breaker state never leaks from one case to the next; a stateful case is a sequence of `steps`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import yaml

from server.adapters.memory import MemoryStore
from server.adapters.policy_file import FilePolicySource
from server.bootstrap import build_services
from server.config import Config, ConfigError, load_config
from server.container import Services
from server.domain.actions import canonical_action
from server.domain.approvals.requests import Reviewer
from server.domain.errors import InvalidArgument, OutriderError
from server.domain.guardrails import Severity, Verdict
from server.domain.values import parse_duration
from server.services.clock import ManualClock
from server.telemetry.settings import TelemetrySettings

SUITE_GLOB = "*_test.yaml"
_SUITE_KEYS = {"policy", "fixtures", "cases"}
_FIXTURE_KEYS = {"agents", "budgets", "breakers"}
_CASE_KEYS = {"name", "input", "expect", "decide", "steps", "agent", "now"}
_STEP_KEYS = {"input", "expect", "decide", "advance", "agent", "now"}
# `agent:` on a case or step: the agent record conditions see (`agent.group`, `agent.labels`, ...).
_AGENT_KEYS = {"id", "group", "labels", "capabilities"}
_INPUT_KEYS = {"agent_id", "action", "context"}
_EXPECT_KEYS = {
    "allowed",
    "severity",
    "guardrail",
    "reason",
    "reason_matches",
    "warnings",
    "pending",
    "shadow",
    "refused",  # true, or a fragment of the message: the sidecar refuses the input (INVALID_ARGUMENT)
}
_DECIDE_KEYS = {"approve", "by", "comment"}
_SEVERITIES = {"info": Severity.INFO, "warning": Severity.WARNING, "block": Severity.BLOCK}


class SuiteError(Exception):
    """A policy or suite that cannot run (exit code 2): where, and what is wrong."""

    def __init__(self, file: str, line: int, problem: str) -> None:
        super().__init__(f"{file}:{line}: {problem}" if line else f"{file}: {problem}")
        self.file, self.line, self.problem = file, line, problem


# ---- loading ---------------------------------------------------------------------------------------


class _LineLoader(yaml.SafeLoader):
    """Safe YAML that remembers the line of every mapping (`__line__`), for file:line in reports."""


def _mapping_with_line(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    data = {str(k): v for k, v in loader.construct_mapping(node, deep=True).items()}
    data["__line__"] = node.start_mark.line + 1
    return data


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "__line__"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


@dataclass(frozen=True)
class Step:
    line: int
    input: Mapping[str, Any] | None = None
    expect: Mapping[str, Any] = field(default_factory=dict)
    decide: Mapping[str, Any] | None = None
    advance: float = 0.0
    # Set before the check: the agent's record (registered), and the clock's wall time (`now` in conditions).
    agent: Mapping[str, Any] | None = None
    now: datetime | None = None


@dataclass(frozen=True)
class Case:
    name: str
    line: int
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Suite:
    file: str
    policy: Path
    fixtures: Mapping[str, Any]
    cases: tuple[Case, ...]


def discover(paths: Sequence[str]) -> list[Path]:
    """Suite files: each PATH that is a file, and every `*_test.yaml` under each PATH that is a directory."""
    found: list[Path] = []
    for raw in paths or ["."]:
        p = Path(raw)
        if p.is_dir():
            found.extend(sorted(q for q in p.rglob(SUITE_GLOB) if ".venv" not in q.parts))
        elif p.is_file():
            found.append(p)
        else:
            raise SuiteError(raw, 0, "no such file or directory")
    return found


def _unknown(data: Mapping[str, Any], allowed: set[str], file: str, what: str) -> None:
    extra = sorted(k for k in data if k != "__line__" and k not in allowed)
    if extra:
        raise SuiteError(
            file, data.get("__line__", 0), f"{what}: unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})"
        )


def default_policy(suite: Path) -> Path:
    """`foo_test.yaml` tests `foo.yaml` beside it."""
    return suite.with_name(suite.name.removesuffix("_test.yaml") + ".yaml")


def load_suite(path: Path) -> Suite:
    file = str(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LineLoader)
    except OSError as exc:
        raise SuiteError(file, 0, f"cannot read the file: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SuiteError(file, mark.line + 1 if mark else 0, f"not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SuiteError(file, 1, "a suite must be a mapping with `cases:`")
    _unknown(data, _SUITE_KEYS, file, "suite")
    policy = path.parent / data["policy"] if data.get("policy") else default_policy(path)
    if not policy.is_file():
        raise SuiteError(file, data["__line__"], f"policy file {str(policy)!r} does not exist")
    fixtures = data.get("fixtures") or {}
    if not isinstance(fixtures, dict):
        raise SuiteError(file, data["__line__"], "fixtures: must be a mapping")
    _unknown(fixtures, _FIXTURE_KEYS, file, "fixtures")
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise SuiteError(file, data["__line__"], "cases: must be a non-empty list")
    return Suite(file, policy, fixtures, tuple(_case(c, file) for c in cases))


def _case(raw: Any, file: str) -> Case:
    if not isinstance(raw, dict):
        raise SuiteError(file, 0, "every case must be a mapping with name and input/expect or steps")
    line = raw["__line__"]
    _unknown(raw, _CASE_KEYS, file, "case")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise SuiteError(file, line, "case: `name` is required")
    if "steps" in raw:
        if any(k in raw for k in ("input", "expect", "decide")):
            raise SuiteError(file, line, f"case {name!r}: give either steps or input/expect, not both")
        steps = raw["steps"]
        if not isinstance(steps, list) or not steps:
            raise SuiteError(file, line, f"case {name!r}: steps must be a non-empty list")
        return Case(name, line, tuple(_step(s, file, name) for s in steps))
    return Case(name, line, (_step({k: v for k, v in raw.items() if k != "name"}, file, name),))


def _step(raw: Any, file: str, case: str) -> Step:
    if not isinstance(raw, dict):
        raise SuiteError(file, 0, f"case {case!r}: every step must be a mapping")
    line = raw["__line__"]
    _unknown(raw, _STEP_KEYS, file, f"case {case!r}")
    if "advance" in raw:
        if len([k for k in raw if k != "__line__"]) != 1:
            raise SuiteError(file, line, f"case {case!r}: an `advance` step has nothing else")
        try:
            return Step(line, advance=parse_duration(raw["advance"], "advance"))
        except OutriderError as exc:
            raise SuiteError(file, line, f"case {case!r}: {exc.message}") from exc
    inp, expect = raw.get("input"), raw.get("expect")
    if not isinstance(inp, dict):
        raise SuiteError(file, line, f"case {case!r}: `input` (agent_id, action, context) is required")
    agent = _agent(raw.get("agent"), file, line, case)
    now = _now(raw.get("now"), file, line, case)
    _unknown(inp, _INPUT_KEYS, file, f"case {case!r} input")
    if not isinstance(inp.get("action"), str) or not inp.get("action"):
        raise SuiteError(file, inp["__line__"], f"case {case!r}: input.action is required")
    if not isinstance(expect, dict) or len(expect) <= 1:
        raise SuiteError(file, line, f"case {case!r}: `expect` is required (allowed, severity, guardrail, ...)")
    _unknown(expect, _EXPECT_KEYS, file, f"case {case!r} expect")
    if "severity" in expect and str(expect["severity"]).lower() not in _SEVERITIES:
        raise SuiteError(file, expect["__line__"], f"case {case!r}: severity must be info, warning or block")
    if "reason_matches" in expect:
        try:
            re.compile(str(expect["reason_matches"]))
        except re.error as exc:
            raise SuiteError(file, expect["__line__"], f"case {case!r}: reason_matches: {exc}") from exc
    decide = raw.get("decide")
    if decide is not None:
        if not isinstance(decide, dict) or not isinstance(decide.get("approve"), bool):
            raise SuiteError(file, line, f"case {case!r}: decide needs `approve: true|false`")
        _unknown(decide, _DECIDE_KEYS, file, f"case {case!r} decide")
    # A failure points at the expectation that did not hold.
    return Step(
        expect["__line__"], _strip(inp), _strip(expect), _strip(decide) if decide else None, agent=agent, now=now
    )


def _agent(raw: Any, file: str, line: int, case: str) -> Mapping[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
        raise SuiteError(
            file, line, f"case {case!r}: agent must be a mapping with id (and group, labels, capabilities)"
        )
    _unknown(raw, _AGENT_KEYS, file, f"case {case!r} agent")
    agent: Mapping[str, Any] = _strip(raw)
    return agent


def _now(raw: Any, file: str, line: int, case: str) -> datetime | None:
    """`now: 2026-01-05T10:00:00Z`: YAML gives a datetime (naive means UTC) or a string in ISO 8601."""
    if raw is None:
        return None
    try:
        when = raw if isinstance(raw, datetime) else datetime.fromisoformat(str(raw))
    except ValueError:
        raise SuiteError(file, line, f"case {case!r}: now must be a time in ISO 8601, got {raw!r}") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


# ---- running ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    suite: str
    name: str
    line: int
    failures: tuple[str, ...]
    decided_by: tuple[str, ...]  # the guardrail whose result each step's answer was
    # Each step's shadow outcome ("would have blocked by X: reason"), for the steps that had one.
    shadows: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class Report:
    results: list[CaseResult] = field(default_factory=list)
    # Per policy file: its guardrails in evaluation order; and which policy each suite tests.
    chains: dict[str, list[str]] = field(default_factory=dict)
    policy_of: dict[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        return sum(not r.passed for r in self.results)

    def never_decided(self) -> dict[str, list[str]]:
        """Per policy file, the guardrails that decided no case (coverage)."""
        decided: dict[str, set[str]] = {}
        for r in self.results:
            decided.setdefault(self.policy_of[r.suite], set()).update(r.decided_by)
        return {p: [g for g in chain if g not in decided.get(p, set())] for p, chain in self.chains.items()}


def policy_config(policy: Path) -> Config:
    """The policy file's own configuration (it may be a whole outrider.yaml), with nothing that does I/O."""
    try:
        cfg = load_config(str(policy), env={})
    except ConfigError as exc:
        raise SuiteError(str(policy), 0, str(exc)) from exc
    return replace(
        cfg,
        console_enabled=False,
        db_url=None,
        telemetry=TelemetrySettings(enabled=False, metrics=False),
    )


def build_for(policy: Path, clock: ManualClock) -> Services:
    """Services on in-memory repositories and `clock`, the policy's chain loaded. Raises SuiteError (with the
    line of the guardrail) when the policy is invalid."""
    cfg = policy_config(policy)
    try:
        return build_services(cfg, repos=MemoryStore().repositories(), clock=clock, policy=FilePolicySource(policy))
    except OutriderError as exc:
        problem = exc.message.removeprefix(f"{policy}: ")  # the chain store names the file itself
        raise SuiteError(str(policy), guardrail_line(policy, exc.field), problem) from exc


def canonical(services: Services, action: str) -> str:
    """The action as a sidecar on this policy receives it: its canonical form under the policy's `actions.*`
    (a look-alike or zero-width action is refused, INVALID_ARGUMENT naming `action`), as CheckAction does."""
    cfg = services.config
    return canonical_action(action, cfg.action_charset, "action", cfg.action_scripts)


def guardrail_line(policy: Path, where: str | None) -> int:
    """The line of `guardrails[i]` in the policy file (0 when unknown)."""
    m = re.fullmatch(r"guardrails\[(\d+)\]", where or "")
    if not m:
        return 0
    try:
        root = yaml.compose(policy.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, yaml.YAMLError):
        return 0
    if not isinstance(root, yaml.MappingNode):
        return 0
    for key, value in root.value:
        if key.value == "guardrails" and isinstance(value, yaml.SequenceNode) and int(m[1]) < len(value.value):
            return int(value.value[int(m[1])].start_mark.line) + 1
    return 0


def apply_fixtures(services: Services, fixtures: Mapping[str, Any], file: str) -> None:
    try:
        for a in fixtures.get("agents") or []:
            labels = {str(k): str(v) for k, v in (a.get("labels") or {}).items() if k != "__line__"}
            services.agents.register(str(a["id"]), str(a.get("group", "")), list(a.get("capabilities") or []), labels)
        for b in fixtures.get("budgets") or []:
            services.budgets.allocate(str(b["agent"]), int(b["tokens"]))
        for b in fixtures.get("breakers") or []:
            state = str(b.get("state", "open")).lower()
            if state == "open":
                services.breakers.force_open(str(b["key"]), "suite fixture")
            elif state != "closed":
                raise SuiteError(file, b.get("__line__", 0), "fixtures.breakers: state must be open or closed")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SuiteError(file, 0, f"fixtures: missing or bad value: {exc}") from exc
    except OutriderError as exc:
        raise SuiteError(file, 0, f"fixtures: {exc.message}") from exc


def _register(services: Services, agent: Mapping[str, Any], file: str, line: int) -> None:
    labels = {str(k): str(v) for k, v in (agent.get("labels") or {}).items()}
    capabilities = [str(c) for c in agent.get("capabilities") or []]
    try:
        services.agents.register(str(agent["id"]), str(agent.get("group", "")), capabilities, labels)
    except OutriderError as exc:
        raise SuiteError(file, line, f"agent: {exc.message}") from exc


async def _run_case(suite: Suite, case: Case) -> CaseResult:
    clock = ManualClock()
    services = build_for(suite.policy, clock)
    failures: list[str] = []
    decided: list[str] = []
    shadows: list[str] = []
    try:
        apply_fixtures(services, suite.fixtures, suite.file)
        for i, step in enumerate(case.steps):
            if step.input is None:
                clock.advance(step.advance)
                continue
            if step.now is not None:
                clock.set_time(step.now)
            if step.agent is not None:
                _register(services, step.agent, suite.file, step.line)
            try:
                verdict, pending = await _check(services, step, f"{case.name}-{i}")
            except InvalidArgument as exc:
                failures.extend(f"{suite.file}:{step.line}: {p}" for p in compare_refusal(step.expect, exc.message))
                if failures:
                    break
                continue
            if step.expect.get("refused") not in (None, False):
                failures.append(f"{suite.file}:{step.line}: expected the input to be refused; it was checked")
            decided.append(verdict.guardrail)
            if verdict.shadow is not None:
                shadows.append(verdict.shadow.describe())
                decided.append(verdict.shadow.guardrail)  # coverage: a shadow guardrail decides its shadow
            failures.extend(
                f"{suite.file}:{step.line}: {problem}" for problem in compare(step.expect, verdict, pending)
            )
            if failures:
                break
    finally:
        services.close()
    return CaseResult(suite.file, case.name, case.line, tuple(failures), tuple(decided), tuple(shadows))


async def _check(services: Services, step: Step, request_id: str) -> tuple[Verdict, bool]:
    assert step.input is not None
    inp = step.input
    default_agent = str(step.agent["id"]) if step.agent is not None else "agent-1"
    agent_id, action, context = str(inp.get("agent_id", default_agent)), str(inp["action"]), inp.get("context") or {}
    checks = services.checks
    action = canonical(services, action)
    checks.validate_check(agent_id, action, len(json.dumps(context, default=str)))
    checked = await checks.check_action(agent_id, action, context, {}, request_id, wait=False)
    pending = checked.approval is not None and not checked.approval.closed
    if pending and step.decide is not None and checked.approval is not None:
        d = step.decide
        reviewer = Reviewer(str(d.get("by", "suite")), "admin")
        services.approvals.decide(checked.approval.approval_id, reviewer, bool(d["approve"]), str(d.get("comment", "")))
        checked = await checks.check_action(agent_id, action, context, {}, request_id, wait=False)
        pending = checked.approval is not None and not checked.approval.closed
    return checked.verdict, pending


def compare_refusal(expect: Mapping[str, Any], message: str) -> list[str]:
    """An input the sidecar refuses (a look-alike action, an oversized context): right only when expected."""
    want = expect.get("refused")
    if want in (None, False):
        return [f"the sidecar refuses this input (INVALID_ARGUMENT): {message}"]
    if isinstance(want, str) and want not in message:
        return [f"expected a refusal mentioning {want!r}, got {message!r}"]
    return []


def compare(expect: Mapping[str, Any], v: Verdict, pending: bool) -> list[str]:
    """Every way the verdict differs from the expectation."""
    out = []

    def differs(key: str, want: Any, got: Any) -> None:
        if want != got:
            out.append(f"expected {key} {want!r}, got {got!r}")

    if "pending" in expect:
        differs("pending", bool(expect["pending"]), pending)
    if "allowed" in expect:
        differs("allowed", bool(expect["allowed"]), v.allowed)
    if "severity" in expect:
        differs("severity", str(expect["severity"]).lower(), v.severity.name.lower())
    if "guardrail" in expect:
        differs("guardrail", str(expect["guardrail"]), v.guardrail)
    if "reason" in expect:
        differs("reason", str(expect["reason"]), v.reason)
    if "reason_matches" in expect and not re.search(str(expect["reason_matches"]), v.reason):
        out.append(f"expected reason matching {expect['reason_matches']!r}, got {v.reason!r}")
    if "warnings" in expect:
        want = [w if isinstance(w, str) else str(w.get("guardrail", "")) for w in expect["warnings"] or []]
        differs("warnings from", want, [g for g, _ in v.warnings])
        for w, (g, reason) in zip(expect["warnings"] or [], v.warnings, strict=False):
            if isinstance(w, dict) and "reason" in w:
                differs(f"warning reason of {g}", str(w["reason"]), reason)
    if "shadow" in expect:
        # `shadow: NAME`: that shadow guardrail would have decided; `shadow: false` (or null): none would have.
        want_shadow = expect["shadow"]
        got_shadow = v.shadow.guardrail if v.shadow else None
        differs("shadow", str(want_shadow) if want_shadow not in (None, False) else None, got_shadow)
    if out:
        shadow = f", shadow={v.shadow.describe()!r}" if v.shadow else ""
        out.append(f"(answer: allowed={v.allowed}, guardrail={v.guardrail!r}, reason={v.reason!r}{shadow})")
    return out


def run_suites(paths: Sequence[str], select: str | None = None) -> Report:
    """Load every suite first (any invalid one: SuiteError before anything runs), then run the cases."""
    pattern = re.compile(select) if select else None
    suites = [load_suite(p) for p in discover(paths)]
    if not suites:
        raise SuiteError(" ".join(paths) or ".", 0, f"no test suites ({SUITE_GLOB}) found")
    report = Report()
    for suite in suites:
        services = build_for(suite.policy, ManualClock())  # validates the policy once, and names its chain
        report.chains[str(suite.policy)] = [g.name for g in services.chain.order]
        services.close()
        report.policy_of[suite.file] = str(suite.policy)
        for case in suite.cases:
            if pattern is None or pattern.search(case.name):
                report.results.append(asyncio.run(_run_case(suite, case)))
    return report


# ---- output ----------------------------------------------------------------------------------------


def as_text(report: Report) -> str:
    lines = []
    for r in report.results:
        lines.append(f"{'PASS' if r.passed else 'FAIL'}  {r.suite}:{r.line}  {r.name}")
        lines.extend(f"      {f}" for f in r.failures)
        lines.extend(f"      shadow: {s}" for s in r.shadows)
    passed = len(report.results) - report.failed
    lines.append(f"\n{passed} passed, {report.failed} failed")
    for policy, names in report.never_decided().items():
        if names:
            lines.append(f"coverage: {policy}: never decided a case: {', '.join(names)}")
        else:
            lines.append(f"coverage: {policy}: every guardrail decided at least one case")
    return "\n".join(lines)


def as_json(report: Report) -> str:
    return json.dumps(
        {
            "passed": len(report.results) - report.failed,
            "failed": report.failed,
            "cases": [
                {
                    "suite": r.suite,
                    "line": r.line,
                    "name": r.name,
                    "passed": r.passed,
                    "failures": list(r.failures),
                    "shadow": list(r.shadows),
                }
                for r in report.results
            ],
            "coverage": {p: {"never_decided": names} for p, names in report.never_decided().items()},
        },
        indent=2,
    )


def as_junit(report: Report) -> str:
    root = ET.Element("testsuites", tests=str(len(report.results)), failures=str(report.failed))
    by_suite: dict[str, list[CaseResult]] = {}
    for r in report.results:
        by_suite.setdefault(r.suite, []).append(r)
    for name, results in by_suite.items():
        failures = sum(not r.passed for r in results)
        suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(results)), failures=str(failures))
        for r in results:
            case = ET.SubElement(suite, "testcase", name=r.name, classname=name, file=name, line=str(r.line))
            if not r.passed:
                failure = ET.SubElement(case, "failure", message=r.failures[0])
                failure.text = "\n".join(r.failures)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def error_json(err: SuiteError) -> str:
    return json.dumps({"error": {"file": err.file, "line": err.line, "problem": err.problem}}, indent=2)
