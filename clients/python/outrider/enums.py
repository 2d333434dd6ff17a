"""The values the sidecar answers with, as string enums: ``result.severity is Severity.BLOCK``.

Each member is also its name as a plain string (`enum.StrEnum`), so code written when these fields were
strings keeps working: ``result.severity == "BLOCK"``, ``f"{state}"`` gives ``OPEN``, JSON encodes the
name. A number this client does not know (a newer sidecar) reads as UNSPECIFIED (UNKNOWN for commands)
instead of failing.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar


class Severity(StrEnum):
    """How a guardrail verdict weighs: INFO passes, WARNING passes with a warning, BLOCK refuses."""

    UNSPECIFIED = "UNSPECIFIED"
    INFO = "INFO"
    WARNING = "WARNING"
    BLOCK = "BLOCK"


class ApprovalState(StrEnum):
    """Where a person's decision stands. NONE (the empty string) when no person was asked."""

    NONE = ""
    UNSPECIFIED = "UNSPECIFIED"
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"
    EXPIRED = "EXPIRED"
    CANCELLED = "CANCELLED"


class BreakerState(StrEnum):
    UNSPECIFIED = "UNSPECIFIED"
    CLOSED = "CLOSED"
    OPEN = "OPEN"
    HALF_OPEN = "HALF_OPEN"


class DegradationStrategy(StrEnum):
    """What an open breaker gives instead of running the call. ``configure(strategy=...)`` takes these
    (or their lower-case names)."""

    UNSPECIFIED = "UNSPECIFIED"
    FALLBACK = "FALLBACK"
    SKIP = "SKIP"
    CACHED = "CACHED"
    FAIL_FAST = "FAIL_FAST"


class CommandType(StrEnum):
    """A command on the control channel. UNKNOWN: a type this client does not know (it is REJECTED)."""

    UNSPECIFIED = "UNSPECIFIED"
    UNKNOWN = "UNKNOWN"
    PING = "PING"
    RESTART = "RESTART"
    RESTART_CLEAN = "RESTART_CLEAN"
    KILL = "KILL"
    HANDOFF = "HANDOFF"
    SIGWARN = "SIGWARN"
    SIGSTOP = "SIGSTOP"
    SIGRESUME = "SIGRESUME"


class KillReason(StrEnum):
    """The kill switch's six reasons (the Agent Governance Toolkit)."""

    UNSPECIFIED = "UNSPECIFIED"
    BEHAVIORAL_DRIFT = "BEHAVIORAL_DRIFT"
    RATE_LIMIT = "RATE_LIMIT"
    RING_BREACH = "RING_BREACH"
    MANUAL = "MANUAL"
    QUARANTINE_TIMEOUT = "QUARANTINE_TIMEOUT"
    SESSION_TIMEOUT = "SESSION_TIMEOUT"


class SignalType(StrEnum):
    """Budget signals: SIGWARN (90% crossed), SIGSTOP (exhausted), SIGRESUME (room again)."""

    UNSPECIFIED = "UNSPECIFIED"
    SIGWARN = "SIGWARN"
    SIGSTOP = "SIGSTOP"
    SIGRESUME = "SIGRESUME"


class Priority(StrEnum):
    """A token allocation's priority. ``Budget.allocate(priority=...)`` takes these (or lower-case names)."""

    UNSPECIFIED = "UNSPECIFIED"
    LOW = "LOW"
    NORMAL = "NORMAL"
    HIGH = "HIGH"
    CRITICAL = "CRITICAL"


class Scope(StrEnum):
    """An isolation key's scope (the SandboxExecutionGuard contract). Lower case, as `lease` takes them."""

    USER = "user"
    AGENT = "agent"
    SESSION = "session"
    GLOBAL = "global"


class StopReason(StrEnum):
    """Why an `Agent` helper stopped holding its control channel; NONE (the empty string) while it runs.
    Lower case, as `stopped_because` always was."""

    NONE = ""
    CLOSED = "closed"  # close(), or leaving `with`
    KILLED = "killed"  # the kill switch: the agent is unregistered
    REPLACED = "replaced"  # another process attached as the same agent
    FATAL = "fatal"  # a refusal: not registered, bad credential (see `error`)


E = TypeVar("E", bound=StrEnum)


def from_proto(cls: type[E], proto: Any, number: int, fallback: E | None = None) -> E:
    """The member for `number` of the generated enum `proto` (its name without the enum's prefix, as in
    SEVERITY_BLOCK -> BLOCK); `fallback` (default UNSPECIFIED) for a number this client does not know."""
    prefix = proto.DESCRIPTOR.values[0].name.removesuffix("UNSPECIFIED")  # buf style: X_UNSPECIFIED = 0
    try:
        return cls(proto.Name(number).removeprefix(prefix))
    except ValueError:
        return fallback if fallback is not None else cls["UNSPECIFIED"]


__all__ = [
    "ApprovalState",
    "BreakerState",
    "CommandType",
    "DegradationStrategy",
    "KillReason",
    "Priority",
    "Scope",
    "Severity",
    "SignalType",
    "StopReason",
]
