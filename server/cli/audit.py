"""`outrider audit verify|export`: check or dump the audit chain straight from the database, no sidecar needed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from sqlalchemy.exc import SQLAlchemyError

from server.config import Config
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate


def add_audit_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], object],
) -> argparse.ArgumentParser:
    """Add `audit verify` and `audit export [--output FILE]`; each takes the usual config flags."""
    audit = subparsers.add_parser("audit", help="verify or export the tamper-evident audit trail")
    sub = audit.add_subparsers(dest="audit_command", required=True, metavar="{verify,export}")
    verify = sub.add_parser("verify", help="walk the hash chain and report the first broken link (exit 1)")
    add_config_flags(verify)
    export = sub.add_parser("export", help="write every audit record as one JSON object per line")
    add_config_flags(export)
    export.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    return audit


def run_audit(args: argparse.Namespace, config: Config) -> int:
    """0: chain OK / export written; 1: chain broken; 2: the database or output could not be opened."""
    try:
        engine = create_db_engine(config.database_url())
    except (SQLAlchemyError, ValueError) as exc:
        print(f"outrider: cannot open the database: {exc}", file=sys.stderr)
        return 2
    try:
        migrate(engine)
        trail = AuditTrail(SqlAuditRepository(engine), SystemClock(), config.sensitive_keys)
        if args.audit_command == "verify":
            return _verify(trail)
        return _export(trail, args.output)
    except SQLAlchemyError as exc:
        print(f"outrider: database error: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()


def _verify(trail: AuditTrail) -> int:
    result = trail.verify()
    if result.ok:
        print(f"audit chain OK: {result.checked} records")
        return 0
    print(f"audit chain BROKEN at record {result.first_broken_seq}: {result.problem}")
    return 1


def _export(trail: AuditTrail, output: str | None) -> int:
    if output is None:
        _write_all(trail, sys.stdout)
        sys.stdout.flush()
        return 0
    try:
        out = open(output, "w", encoding="utf-8")  # noqa: SIM115 - closed below; open errors reported
    except OSError as exc:
        print(f"outrider: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    with out:
        n = _write_all(trail, out)
    print(f"outrider: wrote {n} audit records to {output}", file=sys.stderr)
    return 0


def _write_all(trail: AuditTrail, out: TextIO) -> int:
    def write_line(line: str) -> None:
        out.write(line + "\n")

    return trail.export(write_line)
