"""This sidecar's row in `sidecars` (registered at start, stamped by a heartbeat, marked at stop) and the
fleet's health as the database sees it."""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from importlib import metadata

from server.domain.fleet.sidecars import Sidecar, SidecarHealth
from server.services.fleet.ports import SidecarRepository
from server.services.fleet.settings import FleetSettings
from server.services.ports import Clock

log = logging.getLogger(__name__)

_FORGET_AFTER = timedelta(days=7)  # stopped or gone sidecars stay listed this long
FORGET_EVERY = 3600.0


def new_sidecar_id() -> str:
    return "sc-" + secrets.token_hex(6)


def _version() -> str:
    try:
        return metadata.version("outrider")
    except metadata.PackageNotFoundError:
        return "dev"


@dataclass(frozen=True, slots=True)
class SidecarStatus:
    sidecar: Sidecar
    health: SidecarHealth
    is_self: bool


class SidecarService:
    def __init__(
        self,
        repo: SidecarRepository,
        clock: Clock,
        settings: FleetSettings,
        sidecar_id: str,
        on_resumed: Sequence[Callable[[], object]] = (),
    ) -> None:
        """`on_resumed` run, in order, on the heartbeat that finds this sidecar was declared gone (paused or
        cut off past fleet.sidecar_timeout): what it must re-assert or give up before it is trusted again."""
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.sidecar_id = sidecar_id
        self.on_resumed = tuple(on_resumed)
        self._registered = False
        self._listen = ""
        self._beat = 0.0  # monotonic time of the last heartbeat written
        self.resumes = 0  # how many times it found itself declared gone

    def register(self, listen: str) -> Sidecar:
        now = self.clock.utcnow()
        me = Sidecar(self.sidecar_id, socket.gethostname(), os.getpid(), _version(), listen, now, now)
        self.repo.register(me)
        self._registered = True
        self._listen = listen
        self._beat = self.clock.monotonic()
        log.info("sidecar registered in the fleet", extra={"sidecar_id": me.sidecar_id, "listen": listen})
        return me

    def heartbeat(self) -> bool:
        """The scheduler's job, every fleet.heartbeat_interval. True when this sidecar finds it was declared
        gone meanwhile (its row forgotten, its stored heartbeat or its own last one older than
        fleet.sidecar_timeout: a SIGSTOP, a VM freeze, a long GC, a cut-off): the others may have released
        its attachments, taken over its kills and its roles, and changes were committed that its caches may
        not reflect. Then every `on_resumed` runs before the next heartbeat."""
        if not self._registered:
            return False
        now, beat = self.clock.utcnow(), self.clock.monotonic()
        before = self.repo.heartbeat(self.sidecar_id, now)
        silent = beat - self._beat
        self._beat = beat
        if before is None:
            self.register(self._listen)
        lapse = timedelta(seconds=self.settings.sidecar_timeout)
        if before is not None and now - before <= lapse and silent <= self.settings.sidecar_timeout:
            return False
        self.resumes += 1
        log.warning(
            "this sidecar was declared gone (paused or cut off past fleet.sidecar_timeout): re-asserting its "
            "attachments, reloading its caches, giving up lapsed roles",
            extra={"sidecar_id": self.sidecar_id, "silent_seconds": round(silent, 3), "row_gone": before is None},
        )
        for resumed in self.on_resumed:
            try:
                resumed()
            except Exception:
                log.exception("re-asserting after a resume failed (the next heartbeat tries again)")
                self._beat = float("-inf")  # so the next heartbeat counts as a resume again
                break
        return True

    def forget_gone(self) -> int:
        """Drop the rows of sidecars stopped or gone for seven days (the `fleet-forget` job, once
        fleet-wide every FORGET_EVERY seconds)."""
        return self.repo.prune(self.clock.utcnow() - _FORGET_AFTER)

    def stop(self) -> None:
        if self._registered:
            self.repo.stopped(self.sidecar_id, self.clock.utcnow())
            self._registered = False

    def status(self) -> list[SidecarStatus]:
        now = self.clock.utcnow()
        return [
            SidecarStatus(s, s.health(now, self.settings.sidecar_timeout), s.sidecar_id == self.sidecar_id)
            for s in self.repo.all()
        ]

    def alive(self) -> set[str]:
        """Ids of the sidecars whose heartbeat is fresh (this one included once registered)."""
        return {st.sidecar.sidecar_id for st in self.status() if st.health is SidecarHealth.ALIVE}
