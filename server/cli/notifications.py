"""`outrider notifications list|retry`: the outbox's delivery status, read straight from the database."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from server.adapters.audit_files import load_audit_keys, open_audit_trail
from server.cli.database import CANNOT_OPEN, open_engine
from server.config import Config
from server.domain.errors import OutriderError
from server.domain.notifications.delivery import DeliveryState, Notification, NotificationFilter
from server.services.clock import SystemClock
from server.services.notifications.outbox import NotificationService
from server.services.notifications.planner import NotificationPlanner
from server.storage.audit import SqlAuditRepository
from server.storage.db import migrate
from server.storage.notifications.repository import SqlNotificationRepository


def add_notifications_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    add_config_flags: Callable[[argparse.ArgumentParser], object],
) -> argparse.ArgumentParser:
    p = subparsers.add_parser("notifications", help="list reviewer notifications and their delivery, retry one")
    sub = p.add_subparsers(dest="notifications_command", required=True, metavar="{list,retry}")
    listing = sub.add_parser("list", help="newest first: kind, channel, state, attempts, last error")
    listing.add_argument("--state", choices=[s.value.lower() for s in DeliveryState], help="only this state")
    listing.add_argument("--channel", default="", help="only this channel")
    listing.add_argument("--kind", default="", help="only this event kind, e.g. approval.created")
    listing.add_argument("--limit", type=int, default=50, help="at most this many (default 50, max 1000)")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    add_config_flags(listing)
    retry = sub.add_parser("retry", help="give a FAILED notification one more attempt now")
    retry.add_argument("notification_id")
    add_config_flags(retry)
    return p


def run_notifications(args: argparse.Namespace, config: Config) -> int:
    """0: done; 1: refused (no such notification, not FAILED); 2: the database could not be opened."""
    engine = open_engine(config)
    if engine is None:
        return CANNOT_OPEN
    try:
        migrate(engine)
        clock = SystemClock()
        audit = open_audit_trail(config, SqlAuditRepository(engine), clock, load_audit_keys(config))
        settings = config.notifications
        planner = NotificationPlanner(settings.routes, config.console_public_url, config.sensitive_keys)
        # No senders: this process only reads and re-schedules; a running sidecar delivers.
        service = NotificationService(SqlNotificationRepository(engine), clock, settings, {}, planner, audit)
        if args.notifications_command == "retry":
            found = service.retry(args.notification_id, f"cli:{getpass.getuser()}")
            print(f"{found.notification_id} is due again ({found.channel}); a running sidecar sends it")
            audit.close()  # a signed checkpoint covering the retry's audit record
            return 0
        state = DeliveryState(args.state.upper()) if args.state else None
        page = service.list(NotificationFilter(state, args.channel, args.kind), max(1, args.limit), "")
        for n in page.items:
            print(json.dumps(_json(n)) if args.json else _line(n))
        if not page.items and not args.json:
            print("no notifications")
        return 0
    except OutriderError as exc:
        print(f"outrider: {exc.message}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        print(f"outrider: database error: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()


def _json(n: Notification) -> dict[str, object]:
    return {
        "notification_id": n.notification_id,
        "event_id": n.event_id,
        "kind": n.kind,
        "channel": n.channel,
        "agent_id": n.agent_id,
        "subject": n.subject,
        "state": n.state.value,
        "attempts": n.attempts,
        "create_time": n.create_time.isoformat(),
        "next_attempt_time": n.next_attempt_time.isoformat() if n.state is DeliveryState.PENDING else None,
        "deliver_time": n.deliver_time.isoformat() if n.deliver_time else None,
        "last_error": n.last_error,
    }


def _line(n: Notification) -> str:
    when = {
        DeliveryState.DELIVERED: f"delivered {n.deliver_time:%Y-%m-%d %H:%M:%S}" if n.deliver_time else "delivered",
        DeliveryState.PENDING: f"next {n.next_attempt_time:%Y-%m-%d %H:%M:%S}",
        DeliveryState.FAILED: "failed",
    }[n.state]
    error = f"  {n.last_error}" if n.last_error else ""
    return f"{n.notification_id}  {n.kind:<19} {n.channel:<16} {n.state.value:<9} x{n.attempts}  {when}{error}"
