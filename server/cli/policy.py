"""`outrider policy test|explain|lint`: work on a policy file in process, no sidecar (docs/policy-testing.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from server.cli.policy_replay import add_replay_parser, run_replay
from server.cli.policy_status import add_status_parser
from server.cli.policy_suites import (
    SuiteError,
    as_json,
    as_junit,
    as_text,
    build_for,
    canonical,
    error_json,
    guardrail_line,
    run_suites,
)
from server.domain.errors import OutriderError
from server.domain.guardrails import ShadowOutcome
from server.domain.guardrails.lint import lint_chain
from server.services.clock import ManualClock
from server.services.supervisor.explain import Explanation


def add_policy_parser(sub: Any, add_config_flags: Callable[[argparse.ArgumentParser], object]) -> None:
    policy = sub.add_parser(
        "policy", help="test, explain and lint a policy file (in process, no sidecar); the fleet's policy status"
    )
    psub = policy.add_subparsers(dest="policy_command", required=True)
    test = psub.add_parser("test", help="run policy test suites (*_test.yaml); exit 0 pass, 1 a case failed, 2 invalid")
    test.add_argument("paths", nargs="*", metavar="PATH", help="suite files or directories (default: .)")
    test.add_argument("--format", choices=("text", "json", "junit"), default="text")
    test.add_argument("--run", metavar="REGEX", help="only the cases whose name matches")
    test.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    explain = psub.add_parser("explain", help="every guardrail's verdict for one call, without side effects")
    explain.add_argument("--policy", required=True, metavar="FILE")
    explain.add_argument(
        "--input", required=True, metavar="JSON", help='{"agent_id": ..., "action": ..., "context": {...}} or a file'
    )
    explain.add_argument("--format", choices=("text", "json"), default="text")
    lint = psub.add_parser("lint", help="find mistakes in a valid policy; exit 1 on findings")
    lint.add_argument("file", metavar="FILE")
    add_replay_parser(psub)
    add_status_parser(psub, add_config_flags)


def run_policy(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    try:
        if args.policy_command == "test":
            return _test(args, out)
        if args.policy_command == "explain":
            return _explain(args, out)
        if args.policy_command == "replay":
            return run_replay(args, out)
        return _lint(args, out)
    except SuiteError as exc:
        if getattr(args, "format", "text") == "json":
            out(error_json(exc))
        print(f"outrider policy: {exc}", file=sys.stderr)
        return 2


def _test(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    report = run_suites(args.paths, args.run)
    text = {"text": as_text, "json": as_json, "junit": as_junit}[args.format](report)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
        if args.format != "text":
            out(as_text(report))
    else:
        out(text)
    return 1 if report.failed else 0


def _read_input(raw: str) -> dict[str, Any]:
    text = raw if raw.lstrip().startswith("{") else Path(raw).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError("--input", 0, f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("action"), str):
        raise SuiteError("--input", 0, 'must be a JSON object with "action" (and "agent_id", "context")')
    return data


def _explain(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    data = _read_input(args.input)
    services = build_for(Path(args.policy), ManualClock())
    try:
        context = data.get("context") or {}
        action = canonical(services, data["action"])
        explained = asyncio.run(
            services.explain.explain(
                str(data.get("agent_id", "agent-1")), action, context, {}, len(json.dumps(context))
            )
        )
    except OutriderError as exc:
        raise SuiteError("--input", 0, exc.message) from exc
    finally:
        services.close()
    out(json.dumps(explanation_dict(explained), indent=2) if args.format == "json" else explanation_text(explained))
    return 0


def explanation_dict(e: Explanation) -> dict[str, Any]:
    v = e.verdict
    return {
        "allowed": v.allowed,
        "severity": v.severity.name.lower(),
        "guardrail": v.guardrail,
        "reason": v.reason,
        "warnings": [{"guardrail": g, "reason": r} for g, r in v.warnings],
        "needs_approval": e.needs_approval,
        "shadow": shadow_dict(v.shadow),
        "guardrails": [
            {
                "guardrail": s.guardrail,
                "kind": s.kind,
                "evaluated": s.evaluated,
                "decided": s.decided,
                **(
                    {
                        "allowed": s.result.allowed,
                        "severity": s.result.severity.name.lower(),
                        "reason": s.result.reason,
                        "duration_us": s.duration_us,
                    }
                    if s.result is not None
                    else {}
                ),
                **({"needs_approval": True} if s.needs_approval else {}),
                **({"error": s.error} if s.error else {}),
                **({"shadow": True} if s.shadow else {}),
            }
            for s in e.steps
        ],
    }


def shadow_dict(shadow: ShadowOutcome | None) -> dict[str, Any] | None:
    """A shadow outcome as JSON (`policy explain`, `policy test`, `policy replay`): None when there is none."""
    if shadow is None:
        return None
    return {
        "guardrail": shadow.guardrail,
        "reason": shadow.reason,
        "severity": shadow.severity.name.lower(),
        "needs_approval": shadow.needs_approval,
        "summary": shadow.describe(),
    }


def explanation_text(e: Explanation) -> str:
    lines = []
    for i, s in enumerate(e.steps, 1):
        mark = "->" if s.decided else "  "
        tag = " [shadow]" if s.shadow else ""
        if s.result is None:
            lines.append(f"{mark} {i}. {s.guardrail} ({s.kind}){tag}: not evaluated")
            continue
        verdict = "ASK A HUMAN" if s.needs_approval else s.result.severity.name
        reason = f": {s.result.reason}" if s.result.reason else ""
        lines.append(f"{mark} {i}. {s.guardrail} ({s.kind}){tag}: {verdict}{reason}  [{s.duration_us} us]")
    v = e.verdict
    answer = "would ask a human" if e.needs_approval else ("allowed" if v.allowed else "blocked")
    lines.append(f"answer: {answer} by {v.guardrail or '(empty chain)'}" + (f": {v.reason}" if v.reason else ""))
    if v.shadow is not None:
        lines.append(f"shadow: {v.shadow.describe()}")
    return "\n".join(lines)


def _lint(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    path = Path(args.file)
    try:
        services = build_for(path, ManualClock())
    except SuiteError as exc:  # an invalid policy is a finding too (unknown keys, bad options)
        out(str(exc))
        return 1
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        stored = list(services.chain.stored)  # file order (evaluation order puts trust roots first)
    finally:
        services.close()
    findings = lint_chain(stored)
    for f in findings:
        line = guardrail_line(path, f"guardrails[{f.index}]")
        out(f"{path}:{line}: {f.guardrail}: {f.problem}" if line else f"{path}: {f.guardrail}: {f.problem}")
    if not findings:
        count = len(raw.get("guardrails") or []) if isinstance(raw, dict) else 0
        out(f"{path}: {count} guardrails, no findings")
    return 1 if findings else 0
