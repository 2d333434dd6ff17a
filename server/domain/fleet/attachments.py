"""Which sidecar holds an agent's control channel (its `Attach` stream): one attachment per agent, fleet-wide."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Attachment:
    agent_id: str
    attachment_id: str  # one Attach stream; a new stream of the same agent gets a new id
    sidecar_id: str  # the sidecar holding the stream
    connect_time: datetime
    last_seen_time: datetime  # the agent's last sign of life there, stamped with the sidecar's heartbeat
