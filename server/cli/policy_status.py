"""`outrider policy status`: the fleet's one policy (digest, version, who applied it) and the version each
sidecar runs, straight from the database (docs/fleet.md, "One fleet policy")."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from server.cli.database import CANNOT_OPEN, open_engine
from server.config import Config
from server.domain.fleet.policy import short
from server.services.clock import SystemClock
from server.services.fleet.sidecars import SidecarService
from server.storage.db import migrate
from server.storage.fleet.policy import SqlFleetPolicyRepository
from server.storage.fleet.sidecars import SqlSidecarRepository


def add_status_parser(psub: Any, add_config_flags: Callable[[argparse.ArgumentParser], object]) -> None:
    status = psub.add_parser(
        "status", help="the fleet's policy (digest, version, who applied it) and each sidecar's applied version"
    )
    status.add_argument("--json", action="store_true", help="one JSON object: the policy and the sidecars")
    add_config_flags(status)


def run_status(args: argparse.Namespace, config: Config) -> int:
    """0: every alive sidecar runs the fleet's policy; 1: one lags behind (or none is stored); 2: no database."""
    engine = open_engine(config)
    if engine is None:
        return CANNOT_OPEN
    try:
        migrate(engine)
        policy = SqlFleetPolicyRepository(engine).get()
        applied = {a.sidecar_id: a for a in SqlFleetPolicyRepository(engine).applied()}
        sidecars = SidecarService(SqlSidecarRepository(engine), SystemClock(), config.fleet, "").status()
    except (SQLAlchemyError, OSError) as exc:
        print(f"outrider: cannot read the database: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    version = policy.version if policy else 0
    rows: list[dict[str, Any]] = [
        {
            "sidecar_id": st.sidecar.sidecar_id,
            "health": st.health.value,
            "host": st.sidecar.host,
            "listen": st.sidecar.listen,
            "policy_version": applied[st.sidecar.sidecar_id].version if st.sidecar.sidecar_id in applied else None,
            "policy_digest": applied[st.sidecar.sidecar_id].digest if st.sidecar.sidecar_id in applied else None,
        }
        for st in sidecars
    ]
    lagging = [r for r in rows if r["health"] == "alive" and r["policy_version"] != version]
    if args.json:
        doc = {
            "policy": None
            if policy is None
            else {
                "version": policy.version,
                "digest": policy.digest,
                "path": policy.path,
                "host": policy.host,
                "sidecar_id": policy.sidecar_id,
                "actor": policy.actor,
                "apply_time": policy.apply_time.isoformat(),
            },
            "sidecars": rows,
        }
        print(json.dumps(doc))
    else:
        if policy is None:
            print("no fleet policy is stored yet (the first sidecar to start with a policy file applies it)")
        else:
            print(f"fleet policy  version {policy.version}  digest {policy.digest}")
            print(f"applied by {policy.actor} from {policy.path or '(no file)'} on {policy.host} ({policy.sidecar_id})")
            print(f"at {policy.apply_time.isoformat(timespec='seconds')}")
        print()
        print(f"{'SIDECAR':<16} {'HEALTH':<8} {'HOST':<20} {'POLICY':>7} {'DIGEST':<12} LISTEN")
        for r in rows:
            v = r["policy_version"]
            print(
                f"{r['sidecar_id']:<16} {r['health']:<8} {str(r['host'])[:20]:<20} {'-' if v is None else v:>7} "
                f"{short(r['policy_digest'] or ''):<12} {r['listen']}"
            )
        print(f"{len(lagging)} alive sidecar(s) not on version {version}")
    return 1 if lagging or policy is None else 0
