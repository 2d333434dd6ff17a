"""Periodic work done once fleet-wide: the stored claim of a job's period or of an elected role."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class JobClaim:
    job_id: str
    owner: str  # the sidecar that claimed the last period, or holds the role
    due_time: datetime  # claimable again from then on (the period's end, the lease's expiry)
    run_time: datetime | None  # the last claim (None: never claimed)
