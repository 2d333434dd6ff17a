"""`outrider tokens issue|revoke|list`: token management straight on the database, so the first
operator token can be issued before any sidecar runs. Running sidecars see changes within 250 ms."""

from __future__ import annotations

import argparse
import getpass
import sys

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.config import Config
from server.domain.access.principals import PrincipalKind
from server.domain.errors import OutriderError
from server.services.access.credentials import AccessService
from server.services.clock import SystemClock
from server.storage.access.tokens import SqlTokenRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import open_migrated
from server.storage.fleet.changes import ChangeLog


def run_tokens(args: argparse.Namespace, config: Config) -> int:
    engine = open_migrated(config.database_url(), config.data_dir if config.db_url is None else None)
    try:
        clock = SystemClock()
        audit = open_audit_trail(config, SqlAuditRepository(engine), clock, load_audit_keys(config))
        access = AccessService(SqlTokenRepository(engine, ChangeLog(engine, "cli", shared=True)), clock, audit)
        actor = f"cli:{getpass.getuser()}"
        if args.tokens_command == "issue":
            admin = getattr(args, "admin", None)  # callers building their own Namespace may leave it out
            if args.agent:
                kind, subject = PrincipalKind.AGENT, args.agent
            else:
                kind, subject = PrincipalKind.OPERATOR, admin or args.operator
            secret, token = access.issue(kind, subject, args.description, actor, admin=bool(admin))
            what = "admin" if token.admin else kind.name.lower()
            print(f"# {token.token_id}: {what} {subject!r}. The secret is shown only now:", file=sys.stderr)
            print(secret)
        elif args.tokens_command == "revoke":
            token = access.revoke(args.token_id, actor)
            print(f"revoked {token.token_id} ({token.kind.name.lower()} {token.subject!r})")
        else:
            token_page = ""
            print(f"{'TOKEN ID':<18} {'KIND':<9} {'SUBJECT':<30} {'CREATED (UTC)':<20} STATUS")
            while True:
                page = access.list("", args.all, 1000, token_page)
                for t in page.items:
                    status = f"revoked {t.revoke_time:%Y-%m-%d %H:%M}" if t.revoke_time else "active"
                    label = "admin" if t.admin else t.kind.name.lower()
                    print(f"{t.token_id:<18} {label:<9} {t.subject:<30} {t.create_time:%Y-%m-%d %H:%M:%S}  {status}")
                token_page = page.next_page_token
                if not token_page:
                    break
        audit.close()  # a signed checkpoint covering what this command recorded
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
