"""`outrider certs revoke --fingerprint SHA256`: refuse an mTLS client certificate, straight on the database.
Running sidecars refuse it within 250 ms."""

from __future__ import annotations

import argparse
import getpass
import sys

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.config import Config
from server.domain.errors import OutriderError
from server.services.access.credentials import AccessService
from server.services.clock import SystemClock
from server.storage.access.tokens import SqlTokenRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import open_migrated
from server.storage.fleet.changes import ChangeLog


def run_certs(args: argparse.Namespace, config: Config) -> int:
    engine = open_migrated(config.database_url(), config.data_dir if config.db_url is None else None)
    try:
        clock = SystemClock()
        # The sidecar's own audit chain, sealed with the same key (an unkeyed record would break `verify`).
        audit = open_audit_trail(config, SqlAuditRepository(engine), clock, load_audit_keys(config))
        access = AccessService(SqlTokenRepository(engine, ChangeLog(engine, "cli", shared=True)), clock, audit)
        fingerprint, _ = access.revoke_certificate(args.fingerprint, args.reason, f"cli:{getpass.getuser()}")
        print(f"revoked certificate {fingerprint}")
        audit.close()
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
