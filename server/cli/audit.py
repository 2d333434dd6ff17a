"""`outrider audit verify|export`: check or dump the audit chain straight from the database, no sidecar needed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sqlalchemy.exc import SQLAlchemyError

from server.adapters.audit_files import FileCheckpointStore, read_key
from server.adapters.audit_keys import AuditKeys
from server.cli.database import CANNOT_OPEN, open_engine
from server.config import Config
from server.domain.errors import OutriderError
from server.services.audit import AuditTrail, DecisionProof, FullVerifyResult
from server.services.clock import SystemClock
from server.storage.audit import SqlAuditRepository
from server.storage.db import migrate
from server.storage.supervisor.repository import SqlDecisionRepository


def add_audit_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], object],
) -> argparse.ArgumentParser:
    """Add `audit verify [--key-file F] [--checkpoints DIR] [--decision ID]` and `audit export [--output FILE]`."""
    audit = subparsers.add_parser("audit", help="verify or export the tamper-evident audit trail")
    sub = audit.add_subparsers(dest="audit_command", required=True, metavar="{verify,export}")
    verify = sub.add_parser(
        "verify", help="check the chain under the key and against the signed checkpoints; name the first break (exit 1)"
    )
    add_config_flags(verify)
    verify.add_argument("--key-file", metavar="F", help="the audit key (default: audit.key_file of the config)")
    verify.add_argument(
        "--checkpoints", metavar="DIR", help="signed checkpoints to check against (default: audit.checkpoint_dir)"
    )
    verify.add_argument(
        "--decision",
        metavar="ID",
        help="also prove this one decision: its row against its place in the audit record that vouches for it",
    )
    export = sub.add_parser("export", help="write every audit record, then every checkpoint, as JSON lines")
    add_config_flags(export)
    export.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    export.add_argument("--checkpoints", metavar="DIR", help="checkpoints to include (default: audit.checkpoint_dir)")
    return audit


def run_audit(args: argparse.Namespace, config: Config) -> int:
    """0: chain OK / export written; 1: chain broken; 2: the database, key or output could not be opened."""
    explicit_key = getattr(args, "key_file", None)
    key_path = Path(explicit_key) if explicit_key else config.audit_key_path()
    checkpoint_dir = Path(args.checkpoints) if getattr(args, "checkpoints", None) else config.audit_checkpoint_path()
    keys = None
    if explicit_key or key_path.exists():  # never created here: verifying must not invent a key
        try:
            keys = AuditKeys(read_key(key_path))
        except OutriderError as exc:
            print(f"outrider: {exc.message}", file=sys.stderr)
            return 2
    engine = open_engine(config)
    if engine is None:
        return CANNOT_OPEN
    try:
        migrate(engine)
        trail = AuditTrail(
            SqlAuditRepository(engine),
            SystemClock(),
            config.sensitive_keys,
            keys=keys,
            checkpoints=FileCheckpointStore(checkpoint_dir),
            decisions=SqlDecisionRepository(engine),
        )
        if args.audit_command == "verify":
            return _verify(trail, keys is not None, key_path, checkpoint_dir, getattr(args, "decision", None))
        return _export(trail, args.output)
    except SQLAlchemyError as exc:
        print(f"outrider: database error: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()


def describe(result: FullVerifyResult) -> str:
    """The one-line verdict `outrider audit verify` prints."""
    c = result.chain
    if not c.ok:
        where = f"record {c.first_broken_seq}" if c.first_broken_seq is not None else "the end"
        if c.missing is not None and c.kind in ("truncated", "missing", "checkpoint_mismatch"):
            where = f"records {c.missing[0]}..{c.missing[1]}"
        return f"audit chain BROKEN at {where} [{c.kind}]: {c.problem}"
    if result.bad_checkpoints:
        return f"audit checkpoints BROKEN [bad_checkpoint]: {result.bad_checkpoints[0]}"
    d = result.decisions
    if d is not None and not d.ok:
        where = f"record {d.first_seq}" if d.first_seq is not None else "a record"
        return (
            f"audit chain BROKEN at {where} [{result.kind}]: {d.first_problem}"
            f" ({d.edited} decisions edited, {d.missing} missing)"
        )
    parts = [f"{c.checked} records"]
    if c.keyed_from is not None:
        if c.legacy:
            parts.append(f"{c.legacy} from before the audit key (SHA-256 rule), keyed from record {c.keyed_from} on")
        parts.append(f"{c.checkpoints} signed checkpoints matched")
    if d is not None and d.batches:
        pruned = f" ({d.pruned} older ones pruned by retention)" if d.pruned else ""
        parts.append(f"{d.checked} decisions proved by {d.batches} records{pruned}")
    return "audit chain OK: " + "; ".join(parts)


def describe_proof(proof: DecisionProof) -> str:
    """The line `outrider audit verify --decision ID` adds."""
    where = f" (#{proof.position} of {proof.of} in audit record {proof.record_seq})" if proof.record_seq else ""
    if proof.ok:
        return f"decision {proof.decision_id} OK{where}"
    return f"decision {proof.decision_id} NOT PROVED{where}: {proof.problem}"


def _verify(trail: AuditTrail, keyed: bool, key_path: Path, checkpoint_dir: Path, decision: str | None) -> int:
    if not keyed:
        print(f"outrider: no audit key at {key_path}: only records from before the key can be checked", file=sys.stderr)
    elif not checkpoint_dir.is_dir():
        print(f"outrider: no checkpoints in {checkpoint_dir}: truncation cannot be detected", file=sys.stderr)
    if decision is None:
        result = trail.verify()
        print(describe(result))
        return 0 if result.ok else 1
    result, proof = trail.verify_decision(decision)
    print(describe(result))
    print(describe_proof(proof))
    return 0 if result.ok and proof.ok else 1


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
