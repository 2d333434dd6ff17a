"""`outrider users add|list|disable|enable|passwd`: console reviewers, straight on the database, so the
first admin exists before any console runs. Changes reach running consoles at once (sessions are
checked against the database on every request)."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.config import Config
from server.domain.access.users import Role
from server.domain.errors import InvalidArgument, OutriderError
from server.services.access.users import UserService
from server.services.clock import SystemClock
from server.storage.access.users import SqlSessionRepository, SqlSettingsRepository, SqlUserRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import open_migrated


def add_users_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], None],
) -> None:
    users = subparsers.add_parser("users", help="console reviewers: add, list, disable (works on the database)")
    sub = users.add_subparsers(dest="users_command", required=True)
    add = sub.add_parser("add", help="add a reviewer; the password is prompted for")
    add.add_argument("name")
    add.add_argument(
        "--role", required=True, choices=[r.value for r in Role], help="viewer sees, approver decides, admin manages"
    )
    add.add_argument("--groups", default="", help="comma-separated groups (approvers may name group:NAME)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from stdin (for scripts)")
    add_config_flags(add)
    listing = sub.add_parser("list", help="list reviewers")
    add_config_flags(listing)
    for verb, text in (("disable", "disable a reviewer (ends their sessions)"), ("enable", "enable a reviewer again")):
        p = sub.add_parser(verb, help=text)
        p.add_argument("name")
        add_config_flags(p)
    passwd = sub.add_parser("passwd", help="set a reviewer's password (ends their sessions)")
    passwd.add_argument("name")
    passwd.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    add_config_flags(passwd)


def run_users(args: argparse.Namespace, config: Config) -> int:
    engine = open_migrated(config.database_url(), config.data_dir if config.db_url is None else None)
    try:
        clock = SystemClock()
        audit = open_audit_trail(config, SqlAuditRepository(engine), clock, load_audit_keys(config))
        users = UserService(
            SqlUserRepository(engine),
            SqlSettingsRepository(engine),
            clock,
            audit,
            sessions=SqlSessionRepository(engine),
        )
        actor = f"cli:{getpass.getuser()}"
        command = args.users_command
        if command == "add":
            user = users.add(args.name, args.role, args.groups, _password(args.password_stdin), actor)
            groups = f" in {', '.join(user.groups)}" if user.groups else ""
            print(f"added {user.name} ({user.role.value}{groups})")
        elif command == "passwd":
            users.set_password(args.name, _password(args.password_stdin), actor)
            print(f"new password set for {args.name}")
        elif command in ("disable", "enable"):
            user = users.set_disabled(args.name, command == "disable", actor)
            print(f"{command}d {user.name}")
        else:
            print(f"{'NAME':<24} {'ROLE':<9} {'GROUPS':<30} {'CREATED (UTC)':<20} STATUS")
            for u in users.list():
                print(
                    f"{u.name:<24} {u.role.value:<9} {','.join(u.groups):<30} {u.create_time:%Y-%m-%d %H:%M:%S}  "
                    f"{'disabled' if u.disabled else 'active'}"
                )
        audit.close()  # a signed checkpoint covering what this command recorded
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Repeat the password: ") != first:
        raise InvalidArgument("the passwords differ", field="password")
    return first
