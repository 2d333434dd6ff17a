"""Live updates: one Server-Sent Events stream per page, carrying re-rendered partials (hx-swap-oob).

One poller thread per console reads the change indicators of the topics someone listens to every
250 ms: `approvals` is the approvals change counter (`services.approvals.version()`, one tiny row), so
a request created or decided by this process, the sidecar or a separate `outrider console` reaches
every open screen within a second; pages register their own topics with `watch` (agents, breakers,
budgets). Changes made in this process poke the poller at once. Each stream re-renders its page's
partials when its topic's indicator moves and sends them only when what they show changed; a comment
line every 15 s keeps proxies from closing an idle stream. Streams end after `MAX_STREAM_SECONDS` (the
browser reconnects and gets the current state) and when the session ends.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from flask import Blueprint, Flask, current_app, g, render_template, session, stream_with_context
from werkzeug.wrappers import Response

from console.approvals import detail_context, pending_context, pending_key
from console.web import services
from server.container import Services
from server.domain.access.users import Role

log = logging.getLogger(__name__)

bp = Blueprint("sse", __name__)

POLL_SECONDS = 0.25
HEARTBEAT_SECONDS = 15.0
MAX_STREAM_SECONDS = 600.0
EXTENSION = "outrider.sse"


APPROVALS = "approvals"
# What a topic's indicator reads: any hashable value (never None) that changes when the topic's pages would.
Indicator = Callable[[], Hashable]


class VersionHub:
    """Polls the change indicator of every topic with a listener; streams wait on their topic's.

    The limit on streams is shared by all topics: each stream holds a server thread. Within it, one user
    holds at most `per_user` streams (`per_admin` for admins), and the last `reserved_for_admins` streams
    are admins' only: one viewer with many tabs (or a script) cannot lock an admin out of the live pages.
    """

    def __init__(
        self,
        read: Indicator,
        max_streams: int,
        interval: float = POLL_SECONDS,
        per_user: int = 4,
        per_admin: int = 8,
        reserved_for_admins: int | None = None,
    ) -> None:
        self.per_user, self.per_admin = per_user, per_admin
        self.reserved_for_admins = max_streams // 8 if reserved_for_admins is None else reserved_for_admins
        self._users: dict[str, int] = {}
        self.interval = interval
        self._cond = threading.Condition()
        self._reads: dict[str, Indicator] = {APPROVALS: read}
        self._versions: dict[str, Hashable | None] = {}
        self._listeners: dict[str, int] = {}
        self._max = max_streams
        self._thread: threading.Thread | None = None
        self._closed = False
        self._poked = False

    def watch(self, topic: str, read: Indicator) -> None:
        """Register (or replace) the indicator of `topic`."""
        with self._cond:
            self._reads[topic] = read
            self._versions.pop(topic, None)

    def subscribe(self, topic: str = APPROVALS, user: str = "", admin: bool = False) -> bool:
        """False when the console already serves its maximum of streams (each holds a server thread), when
        `user` holds its share already, or when only the admins' reserve is left and `user` is no admin.
        No `user` (tests, internal callers): only the overall maximum applies."""
        with self._cond:
            if topic not in self._reads:
                raise KeyError(f"no live topic {topic!r}")
            total = sum(self._listeners.values())
            if self._closed or total >= self._max:
                return False
            if user:
                if self._users.get(user, 0) >= (self.per_admin if admin else self.per_user):
                    return False
                if not admin and total >= self._max - self.reserved_for_admins:
                    return False
                self._users[user] = self._users.get(user, 0) + 1
            if not self._listeners.get(topic):
                self._versions[topic] = None  # read afresh before the first answer
            self._listeners[topic] = self._listeners.get(topic, 0) + 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="console-sse-poll", daemon=True)
                self._thread.start()
            else:
                self._poked = True  # a new topic is read now, not after the next interval
                self._cond.notify_all()
            return True

    def unsubscribe(self, topic: str = APPROVALS, user: str = "") -> None:
        with self._cond:
            self._listeners[topic] = max(0, self._listeners.get(topic, 0) - 1)
            if user:
                left = self._users.get(user, 0) - 1
                if left > 0:
                    self._users[user] = left
                else:
                    self._users.pop(user, None)
            self._cond.notify_all()

    def wait(self, seen: Hashable | None, timeout: float, topic: str = APPROVALS) -> Hashable | None:
        """The topic's indicator once it differs from `seen` (or at `timeout`, unchanged); None once closed."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._closed:
                version = self._versions.get(topic)
                if version is not None and version != seen:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            if self._closed:
                return None
            version = self._versions.get(topic)
            return version if version is not None else seen

    def poke(self) -> None:
        """Read the indicators now (this process changed something): no wait for the next poll."""
        with self._cond:
            self._poked = True
            self._cond.notify_all()

    def close(self) -> None:
        """Ends every stream (at shutdown)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def listeners(self) -> int:
        with self._cond:
            return sum(self._listeners.values())

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closed or not any(self._listeners.values()):
                    self._thread = None
                    return
                topics = [(t, self._reads[t]) for t, n in self._listeners.items() if n > 0]
            for topic, read in topics:
                try:
                    version = read()
                except Exception as exc:  # storage briefly away: keep the streams, try again
                    log.debug("console: reading the %s indicator failed: %s", topic, exc)
                    continue
                with self._cond:
                    if version != self._versions.get(topic):
                        self._versions[topic] = version
                        self._cond.notify_all()
            with self._cond:
                if not self._closed and not self._poked:
                    self._cond.wait(self.interval)
                self._poked = False


def init_app(app: Flask, max_streams: int = 64) -> None:
    s: Services = app.config["SERVICES"]
    h = app.extensions[EXTENSION] = VersionHub(lambda: s.approvals.version(), max_streams)
    # Changes made in this process wake the streams at once; the poll covers other processes.
    s.approvals.subscribe(h.poke)
    s.recovery.events.add_listener(lambda _event: h.poke())  # recovery, breaker and budget events


def events_or_every(services: Services, seconds: float) -> Indicator:
    """Changes with every recovery event, and at least every `seconds` (for counts that move without one)."""
    events = services.recovery.events

    def read() -> Hashable:
        return events.latest_sequence, int(time.monotonic() // seconds)

    return read


def watch(app: Flask, topic: str, read: Indicator) -> None:
    """A page's live topic: its streams re-render when `read()` changes."""
    app.extensions[EXTENSION].watch(topic, read)


def hub() -> VersionHub:
    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


def event(name: str, html: str) -> str:
    # A lone CR ends an SSE line too: normalise, so untrusted text can never start a field of its own.
    lines = html.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return f"event: {name}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


Render = Callable[[], tuple[Hashable, str]]


def stream(render: Render, topic: str = APPROVALS) -> Response:
    """An SSE response that sends `render()`'s HTML whenever its key changes (looked at when `topic` moves)."""
    h = hub()
    name = g.user.name if g.user is not None else ""
    admin = g.user is not None and g.user.role.at_least(Role.ADMIN)
    if not h.subscribe(topic, name, admin):
        return Response("too many live connections; retrying", 503, {"Retry-After": "5"})
    sid = session.get("sid")
    users = services().users

    def generate() -> Iterator[str]:
        try:
            yield "retry: 1000\n\n"
            started = beat = time.monotonic()
            seen: Hashable | None = None
            shown: Any = object()
            while time.monotonic() - started < MAX_STREAM_SECONDS:
                version = h.wait(seen, max(0.0, beat + HEARTBEAT_SECONDS - time.monotonic()), topic)
                if version is None:
                    return
                if version != seen:
                    seen = version
                    g.user = users.session_user(sid) if isinstance(sid, str) else None
                    if g.user is None:
                        return  # signed out, ended everywhere, or the user disabled: the session is over
                    key, html = render()
                    if key != shown:
                        shown = key
                        beat = time.monotonic()
                        yield event("update", html)
                        continue
                if time.monotonic() >= beat + HEARTBEAT_SECONDS:
                    if not isinstance(sid, str) or users.session_user(sid) is None:
                        return  # an ended session's stream closes by the next heartbeat at the latest
                    beat = time.monotonic()
                    yield ": heartbeat\n\n"
        finally:
            h.unsubscribe(topic, name)

    return Response(
        stream_with_context(generate()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@bp.get("/events/pending")
def pending() -> Response:
    def render() -> tuple[Hashable, str]:
        ctx = pending_context(oob=True)  # the filters and sort of the page, from the stream's query
        return pending_key(ctx), render_template("_pending.html", **ctx)

    return stream(render)


@bp.get("/events/approvals/<approval_id>")
def approval(approval_id: str) -> Response:
    services().approvals.get(approval_id)  # 404 before the stream starts

    def render() -> tuple[Hashable, str]:
        a = services().approvals.get(approval_id)
        html = render_template("_approval_status.html", **detail_context(a, oob=True))
        if a.closed:
            html += render_template("_decide.html", **detail_context(a, oob=True))
        return a.version, html

    return stream(render)
