"""`outrider policy replay`: re-run the captured decisions of the decision log through a candidate policy and report
every decision whose outcome would change (server/services/supervisor/replay.py).

It reads the sidecar's database as the other commands find it (`--config`, `storage.db_url` / `storage.data_dir`,
`--db-url`, `--data-dir`, OUTRIDER_DB_URL), and only reads: on PostgreSQL its connection is read-only
(`default_transaction_read_only`), so it runs from any host that reaches the database with a role allowed to
SELECT from `decisions` and `agents`. It never migrates the schema.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine
from sqlalchemy.exc import SQLAlchemyError

from server.cli.policy_suites import SuiteError, build_for
from server.config import Config, ConfigError, load_config
from server.domain.errors import InvalidArgument
from server.domain.values import parse_duration
from server.services.clock import ManualClock
from server.services.supervisor.replay import Change, Outcome, Replayer, ReplayFilter, ReplayReport
from server.storage.db import create_db_engine
from server.storage.supervisor.repository import SqlAgentRepository, SqlDecisionRepository


def add_replay_parser(psub: Any) -> None:
    replay = psub.add_parser(
        "replay", help="re-run captured decisions through a candidate policy; report the ones that change"
    )
    replay.add_argument("--policy", required=True, metavar="CANDIDATE.yaml", help="the candidate policy")
    replay.add_argument("--since", default="24h", metavar="DURATION", help="decisions this recent (default 24h)")
    replay.add_argument("--agent", metavar="ID", help="only this agent's decisions")
    replay.add_argument("--action", metavar="GLOB", help="only actions matching this glob (case-sensitive)")
    replay.add_argument("--format", choices=("text", "json"), default="text")
    replay.add_argument("--fail-on-change", action="store_true", help="exit 1 when any decision would change (CI)")
    replay.add_argument("--config", help="the sidecar's config file, to find its database (default ./outrider.yaml)")
    replay.add_argument("--db-url", help="the database URL (PostgreSQL: from any host), over the config's")
    replay.add_argument("--data-dir", help="the SQLite database's directory, over the config's")


def _config(args: argparse.Namespace) -> Config:
    overrides = {"db_url": args.db_url, "data_dir": Path(args.data_dir) if args.data_dir else None}
    try:
        return load_config(args.config, overrides)
    except ConfigError as exc:
        raise SuiteError(exc.source, 0, f"{exc.key}: {exc.problem}" if exc.key else exc.problem) from exc


def read_only_engine(url: str) -> Engine:
    if url.startswith("postgresql"):
        return create_engine(url, connect_args={"options": "-c default_transaction_read_only=on"}, pool_size=1)
    return create_db_engine(url)


def run_replay(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    try:
        since = parse_duration(args.since, "--since")
    except InvalidArgument as exc:
        raise SuiteError("--since", 0, exc.message) from exc
    config = _config(args)
    url = config.database_url()
    if url.startswith("sqlite") and not (config.data_dir / "outrider.db").is_file() and not config.db_url:
        raise SuiteError(str(config.data_dir), 0, "no sidecar database here (give --data-dir, --db-url or --config)")
    candidate = build_for(Path(args.policy), ManualClock())
    engine = read_only_engine(url)
    try:
        agents = {a.agent_id: a for a in SqlAgentRepository(engine).all()}  # as they are now
        groups = {agent_id: a.group for agent_id, a in agents.items()}
        replayer = Replayer(candidate.chain.order, groups.get, candidate.checks.assess_level, agents.get)
        flt = ReplayFilter(datetime.now(UTC) - timedelta(seconds=since), args.agent or "", args.action or "")
        report = replayer.run(SqlDecisionRepository(engine), flt)
    except SQLAlchemyError as exc:
        problem = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise SuiteError(
            _safe(url), 0, f"cannot read the decision log ({problem}); is the schema at migration 0051?"
        ) from exc
    finally:
        engine.dispose()
        candidate.close()
    out(json.dumps(report_dict(report), indent=2) if args.format == "json" else report_text(report))
    return 1 if args.fail_on_change and report.changes else 0


def _safe(url: str) -> str:
    """The URL without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _outcome(o: Outcome) -> dict[str, Any]:
    return {"allowed": o.allowed, "guardrail": o.guardrail, "reason": o.reason, "needs_approval": o.needs_approval}


def _change(c: Change) -> dict[str, Any]:
    return {
        "decision_id": c.decision_id,
        "agent_id": c.agent_id,
        "action": c.action,
        "time": c.create_time.isoformat(),
        "change": c.change,
        "guardrail": c.guardrail,
        "before": _outcome(c.before),
        "after": _outcome(c.after),
        "shadow": c.shadow.describe() if c.shadow else None,
    }


def report_dict(r: ReplayReport) -> dict[str, Any]:
    return {
        "replayed": r.replayed,
        "changed": len(r.changes),
        "unchanged": r.unchanged,
        "skipped": dict(r.skipped),
        "by_guardrail": r.by_guardrail(),
        "not_replayed": r.not_replayed,
        "changes": [_change(c) for c in r.changes],
    }


def _describe(o: Outcome) -> str:
    if o.needs_approval:
        return f"would ask a human ({o.guardrail})"
    verb = "allowed" if o.allowed else "blocked"
    return f"{verb} by {o.guardrail or '(empty chain)'}" + (f": {o.reason}" if o.reason and not o.allowed else "")


def report_text(r: ReplayReport) -> str:
    lines = [f"replayed {r.replayed} decisions: {len(r.changes)} would change, {r.unchanged} unchanged"]
    for reason, n in r.skipped.items():
        lines.append(f"skipped {n}: {reason}")
    for c in r.changes:
        lines.append(
            f"{c.change:<27} {c.decision_id}  {c.create_time:%Y-%m-%d %H:%M:%S}  {c.agent_id}  {c.action}\n"
            f"    was {_describe(c.before)}\n    now {_describe(c.after)}"
        )
    if r.changes:
        lines.append("changes by guardrail: " + ", ".join(f"{g} {n}" for g, n in r.by_guardrail().items()))
    if r.not_replayed:
        lines.append(
            "not replayed (live state the log does not capture; taken as allowing): " + ", ".join(r.not_replayed)
        )
    return "\n".join(lines)
