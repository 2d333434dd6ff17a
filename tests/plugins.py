"""Plugin guardrails used by the tests (loaded by import path, exactly as users' plugins are)."""

from __future__ import annotations

import threading
import time
from typing import Any

from server.domain.guardrails import GuardrailResult

CALLS: list[tuple[str, str]] = []
_lock = threading.Lock()


class Recorder:
    """Allows, and records that it ran (to prove short-circuiting)."""

    name = "recorder"

    def __init__(self, label: str = "recorder", reason: str = "") -> None:
        self.label, self.reason = label, reason

    def check(self, agent_id: str, action: str, context: dict[str, Any]) -> GuardrailResult:
        with _lock:
            CALLS.append((self.label, action))
        return GuardrailResult.allow(self.reason)


class Raises:
    name = "raises"

    def check(self, agent_id: str, action: str, context: dict[str, Any]) -> Any:
        raise ValueError("kaboom from a plugin")


class Warns:
    name = "warns"

    def __init__(self, reason: str = "be careful") -> None:
        self.reason = reason

    def check(self, agent_id: str, action: str, context: dict[str, Any]) -> Any:
        return GuardrailResult.warning(self.reason)


class Slow:
    name = "slow"

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds

    def check(self, agent_id: str, action: str, context: dict[str, Any]) -> Any:
        time.sleep(self.seconds)
        return True


class NoFridays:
    """The README's example: blocks on a given weekday (configurable so the test is deterministic)."""

    name = "no-fridays"

    def __init__(self, weekday: str = "Friday") -> None:
        self.weekday = weekday

    def check(self, agent_id: str, action: str, context: dict[str, Any]) -> Any:
        return context.get("weekday") != self.weekday


def touch_marker(path: str = "") -> None:
    """Not a class: a plugin path naming it must be refused without calling it (it would leave a file)."""
    with open(path, "w") as f:
        f.write("called")


MARKER_OBJECT = Recorder("module-level instance")  # an instance, not a class: refused too
