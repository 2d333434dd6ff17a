"""Periodic work done once fleet-wide, and roles held by one elected sidecar.

Every sidecar's scheduler ticks every job; a tick does the work only when it claims the job's current
period in storage (`fleet_jobs`: a conditional update that exactly one of any number of concurrent
sidecars wins), so N schedulers do each period's work once. A sidecar that dies mid-run loses only that
period: the next one is claimed by whoever ticks first after it is due.

An elected role (the `grpc`/`http` health checks) is a lease on a row: the holder renews it every tick
(`ttl / 3`), and when it stops renewing (crashed, cut off) another sidecar takes the role once the lease
lapses (`ttl`). A clean shutdown releases it at once. The holder stops acting when its own last renewal
is older than the lease, so two holders never overlap while their clocks agree (keep the fleet on NTP).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta

from server.domain.fleet.jobs import JobClaim
from server.services.fleet.ports import JobClaimRepository
from server.services.ports import Clock

log = logging.getLogger(__name__)


class FleetJobs:
    def __init__(self, claims: JobClaimRepository, clock: Clock, owner: str) -> None:
        self.claims = claims
        self.clock = clock
        self.owner = owner
        self._held: dict[str, float] = {}  # role -> monotonic time its lease runs out here
        self._lock = threading.Lock()

    # ---- once per period ---------------------------------------------------------------------

    def due(self, job_id: str, every: float) -> bool:
        """True when this sidecar claimed the job's period (`every` seconds from now); False when it is
        not due yet or another sidecar claimed it first."""
        now = self.clock.utcnow()
        return self.claims.claim(job_id, self.owner, now, now + timedelta(seconds=every))

    def once(self, job_id: str, every: float, run: Callable[[], object]) -> Callable[[], None]:
        """A scheduler tick that runs `run` at most once per `every` seconds fleet-wide (tick it more
        often than `every`, see `tick_interval`, so a period is not missed by phase)."""

        def tick() -> None:
            if self.due(job_id, every):
                run()

        return tick

    @staticmethod
    def tick_interval(every: float) -> float:
        """How often each sidecar ticks a job done once per `every` (a quarter, at least 50 ms)."""
        return max(every / 4, 0.05)

    # ---- elected roles -----------------------------------------------------------------------

    def hold(self, role: str, ttl: float) -> bool:
        """Renew (or take, once free) the role's lease for `ttl` seconds; True while this sidecar holds
        it. Call every `ttl / 3` at least."""
        started = self.clock.monotonic()
        now = self.clock.utcnow()
        try:
            held = self.claims.claim(role, self.owner, now, now + timedelta(seconds=ttl), keep=True)
        except Exception:
            log.exception("fleet role: could not renew the lease", extra={"role": role})
            held = False
        with self._lock:
            was = role in self._held
            if held:
                self._held[role] = started + ttl  # counted from before the write: never later than stored
            else:
                self._held.pop(role, None)
        if held != was:
            log.info("fleet role " + ("taken" if held else "lost"), extra={"role": role, "sidecar_id": self.owner})
        return held

    def holds(self, role: str) -> bool:
        """Whether this sidecar's last renewal of the role is still within its lease (no storage read)."""
        with self._lock:
            until = self._held.get(role)
        return until is not None and self.clock.monotonic() < until

    def drop_lapsed(self) -> list[str]:
        """Give up every role whose lease ran out here (a sidecar that finds it was paused past its lease:
        another sidecar may hold the role now); the next renewal takes it back only if nobody did."""
        now = self.clock.monotonic()
        with self._lock:
            lapsed = [role for role, until in self._held.items() if until <= now]
            for role in lapsed:
                del self._held[role]
        for role in lapsed:
            log.info("fleet role lost", extra={"role": role, "sidecar_id": self.owner})
        return lapsed

    def release(self, role: str) -> None:
        with self._lock:
            held = self._held.pop(role, None) is not None
        if held:
            self.claims.release(role, self.owner)

    def claims_list(self) -> Sequence[JobClaim]:
        return self.claims.all()
