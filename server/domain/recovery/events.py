"""The one durable stream of recovery events: types, the event record, filters, and payload codecs."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.domain.recovery.cascade import Cascade
from server.domain.recovery.codec import from_json, to_json
from server.domain.recovery.health import HealthStatus
from server.domain.recovery.kill import KillResult, StepHandoff
from server.domain.recovery.ladder import Escalation, RecoveryResult


class RecoveryEventType(enum.IntEnum):
    # Values match outrider.v1.RecoveryEventType.
    HEALTH_CHECK_FAILED = 1
    RECOVERY_ATTEMPT = 2
    ESCALATION = 3
    KILL = 4
    HANDOFF = 5
    CASCADE = 6
    BREAKER_STATE_CHANGE = 7
    BUDGET_SIGNAL = 8


# The payload class of each type. Breaker and budget events (other features) carry the protobuf JSON
# mapping of outrider.v1.BreakerStateChange / BudgetSignal as given.
PAYLOAD_TYPES: dict[RecoveryEventType, type | None] = {
    RecoveryEventType.HEALTH_CHECK_FAILED: HealthStatus,
    RecoveryEventType.RECOVERY_ATTEMPT: RecoveryResult,
    RecoveryEventType.ESCALATION: Escalation,
    RecoveryEventType.KILL: KillResult,
    RecoveryEventType.HANDOFF: StepHandoff,
    RecoveryEventType.CASCADE: Cascade,
    RecoveryEventType.BREAKER_STATE_CHANGE: None,
    RecoveryEventType.BUDGET_SIGNAL: None,
}


@dataclass(frozen=True, slots=True)
class RecoveryEvent:
    sequence: int  # the resume cursor: strictly increasing, stable across restarts
    type: RecoveryEventType
    agent_id: str
    event_time: datetime
    payload: Any


@dataclass(frozen=True, slots=True)
class EventFilter:
    types: frozenset[RecoveryEventType] = frozenset()
    agent_id: str = ""
    start_time: datetime | None = None
    end_time: datetime | None = None

    def matches(self, event: RecoveryEvent) -> bool:
        if self.types and event.type not in self.types:
            return False
        if self.agent_id and event.agent_id != self.agent_id:
            return False
        if self.start_time and event.event_time < self.start_time:
            return False
        return not (self.end_time and event.event_time >= self.end_time)


def encode_payload(event_type: RecoveryEventType, payload: Any) -> dict[str, Any]:
    cls = PAYLOAD_TYPES[event_type]
    if cls is None:
        if not isinstance(payload, Mapping):
            raise TypeError(f"{event_type.name} events carry a mapping")
        return dict(payload)
    if not isinstance(payload, cls):
        raise TypeError(f"{event_type.name} events carry a {cls.__name__}, not {type(payload).__name__}")
    data = to_json(payload)
    assert isinstance(data, dict)
    return data


def decode_payload(event_type: RecoveryEventType, data: Mapping[str, Any]) -> Any:
    cls = PAYLOAD_TYPES[event_type]
    return dict(data) if cls is None else from_json(cls, data)
