"""`outrider console`: the reviewer console alone, on the sidecar's database, without gRPC.

Decisions taken here reach agents waiting in the sidecar within a second (the sidecar polls the
approvals counter); the pages see the sidecar's new requests the same way.

On PostgreSQL the console is a member of the fleet like a sidecar without gRPC: it has a row in `sidecars`
(listen `console <url>`, a heartbeat, so a kill it runs is taken over if it dies), its caches follow the
change listener, and its actions (Kill, Force open/close, Reset, Allocate, guardrail changes) go through the
same services: a kill reaches the agent through the sidecar holding its channel (a routed command). On
SQLite (one sidecar) agents, breakers and budgets live in the sidecar's memory: the console shows them as
stored when it started and refuses those actions.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from server.config import Config, ConfigError
from server.domain.errors import OutriderError

log = logging.getLogger("outrider")


def run_console(config: Config, url_file: str | None = None) -> int:
    from console.serving import start
    from server.bootstrap import build_services

    try:
        services = build_services(config)
    except (OutriderError, ConfigError, OSError) as exc:
        text = exc.message if isinstance(exc, OutriderError) else str(exc)
        print(f"outrider: cannot start the console: {text}", file=sys.stderr)
        return 2
    fleet = not config.database_url().startswith("sqlite")
    loop: asyncio.AbstractEventLoop | None = None
    beating = threading.Event()
    try:
        services.health["console_alone"] = not fleet
        try:
            console = start(services, config.console_listen)
        except OSError as exc:
            print(f"outrider: cannot serve the console on {config.console_listen}: {exc}", file=sys.stderr)
            return 2
        services.health["console_url"] = console.url
        if fleet:
            # The loop the recovery services run their coroutines on (kills, routed commands), as in a sidecar.
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="console-loop", daemon=True).start()
            services.recovery.hub.bind_loop(loop)
            services.fleet.register(f"console {console.url}")
            every = config.fleet.heartbeat_interval
            threading.Thread(
                target=_heartbeat, args=(services, every, beating), name="console-heartbeat", daemon=True
            ).start()
        if url_file:
            Path(url_file).write_text(console.url)
        log.info("console serving (without gRPC)", extra={"url": console.url})
        stop = threading.Event()

        def _stop(*_: Any) -> None:
            stop.set()

        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _stop)
        stop.wait()
        log.info("console shutting down")
        console.stop()
        return 0
    finally:
        beating.set()
        if loop is not None:
            services.recovery.close()
            services.fleet.stop()
            loop.call_soon_threadsafe(loop.stop)
        services.close()


def _heartbeat(services: Any, every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        try:
            services.fleet.heartbeat()
        except Exception:  # the database is away: the next beat tries again
            log.warning("console heartbeat failed", exc_info=True)
