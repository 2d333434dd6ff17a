"""`outrider console`: the reviewer console alone, on the sidecar's database, without gRPC.

Decisions taken here reach agents waiting in the sidecar within a second (the sidecar polls the
approvals counter); the pages see the sidecar's new requests the same way.
"""

from __future__ import annotations

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
    try:
        services.health["console_alone"] = True
        try:
            console = start(services, config.console_listen)
        except OSError as exc:
            print(f"outrider: cannot serve the console on {config.console_listen}: {exc}", file=sys.stderr)
            return 2
        services.health["console_url"] = console.url
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
        services.close()
