"""The agent control channel's vocabulary: commands the sidecar sends, and what became of one."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from server.domain.values import format_number


class CommandType(enum.IntEnum):
    # Values match outrider.v1.ControlCommandType.
    PING = 1
    RESTART = 2
    RESTART_CLEAN = 3
    KILL = 4
    HANDOFF = 5
    SIGWARN = 6
    SIGSTOP = 7
    SIGRESUME = 8


class CommandOutcome(enum.IntEnum):
    # Values match outrider.v1.CommandOutcome.
    SUCCESS = 1
    FAILURE = 2
    REJECTED = 3


class Delivery(enum.Enum):
    ACKED = "acked"  # the agent answered (any outcome)
    NOT_CONNECTED = "not_connected"  # no Attach stream when the command was to be sent
    TIMEOUT = "timeout"  # no ack before the deadline
    # Routed to another sidecar, which went away after sending it to the agent: whether the agent acted is
    # unknown (never sent twice: at most once).
    SIDECAR_LOST = "sidecar_lost"


@dataclass(frozen=True, slots=True)
class ControlCommand:
    command_id: str
    agent_id: str
    type: CommandType
    reason: str
    send_time: datetime
    expire_time: datetime
    payload: object | None = None  # KillPayload, HandoffPayload, or a budget signal mapping


@dataclass(frozen=True, slots=True)
class CommandResult:
    command_id: str
    delivery: Delivery
    outcome: CommandOutcome | None = None
    detail: str = ""

    @property
    def succeeded(self) -> bool:
        return self.delivery is Delivery.ACKED and self.outcome is CommandOutcome.SUCCESS


def failure_detail(result: CommandResult, what: str, timeout: float) -> str:
    """Why a command did not succeed: "not connected", "<what> ack timeout after 5s", "<what> rejected: ..."."""
    if result.delivery is Delivery.NOT_CONNECTED:
        return "not connected"
    if result.delivery is Delivery.TIMEOUT:
        return f"{what} ack timeout after {format_number(timeout)}s"
    if result.delivery is Delivery.SIDECAR_LOST:
        return f"{what} outcome unknown: {result.detail or 'the agent sidecar went away'}"
    outcome = result.outcome.name.lower() if result.outcome else "unspecified"
    return f"{what} {outcome}" + (f": {result.detail}" if result.detail else "")
