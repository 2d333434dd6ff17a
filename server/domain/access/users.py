"""Console reviewers: accounts, roles, and the login throttle (pure rules, time comes in as `now`).

Roles are ordered: a viewer sees, an approver also decides, an admin also manages users, guardrails
and API tokens.
"""

from __future__ import annotations

import enum
import re
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from server.domain.errors import InvalidArgument

MAX_NAME = 64
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")


class Role(enum.StrEnum):
    VIEWER = "viewer"
    APPROVER = "approver"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def at_least(self, other: Role) -> bool:
        return self.rank >= other.rank

    @classmethod
    def parse(cls, value: str, field_name: str = "role") -> Role:
        try:
            return cls(value)
        except ValueError:
            choices = ", ".join(r.value for r in cls)
            raise InvalidArgument(f"{field_name} must be one of {choices}, got {value!r}", field=field_name) from None


_RANK = {Role.VIEWER: 0, Role.APPROVER: 1, Role.ADMIN: 2}


@dataclass(frozen=True, slots=True)
class User:
    name: str
    role: Role
    groups: tuple[str, ...]
    create_time: datetime
    disabled: bool = False

    @property
    def label(self) -> str:
        """The actor label of audit records and decisions."""
        return f"reviewer:{self.name}"

    @property
    def can_decide(self) -> bool:
        return self.role.at_least(Role.APPROVER)

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN


def validate_name(value: str, field_name: str = "name") -> str:
    if not value:
        raise InvalidArgument(f"{field_name} is required", field=field_name)
    if len(value) > MAX_NAME:
        raise InvalidArgument(f"{field_name} must be at most {MAX_NAME} characters", field=field_name)
    if not _NAME.match(value):
        raise InvalidArgument(
            f"{field_name} {value!r} has characters outside letters, digits and . _ @ -", field=field_name
        )
    return value


def parse_groups(value: str | Iterable[str]) -> tuple[str, ...]:
    """`"a, b"` or `["a", "b"]` → `("a", "b")`: validated, de-duplicated, order kept."""
    items = value.split(",") if isinstance(value, str) else list(value)
    groups: list[str] = []
    for item in items:
        name = item.strip()
        if name and name not in groups:
            groups.append(validate_name(name, "groups"))
    return tuple(groups)


def validate_password(value: str) -> str:
    if len(value) < MIN_PASSWORD:
        raise InvalidArgument(f"the password must be at least {MIN_PASSWORD} characters", field="password")
    if len(value) > MAX_PASSWORD:
        raise InvalidArgument(f"the password must be at most {MAX_PASSWORD} characters", field="password")
    return value


class FailureThrottle:
    """At most `limit` failures per key in any `window` seconds; then the key is refused until the
    oldest failure leaves the window. Bounded memory: the least recently failed keys are forgotten
    beyond `max_keys` (an attacker spraying keys only forgets their own oldest counters)."""

    def __init__(self, limit: int = 5, window: float = 60.0, max_keys: int = 10_000) -> None:
        self.limit, self.window, self.max_keys = limit, window, max_keys
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()

    def retry_after(self, key: str, now: float) -> float:
        """0.0 when `key` may try now, else the seconds until it may."""
        times = self._prune(key, now)
        if times is None or len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + self.window - now)

    def fail(self, key: str, now: float) -> None:
        times = self._prune(key, now)
        if times is None:
            times = self._failures[key] = deque()
        times.append(now)
        self._failures.move_to_end(key)
        while len(self._failures) > self.max_keys:
            self._failures.popitem(last=False)

    def reset(self, key: str) -> None:
        self._failures.pop(key, None)

    def forgive(self, key: str, now: float) -> None:
        """Take back the failure recorded at `now` (an attempt counted in advance that succeeded)."""
        times = self._failures.get(key)
        if times and now in times:
            times.remove(now)
            if not times:
                del self._failures[key]

    def _prune(self, key: str, now: float) -> deque[float] | None:
        times = self._failures.get(key)
        if times is None:
            return None
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[key]
            return None
        return times
