"""`outrider fleet status`: the sidecars sharing this database and their health, straight from the database."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy.exc import SQLAlchemyError

from server.cli.database import CANNOT_OPEN, open_engine
from server.config import Config
from server.domain.fleet.sidecars import SidecarHealth
from server.services.clock import SystemClock
from server.services.fleet.sidecars import SidecarService
from server.storage.db import migrate
from server.storage.fleet.attachments import SqlAttachmentRepository
from server.storage.fleet.sidecars import SqlSidecarRepository


def add_fleet_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], object],
) -> argparse.ArgumentParser:
    fleet = subparsers.add_parser("fleet", help="the sidecars sharing this database")
    sub = fleet.add_subparsers(dest="fleet_command", required=True, metavar="{status}")
    status = sub.add_parser("status", help="list the sidecars with their health (exit 1 when one is gone)")
    status.add_argument("--json", action="store_true", help="one JSON object per sidecar")
    add_config_flags(status)
    return fleet


def _ago(now: datetime, then: datetime) -> str:
    seconds = max(0.0, (now - then).total_seconds())
    return f"{seconds:.1f}s ago" if seconds < 120 else f"{seconds / 60:.0f}m ago"


def run_fleet(args: argparse.Namespace, config: Config) -> int:
    """0: every listed sidecar is alive or stopped cleanly; 1: one is gone; 2: no database."""
    engine = open_engine(config)
    if engine is None:
        return CANNOT_OPEN
    try:
        migrate(engine)
        rows = SidecarService(SqlSidecarRepository(engine), SystemClock(), config.fleet, "").status()
        attached: dict[str, list[str]] = {}
        for a in SqlAttachmentRepository(engine).all():
            attached.setdefault(a.sidecar_id, []).append(a.agent_id)
    except (SQLAlchemyError, OSError) as exc:
        print(f"outrider: cannot read the database: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    now = datetime.now(UTC)
    if args.json:
        for st in rows:
            s = st.sidecar
            print(
                json.dumps(
                    {
                        "sidecar_id": s.sidecar_id,
                        "health": st.health.value,
                        "host": s.host,
                        "pid": s.pid,
                        "version": s.version,
                        "listen": s.listen,
                        "start_time": s.start_time.isoformat(),
                        "heartbeat_time": s.heartbeat_time.isoformat(),
                        "stop_time": s.stop_time.isoformat() if s.stop_time else None,
                        "attached_agents": attached.get(s.sidecar_id, []),
                    }
                )
            )
    else:
        header = f"{'SIDECAR':<16} {'HEALTH':<8} {'HOST':<20} {'PID':>7} {'VERSION':<10} {'LISTEN':<22} "
        header += f"{'HEARTBEAT':<12} AGENTS"
        print(header)
        for st in rows:
            s = st.sidecar
            print(
                f"{s.sidecar_id:<16} {st.health.value:<8} {s.host[:20]:<20} {s.pid:>7} {s.version[:10]:<10} "
                f"{s.listen[:22]:<22} {_ago(now, s.heartbeat_time):<12} {len(attached.get(s.sidecar_id, []))}"
            )
        alive = sum(st.health is SidecarHealth.ALIVE for st in rows)
        print(f"{alive} alive of {len(rows)} listed (gone after {config.fleet.sidecar_timeout:g}s without a heartbeat)")
    return 1 if any(st.health is SidecarHealth.GONE for st in rows) else 0
