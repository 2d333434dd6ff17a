"""A control command routed through the database to the sidecar holding the agent's channel (no I/O).

PENDING (written by the issuing sidecar, addressed to the holder) -> DELIVERED (claimed by the holder,
which then sends it to the agent: at most once) -> SETTLED (the outcome, written once by whoever settles
first: the holder with the agent's ack, or the issuer on timeout or when the holder went away).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

# Not an agent command: the holder ends the agent's stream (with the payload's message and reason).
END_STREAM = "END_STREAM"


class RoutedState(enum.Enum):
    PENDING = "pending"
    DELIVERED = "delivered"
    SETTLED = "settled"


@dataclass(frozen=True, slots=True)
class RoutedCommand:
    command_id: str
    agent_id: str
    kind: str  # a CommandType name, or END_STREAM
    reason: str
    payload: Any  # JSON form (server/domain/recovery/codec.py)
    issuer: str  # sidecar ids
    target: str
    issue_time: datetime
    expire_time: datetime
    state: RoutedState = RoutedState.PENDING
    delivery: str = ""  # a Delivery value once settled
    outcome: int = 0  # a CommandOutcome value, 0 for none
    detail: str = ""
    settle_time: datetime | None = None
