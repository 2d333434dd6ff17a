"""Execution leases (the SandboxExecutionGuard contract): slots per isolation key, without I/O.

A guard controls how many executions may run at once for a key (USER, AGENT, SESSION or GLOBAL scope
and an id). Slots per key come from the policy (default 1); the "noop" policy is the source's default
guard: always granted at once, unlimited. Each grant carries a fencing token that grows monotonically
per key, so a resource can refuse writes from a holder that lost its slot.
"""

from __future__ import annotations

import enum
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from server.domain.agents import validate_id
from server.domain.errors import InvalidArgument
from server.domain.values import is_number

MAX_KEY_ID = 256
NOOP = "noop"


class Scope(enum.IntEnum):
    # Values match outrider.v1.IsolationScope.
    USER = 1
    AGENT = 2
    SESSION = 3
    GLOBAL = 4


class LeaseState(enum.IntEnum):
    # Values match outrider.v1.LeaseState.
    ACTIVE = 1
    RELEASED = 2
    EXPIRED = 3
    REVOKED = 4


@dataclass(frozen=True, slots=True)
class IsolationKey:
    scope: Scope
    id: str = ""

    @property
    def text(self) -> str:
        """`user:alice`, `global:` — what slot policies match and the key's storage name."""
        return f"{self.scope.name.lower()}:{self.id}"

    @classmethod
    def parse(cls, text: str) -> IsolationKey:
        scope, _, ident = text.partition(":")
        return cls(Scope[scope.upper()], ident)


def validate_key(scope: int, ident: str) -> IsolationKey:
    if scope not in Scope._value2member_map_:
        raise InvalidArgument("isolation_key.scope must be USER, AGENT, SESSION or GLOBAL", field="isolation_key.scope")
    s = Scope(scope)
    if not ident and s is not Scope.GLOBAL:
        raise InvalidArgument(f"isolation_key.id is required for scope {s.name}", field="isolation_key.id")
    if len(ident) > MAX_KEY_ID:
        raise InvalidArgument(f"isolation_key.id must be at most {MAX_KEY_ID} characters", field="isolation_key.id")
    return IsolationKey(s, ident)


def validate_holder(agent_id: str) -> str:
    return validate_id(agent_id, "agent_id")


@dataclass(slots=True)
class Lease:
    lease_id: str
    key: IsolationKey
    agent_id: str
    fencing_token: int
    ttl: float
    acquire_time: datetime
    expire_time: datetime
    expires_at: float  # monotonic
    state: LeaseState = LeaseState.ACTIVE
    end_time: datetime | None = None
    request_id: str = ""

    def expired(self, now: float) -> bool:
        return self.state is LeaseState.ACTIVE and now >= self.expires_at

    def copy(self) -> Lease:
        return replace(self)


@dataclass(frozen=True, slots=True)
class SlotRule:
    pattern: str  # a glob over `scope:id`, e.g. `user:*` or `global:`
    slots: int | None  # None: unlimited (the noop guard)


@dataclass(frozen=True, slots=True)
class SlotPolicy:
    """Slots per key: the first matching rule, else the default (1)."""

    default: int | None = 1
    rules: Sequence[SlotRule] = ()

    def slots_for(self, key: IsolationKey) -> int | None:
        text = key.text
        for rule in self.rules:
            if fnmatch.fnmatchcase(text, rule.pattern):
                return rule.slots
        return self.default


def parse_slots(value: Any, where: str) -> int | None:
    """A whole number >= 1, or "noop" (unlimited)."""
    if isinstance(value, str) and value.lower() in (NOOP, "unlimited"):
        return None
    if not is_number(value) or value < 1 or not float(value).is_integer():
        raise InvalidArgument(f"{where}: must be a whole number >= 1 or 'noop', got {value!r}", field=where)
    return int(value)


def parse_slot_rules(raw: Any, where: str) -> tuple[SlotRule, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise InvalidArgument(f"{where}: must be a mapping of key pattern to slots", field=where)
    rules = []
    for pattern, slots in raw.items():
        if not isinstance(pattern, str) or ":" not in pattern:
            raise InvalidArgument(
                f"{where}: key pattern {pattern!r} must look like 'scope:id' (e.g. 'user:*')", field=where
            )
        scope = pattern.split(":", 1)[0]
        if scope != "*" and scope.upper() not in Scope.__members__:
            raise InvalidArgument(
                f"{where}: key pattern {pattern!r} has an unknown scope; use user, agent, session or global",
                field=where,
            )
        rules.append(SlotRule(pattern, parse_slots(slots, f"{where}.{pattern}")))
    return tuple(rules)
