"""Breaker state changes and budget signals onto the recovery event stream, and signals onto the
agent's control channel (SIGWARN / SIGSTOP / SIGRESUME commands), so listeners and agents hear them."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from server.domain.recovery.control import CommandType
from server.domain.recovery.events import RecoveryEventType
from server.domain.safeguards.breakers import BreakerChange
from server.domain.safeguards.budgets import BudgetSignal, SignalType
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.events import RecoveryEventLog

log = logging.getLogger(__name__)

SIGNAL_COMMAND_TIMEOUT = 30.0
_COMMANDS = {
    SignalType.SIGWARN: CommandType.SIGWARN,
    SignalType.SIGSTOP: CommandType.SIGSTOP,
    SignalType.SIGRESUME: CommandType.SIGRESUME,
}


def _time(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def signal_payload(s: BudgetSignal) -> dict[str, Any]:
    """The signal as outrider.v1.BudgetSignal JSON (the event and command payload)."""
    return {
        "agent_id": s.agent_id,
        "type": int(s.type),
        "global": s.is_global,
        "used": s.used,
        "allocated": s.allocated,
        "usage_percent": s.usage_percent,
        "signal_time": _time(s.signal_time),
    }


def change_payload(c: BreakerChange) -> dict[str, Any]:
    """The change as outrider.v1.BreakerStateChange JSON."""
    return {
        "key": c.key,
        "from_state": int(c.from_state),
        "to_state": int(c.to_state),
        "generation": c.generation,
        "failure_count": c.failure_count,
        "reason": c.reason,
        "change_time": _time(c.change_time),
    }


class SafeguardEventBridge:
    """A budgets SignalSink and a breakers BreakerListener (both call it on their own event thread)."""

    def __init__(self, events: RecoveryEventLog, hub: ControlChannelHub) -> None:
        self.events = events
        self.hub = hub

    def on_breaker_change(self, change: BreakerChange) -> None:
        self.events.emit(RecoveryEventType.BREAKER_STATE_CHANGE, change.agent_id, change_payload(change))

    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None:
        payload = signal_payload(signal)
        self.events.emit(RecoveryEventType.BUDGET_SIGNAL, agent_id, payload)
        self._command(agent_id, signal.is_global, _COMMANDS[signal.type], detail, payload)

    def _command(self, agent_id: str, is_global: bool, kind: CommandType, detail: str, payload: dict[str, Any]) -> None:
        loop = self.hub.loop
        if loop is None or loop.is_closed():
            return  # the event stream still has it

        async def send() -> None:
            # A global signal concerns every attached agent (on any sidecar); an agent's own, that agent.
            # One attached nowhere reads the event stream instead.
            for target in await self.hub.attached_anywhere() if is_global else [agent_id]:
                await self.hub.post(target, kind, detail, SIGNAL_COMMAND_TIMEOUT, payload)

        asyncio.run_coroutine_threadsafe(send(), loop)
