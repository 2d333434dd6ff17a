"""`outrider agents reinstate ID`: lift a kill's termination or an EJECT's quarantine straight on the
database. Running sidecars see it within 250 ms."""

from __future__ import annotations

import argparse
import getpass
import sys

from server.config import Config
from server.domain.errors import OutriderError
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.services.recovery.agents import AgentService
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate
from server.storage.fleet.changes import ChangeLog
from server.storage.supervisor.repository import SqlAgentRepository


def run_agents(args: argparse.Namespace, config: Config) -> int:
    if config.db_url is None:
        config.data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_db_engine(config.database_url())
    try:
        migrate(engine)
        clock = SystemClock()
        audit = AuditTrail(SqlAuditRepository(engine), clock, config.sensitive_keys)
        agents = AgentService(
            SqlAgentRepository(engine, ChangeLog(engine, "cli")), settings=config.agents, audit=audit, clock=clock
        )
        agents.load()
        lifted = agents.reinstate(args.agent_id, args.reason, f"cli:{getpass.getuser()}")
        kill = f" (kill {lifted.kill_id})" if lifted.kill_id else ""
        print(f"reinstated {args.agent_id}: no longer {lifted.standing.value}{kill}")
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
