"""`outrider agents set|show|list|reinstate`: operator-owned agent records and standings, straight on the
database like the other host commands. Running sidecars see a change within 250 ms (they poll change
counters). Records the policy file declares (`agents.records`) are replaced by the file's at the next start
or policy reload: `set` says so when it edits one."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.config import Config
from server.domain.agents import Agent
from server.domain.errors import InvalidArgument, OutriderError
from server.services.clock import SystemClock
from server.services.recovery.agents import AgentService
from server.storage.audit import SqlAuditRepository
from server.storage.db import open_migrated
from server.storage.fleet.changes import ChangeLog
from server.storage.supervisor.repository import SqlAgentRepository


def add_agents_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], None],
) -> None:
    agents = subparsers.add_parser("agents", help="agent records and standing (works on the database directly)")
    sub = agents.add_subparsers(dest="agents_command", required=True)
    put = sub.add_parser("set", help="create or change an agent's record: group, labels, capabilities (audited)")
    put.add_argument("agent_id", metavar="ID")
    put.add_argument("--group", default="", help="the agent's group (a new record: agents.default_group)")
    put.add_argument("--label", action="append", default=[], metavar="KEY=VALUE", help="set a label (repeatable)")
    put.add_argument("--remove-label", action="append", default=[], metavar="KEY", help="remove a label")
    put.add_argument("--capability", action="append", default=[], metavar="NAME", help="add a capability")
    put.add_argument("--remove-capability", action="append", default=[], metavar="NAME", help="remove one")
    add_config_flags(put)
    show = sub.add_parser("show", help="one agent's record and standing")
    show.add_argument("agent_id", metavar="ID")
    show.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    add_config_flags(show)
    listing = sub.add_parser("list", help="registered agents, by id")
    listing.add_argument("--group", default="", help="only this group")
    add_config_flags(listing)
    reinstate = sub.add_parser("reinstate", help="lift a kill's termination or an EJECT's quarantine")
    reinstate.add_argument("agent_id")
    reinstate.add_argument("--reason", default="", help="why the agent may act again (audited)")
    add_config_flags(reinstate)


def run_agents(args: argparse.Namespace, config: Config) -> int:
    engine = open_migrated(config.database_url(), config.data_dir if config.db_url is None else None)
    try:
        clock = SystemClock()
        # The sidecar's own audit chain, sealed with the same key (an unkeyed record would break `verify`).
        audit = open_audit_trail(config, SqlAuditRepository(engine), clock, load_audit_keys(config))
        agents = AgentService(
            SqlAgentRepository(engine, ChangeLog(engine, "cli", shared=True)),
            settings=config.agents,
            audit=audit,
            clock=clock,
        )
        agents.load()
        actor = f"cli:{getpass.getuser()}"
        command = args.agents_command
        if command == "reinstate":
            lifted = agents.reinstate(args.agent_id, args.reason, actor)
            kill = f" (kill {lifted.kill_id})" if lifted.kill_id else ""
            print(f"reinstated {args.agent_id}: no longer {lifted.standing.value}{kill}")
        elif command == "set":
            stored, created = agents.change(
                args.agent_id,
                group=args.group,
                labels=_labels(args.label),
                remove_labels=args.remove_label,
                capabilities=args.capability,
                remove_capabilities=args.remove_capability,
                actor=actor,
            )
            print(f"{'registered' if created else 'updated'} {_line(stored)}")
            if any(r.agent_id == stored.agent_id for r in config.agents.records):
                print(
                    f"note: {config.config_path} declares {stored.agent_id} in agents.records; the file's record "
                    "replaces this one at the next start or policy reload",
                    file=sys.stderr,
                )
        elif command == "show":
            _show(agents, args.agent_id, args.json)
        else:
            print(f"{'AGENT':<32} {'GROUP':<20} {'STANDING':<12} LABELS / CAPABILITIES")
            token = ""
            while True:
                page = agents.list(args.group, 1000, token)
                for a in page.items:
                    standing = agents.containment_of(a.agent_id)
                    state = standing.standing.value if standing else "active"
                    print(f"{a.agent_id:<32} {a.group:<20} {state:<12} {_labels_text(a)}")
                token = page.next_page_token
                if not token:
                    break
        audit.close()  # a signed checkpoint covering what this command recorded
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()


def _labels(pairs: list[str]) -> dict[str, str]:
    labels = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InvalidArgument(f"--label {pair!r}: use KEY=VALUE", field="label")
        labels[key] = value
    return labels


def _labels_text(a: Agent) -> str:
    labels = ",".join(f"{k}={v}" for k, v in sorted(a.labels.items()))
    return f"{labels or '-'} / {','.join(a.capabilities) or '-'}"


def _line(a: Agent) -> str:
    return f"{a.agent_id} in {a.group} ({_labels_text(a)})"


def _show(agents: AgentService, agent_id: str, as_json: bool) -> None:
    a = agents.get(agent_id)
    standing = agents.containment_of(agent_id)
    fields = {
        "agent_id": a.agent_id,
        "group": a.group,
        "labels": dict(a.labels),
        "capabilities": list(a.capabilities),
        "standing": standing.standing.value if standing else "active",
        "kill_id": standing.kill_id if standing else "",
        "create_time": a.create_time.isoformat() if a.create_time else "",
        "update_time": a.update_time.isoformat() if a.update_time else "",
    }
    if as_json:
        print(json.dumps(fields, sort_keys=True))
        return
    for key, value in fields.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in sorted(value.items())) or "-"
        elif isinstance(value, list):
            value = ", ".join(value) or "-"
        print(f"{key + ':':<14} {value or '-'}")
