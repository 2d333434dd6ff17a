"""Agents and their groups, the unit of supervision (the SupervisorAgent library's `AgentGroup`)."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from server.domain.errors import InvalidArgument, PermissionDenied

DEFAULT_GROUP = "default"
MAX_ID = 128
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]*$")
# Agent ids leave out ':' so that a key "<agent>:<dependency>" names exactly one owner.
AGENT_ID_CHARACTERS = "letters, digits and . _ @ / -"
_AGENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@/-]*$")


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


def validate_agent_id(value: str, field_name: str) -> str:
    """An agent id: 1-128 of letters, digits and . _ @ / - (no ':', the key separator)."""
    validate_id(value, field_name)
    if not _AGENT_ID.match(value):
        raise InvalidArgument(
            f"{field_name} {value!r} has characters outside {AGENT_ID_CHARACTERS} (agent ids may not contain ':')",
            field=field_name,
        )
    return value


def is_agent_id(value: str) -> bool:
    return bool(value) and len(value) <= MAX_ID and _AGENT_ID.match(value) is not None


def new_agent(
    agent_id: str, group: str, capabilities: Sequence[str], labels: Mapping[str, str], default_group: str = ""
) -> Agent:
    """A validated agent; an empty group means the default group."""
    validate_agent_id(agent_id, "agent.agent_id")
    group = group or default_group or DEFAULT_GROUP
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


class SelfRegistration(enum.Enum):
    """What an agent credential may do with RegisterAgent for itself (`agents.self_registration`)."""

    DENY = "deny"  # nothing: operators register every agent
    FIRST_TIME = "first_time"  # create its record once; never again after an operator removed it
    ALLOW = "allow"  # create its record whenever it is missing


class Standing(enum.Enum):
    """Whether an agent may act. Contained agents keep their credentials, which are refused."""

    ACTIVE = "active"
    TERMINATED = "terminated"  # killed: every RPC refused until an operator reinstates it
    QUARANTINED = "quarantined"  # ejected: CheckAction blocks until an operator places it in a group


@dataclass(frozen=True, slots=True)
class Containment:
    agent_id: str
    standing: Standing
    kill_id: str = ""
    detail: str = ""
    actor: str = ""
    update_time: datetime | None = None


@dataclass(frozen=True)
class AgentSettings:
    """The config file's `agents:` section. `records`: agent records the policy file declares (applied at
    start and on every policy reload; the file's record replaces what RPC or CLI set for the same id)."""

    self_registration: SelfRegistration = SelfRegistration.FIRST_TIME
    default_group: str = DEFAULT_GROUP
    require_registration: bool = False
    records: tuple[Agent, ...] = ()


_SETTINGS_KEYS = {"self_registration", "default_group", "require_registration", "records"}
_RECORD_KEYS = {"id", "group", "labels", "capabilities"}


def parse_agent_settings(raw: Any) -> AgentSettings:
    """Raises InvalidArgument whose `field` is the dotted key (`agents.self_registration`)."""
    if raw is None:
        return AgentSettings()
    if not isinstance(raw, Mapping):
        raise InvalidArgument("must be a mapping", field="agents")
    unknown = sorted(set(raw) - _SETTINGS_KEYS)
    if unknown:
        known = ", ".join(sorted(_SETTINGS_KEYS))
        raise InvalidArgument(f"unknown key; known keys: {known}", field=f"agents.{unknown[0]}")
    mode = raw.get("self_registration", SelfRegistration.FIRST_TIME.value)
    choices = [m.value for m in SelfRegistration]
    if mode not in choices:
        raise InvalidArgument(f"must be one of {', '.join(choices)}, got {mode!r}", field="agents.self_registration")
    group = raw.get("default_group", DEFAULT_GROUP)
    if not isinstance(group, str):
        raise InvalidArgument(f"must be a group name, got {group!r}", field="agents.default_group")
    validate_id(group, "agents.default_group")
    required = raw.get("require_registration", False)
    if not isinstance(required, bool):
        raise InvalidArgument(f"must be true or false, got {required!r}", field="agents.require_registration")
    return AgentSettings(SelfRegistration(mode), group, required, parse_agent_records(raw.get("records"), group))


def parse_agent_records(raw: Any, default_group: str = DEFAULT_GROUP) -> tuple[Agent, ...]:
    """`agents.records`: a list of `{id, group, labels, capabilities}`; errors name `agents.records[i].key`.
    A record without a group is in `default_group`; labels and capabilities are the whole set (none: empty)."""
    if raw is None:
        return ()
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise InvalidArgument("must be a list of {id, group, labels, capabilities}", field="agents.records")
    records: dict[str, Agent] = {}
    for i, item in enumerate(raw):
        where = f"agents.records[{i}]"
        if not isinstance(item, Mapping):
            raise InvalidArgument("must be a mapping with id, group, labels, capabilities", field=where)
        unknown = sorted(set(item) - _RECORD_KEYS)
        if unknown:
            known = ", ".join(sorted(_RECORD_KEYS))
            raise InvalidArgument(f"unknown key; known keys: {known}", field=f"{where}.{unknown[0]}")
        agent_id, group = item.get("id"), item.get("group", "")
        if not isinstance(agent_id, str) or not agent_id:
            raise InvalidArgument(f"must be an agent id, got {agent_id!r}", field=f"{where}.id")
        if not isinstance(group, str):
            raise InvalidArgument(f"must be a group name, got {group!r}", field=f"{where}.group")
        labels = item.get("labels") or {}
        if not isinstance(labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str | int | float | bool) for k, v in labels.items()
        ):
            raise InvalidArgument("must map label names to plain values", field=f"{where}.labels")
        capabilities = item.get("capabilities") or []
        if not isinstance(capabilities, Sequence) or isinstance(capabilities, str):
            raise InvalidArgument("must be a list of capability names", field=f"{where}.capabilities")
        if not all(isinstance(c, str) for c in capabilities):
            raise InvalidArgument("must be a list of capability names", field=f"{where}.capabilities")
        if agent_id in records:
            raise InvalidArgument(f"agent {agent_id!r} is declared twice", field=f"{where}.id")
        try:
            records[agent_id] = new_agent(
                agent_id, group, capabilities, {k: _label(v) for k, v in labels.items()}, default_group
            )
        except InvalidArgument as exc:
            key = (exc.field or "").removeprefix("agent.").replace("agent_id", "id")
            raise InvalidArgument(exc.message, field=f"{where}.{key}" if key else where) from exc
    return tuple(records.values())


def _label(value: str | int | float | bool) -> str:
    if isinstance(value, bool):  # YAML `true` is the label value "true", as a user wrote it
        return "true" if value else "false"
    return str(value)


def self_registration(
    existing: Agent | None,
    ever_registered: bool,
    agent_id: str,
    group: str,
    capabilities: Sequence[str],
    labels: Mapping[str, str],
    settings: AgentSettings,
) -> Agent | None:
    """What an agent credential's RegisterAgent for itself may do: the record to create, or None when the
    existing record stands unchanged. Group, labels and capabilities are operator-owned: an agent may
    never set them, and may create only a bare record in the default group."""
    if existing is not None:
        for name, asked, has in (
            ("agent.group", group, existing.group),
            ("agent.labels", dict(labels), dict(existing.labels)),
            ("agent.capabilities", list(dict.fromkeys(capabilities)), list(existing.capabilities)),
        ):
            if asked and asked != has:
                raise PermissionDenied(
                    f"{name} of agent {agent_id!r} is set by operators; an agent credential cannot change it",
                    reason="OPERATOR_OWNED_FIELD",
                    field=name,
                )
        return None
    if settings.self_registration is SelfRegistration.DENY:
        raise PermissionDenied(
            f"agent {agent_id!r} is not registered and agents.self_registration is deny: an operator registers it",
            reason="SELF_REGISTRATION_DISABLED",
        )
    if settings.self_registration is SelfRegistration.FIRST_TIME and ever_registered:
        raise PermissionDenied(
            f"agent {agent_id!r} was registered before and its record was removed; with "
            "agents.self_registration first_time only an operator registers it again",
            reason="SELF_REGISTRATION_DISABLED",
        )
    if group and group != settings.default_group:
        raise PermissionDenied(
            f"an agent registering itself joins {settings.default_group!r}; agent.group is set by operators",
            reason="OPERATOR_OWNED_FIELD",
            field="agent.group",
        )
    for name, value in (("agent.labels", labels), ("agent.capabilities", capabilities)):
        if value:
            raise PermissionDenied(
                f"{name} is set by operators; an agent registering itself may not give any",
                reason="OPERATOR_OWNED_FIELD",
                field=name,
            )
    return new_agent(agent_id, settings.default_group, (), {})
