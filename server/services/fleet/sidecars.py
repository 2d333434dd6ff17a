"""This sidecar's row in `sidecars` (registered at start, stamped by a heartbeat, marked at stop) and the
fleet's health as the database sees it."""

from __future__ import annotations

import logging
import os
import secrets
import socket
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
    def __init__(self, repo: SidecarRepository, clock: Clock, settings: FleetSettings, sidecar_id: str) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.sidecar_id = sidecar_id
        self._registered = False

    def register(self, listen: str) -> Sidecar:
        now = self.clock.utcnow()
        me = Sidecar(self.sidecar_id, socket.gethostname(), os.getpid(), _version(), listen, now, now)
        self.repo.register(me)
        self._registered = True
        log.info("sidecar registered in the fleet", extra={"sidecar_id": me.sidecar_id, "listen": listen})
        return me

    def heartbeat(self) -> None:
        """The scheduler's job, every fleet.heartbeat_interval."""
        if not self._registered:
            return
        self.repo.heartbeat(self.sidecar_id, self.clock.utcnow())

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
