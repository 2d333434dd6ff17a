"""A sidecar of the fleet and its health, judged from its heartbeat (no I/O; `now` is passed in)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta


class SidecarHealth(enum.Enum):
    ALIVE = "alive"  # its heartbeat is fresh
    GONE = "gone"  # its heartbeat lapsed: crashed, killed or cut off; its work may be taken over
    STOPPED = "stopped"  # it shut down cleanly


@dataclass(frozen=True, slots=True)
class Sidecar:
    sidecar_id: str
    host: str
    pid: int
    version: str
    listen: str
    start_time: datetime
    heartbeat_time: datetime
    stop_time: datetime | None = None

    def health(self, now: datetime, lapse: float) -> SidecarHealth:
        """Gone once no heartbeat came for `lapse` seconds (several heartbeat intervals)."""
        if self.stop_time is not None:
            return SidecarHealth.STOPPED
        if now - self.heartbeat_time > timedelta(seconds=lapse):
            return SidecarHealth.GONE
        return SidecarHealth.ALIVE
