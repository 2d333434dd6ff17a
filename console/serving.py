"""Serving the console: cheroot, a production WSGI server that streams responses (SSE) from a thread pool.

Each open live page holds one server thread, so the pool is sized for that and the SSE hub refuses
streams beyond `MAX_STREAMS` (the browser retries) before they could starve ordinary pages.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from cheroot import wsgi

from console import create_app
from console.sse import EXTENSION
from server.container import Services

log = logging.getLogger(__name__)

THREADS = 48
MAX_STREAMS = 40


@dataclass
class RunningConsole:
    url: str
    server: Any
    thread: threading.Thread | None
    app: Any

    def stop(self) -> None:
        self.app.extensions[EXTENSION].close()  # ends the live streams, freeing their threads
        self.server.stop()
        if self.thread is not None:
            self.thread.join(5)


def start(services: Services, listen: str, *, background: bool = True) -> RunningConsole:
    """Bind `listen` (HOST:PORT; port 0 picks a free one) and serve; in a thread unless `background` is False
    (then call `.server.serve()` yourself)."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    app = create_app(services, max_streams=MAX_STREAMS)
    server = wsgi.Server((host, int(port)), app, numthreads=THREADS, shutdown_timeout=2, server_name="outrider")
    server.prepare()
    bound = server.bind_addr[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}"
    thread = None
    if background:
        thread = threading.Thread(target=server.serve, name="console", daemon=True)
        thread.start()
    return RunningConsole(url, server, thread, app)
