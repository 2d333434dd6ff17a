"""Agents and their groups, the unit of supervision (the SupervisorAgent library's `AgentGroup`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from server.domain.errors import InvalidArgument

DEFAULT_GROUP = "default"
MAX_ID = 128
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]*$")


@dataclass(frozen=True, slots=True)
class Agent:
    agent_id: str
    group: str = DEFAULT_GROUP
    capabilities: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    create_time: datetime | None = None
    update_time: datetime | None = None


def validate_id(value: str, field_name: str) -> str:
    if not value:
        raise InvalidArgument(f"{field_name} is required", field=field_name)
    if len(value) > MAX_ID:
        raise InvalidArgument(f"{field_name} must be at most {MAX_ID} characters", field=field_name)
    if not _ID.match(value):
        raise InvalidArgument(
            f"{field_name} {value!r} has characters outside letters, digits and . _ : @ / -",
            field=field_name,
        )
    return value


def is_agent_id(value: str) -> bool:
    return bool(value) and len(value) <= MAX_ID and _ID.match(value) is not None


def new_agent(agent_id: str, group: str, capabilities: Sequence[str], labels: Mapping[str, str]) -> Agent:
    """A validated agent; an empty group means the default group."""
    validate_id(agent_id, "agent.agent_id")
    group = group or DEFAULT_GROUP
    validate_id(group, "agent.group")
    for cap in capabilities:
        if not cap or len(cap) > 256:
            raise InvalidArgument("agent.capabilities entries must be 1-256 characters", field="agent.capabilities")
    for key, value in labels.items():
        if not key or len(key) > 128 or len(value) > 1024:
            raise InvalidArgument(
                "agent.labels keys must be 1-128 characters and values at most 1024", field="agent.labels"
            )
    return Agent(agent_id, group, tuple(dict.fromkeys(capabilities)), dict(labels))
