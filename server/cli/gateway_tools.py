"""`outrider gateway tools list|accept`: the MCP gateway's pinned tools, straight on the database the
gateways' `pins.database` names. A gateway shows an accepted tool again at its next listing."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.config import Config
from server.domain.errors import OutriderError
from server.services.clock import SystemClock
from server.storage.audit import SqlAuditRepository
from server.storage.db import open_migrated
from server.storage.gateway.pins import SqlToolPins


def add_gateway_tools_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], None],
) -> None:
    gateway = subparsers.add_parser(
        "gateway", help="the MCP gateway's pinned tools: list changes, accept them (works on the database)"
    )
    sub = gateway.add_subparsers(dest="gateway_command", required=True)
    tools = sub.add_parser("tools", help="pinned upstream tools")
    tsub = tools.add_subparsers(dest="tools_command", required=True)
    listing = tsub.add_parser("list", help="pinned tools; a changed one shows what it changed to")
    listing.add_argument("--upstream", default="", help="only this upstream's tools")
    listing.add_argument("--changed", action="store_true", help="only tools waiting for acceptance")
    add_config_flags(listing)
    accept = tsub.add_parser("accept", help="pin a changed tool's new listing, so gateways show it again (audited)")
    accept.add_argument("--upstream", required=True, help="the upstream's name in the gateway config")
    which = accept.add_mutually_exclusive_group(required=True)
    which.add_argument("--tool", help="the upstream's name for the tool (without a prefix or namespace)")
    which.add_argument("--all", action="store_true", help="every changed tool of the upstream")
    add_config_flags(accept)


def run_gateway_tools(args: argparse.Namespace, config: Config) -> int:
    engine = open_migrated(config.database_url(), config.data_dir if config.db_url is None else None)
    try:
        pins = SqlToolPins(engine)
        if args.tools_command == "list":
            print(f"{'UPSTREAM':<20} {'TOOL':<32} {'PINNED (UTC)':<20} STATUS")
            for p in pins.pins(args.upstream, args.changed):
                status = "active"
                if p.changed:
                    what = [
                        n
                        for n, d in (
                            ("description", p.pending_description != p.description),
                            ("inputSchema", p.pending_digest != p.schema_digest),
                        )
                        if d
                    ]
                    status = f"CHANGED ({', '.join(what)}) {p.change_time:%Y-%m-%d %H:%M}: hidden until accepted"
                print(f"{p.upstream:<20} {p.tool:<32} {p.pin_time:%Y-%m-%d %H:%M:%S}  {status}")
            return 0
        clock = SystemClock()
        audit = open_audit_trail(config, SqlAuditRepository(engine), clock, load_audit_keys(config))
        actor = f"cli:{getpass.getuser()}"
        accepted = pins.accept(args.upstream, "" if args.all else args.tool, actor, datetime.now(UTC))
        for p in accepted:
            details = {"upstream": p.upstream, "tool": p.tool, "schema_digest": p.pending_digest or ""}
            audit.record(actor, "gateway.tool_accept", f"{p.upstream}.{p.tool}", details)
            print(f"accepted {p.upstream}.{p.tool}")
        audit.close()
        if not accepted:
            nothing = "no changed tools" if args.all else f"no changed tool {args.tool!r}"
            print(f"outrider: {nothing} of upstream {args.upstream!r}", file=sys.stderr)
            return 1
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
