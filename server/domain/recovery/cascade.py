"""Cascade detection (the Agent Governance Toolkit, section 3.3, CascadeDetector): failures between agents in a
sliding window.

As the source: a failure is kept while `now - t < window`; when `threshold` related failures fall inside the
window, a cascade is detected. "Related" means connected through shared agents (A->B, B->C and C->D are one
chain; A->B and C->D are not). The failures that formed a cascade leave the window, so one chain raises one
cascade per `threshold` failures. Defaults: window 60 s, threshold 3, action NONE.

Beyond the source: nobody is framed by one voice. The action (kill the root, open breakers) runs only against
an accused agent the evidence corroborates: `threshold` distinct reporters other than the accused, or a fact
no other agent can forge: a failure of it an operator (or the sidecar) reported, its health check failed, or
one of its own breakers opened on failures the sidecar recorded (keys `<accused>` and `<accused>:<dependency>`,
which only it and operators may report on). The event fires either way, marked `corroborated`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.recovery.kill import KillReason, parse_reason
from server.domain.values import parse_duration

DEFAULT_WINDOW = 60.0
DEFAULT_THRESHOLD = 3
MAX_WINDOW_EVENTS = 10_000


class CascadeAction(enum.IntEnum):
    # Values match outrider.v1.CascadeAction.
    NONE = 1
    OPEN_BREAKERS = 2
    KILL_ROOT = 3


@dataclass(frozen=True, slots=True)
class CascadePolicy:
    window: float = DEFAULT_WINDOW
    threshold: int = DEFAULT_THRESHOLD
    action: CascadeAction = CascadeAction.NONE
    kill_reason: KillReason = KillReason.BEHAVIORAL_DRIFT
    source: str = "builtin"
    update_time: datetime | None = None


def new_cascade_policy(
    window: float | None = None,
    threshold: int | None = None,
    action: CascadeAction | None = None,
    kill_reason: KillReason | None = None,
    *,
    source: str = "runtime",
    now: datetime | None = None,
    where: str = "policy",
) -> CascadePolicy:
    if window is not None and window <= 0:
        raise InvalidArgument(f"{where}.window must be positive", field=f"{where}.window")
    if threshold is not None and threshold < 1:
        raise InvalidArgument(f"{where}.threshold must be 1 or more, got {threshold}", field=f"{where}.threshold")
    return CascadePolicy(
        window=DEFAULT_WINDOW if window is None else window,
        threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
        action=action or CascadeAction.NONE,
        kill_reason=kill_reason or KillReason.BEHAVIORAL_DRIFT,
        source=source,
        update_time=now,
    )


@dataclass(frozen=True, slots=True)
class AgentFailure:
    from_agent: str  # the failing agent (upstream)
    to_agent: str  # the agent its failure reached (downstream)
    detail: str
    source: str  # "report" or "breaker"
    failure_time: datetime
    # From the credential: "agent:ID", "operator:NAME", or "sidecar" (observed by the sidecar itself).
    reporter: str = "sidecar"


@dataclass(frozen=True, slots=True)
class Cascade:
    cascade_id: str
    failures: tuple[AgentFailure, ...]
    agent_ids: tuple[str, ...]
    root_agent: str
    action: CascadeAction
    detect_time: datetime
    kill_id: str = ""
    opened_breakers: tuple[str, ...] = ()
    corroborated: bool = False


class CascadeWindow:
    """The sliding window of recent failures (monotonic times). Not thread-safe: one owner."""

    def __init__(self) -> None:
        self._events: list[tuple[float, AgentFailure]] = []

    def __len__(self) -> int:
        return len(self._events)

    def count_within(self, now: float, window: float) -> int:
        return sum(1 for t, _ in self._events if now - t < window)

    def record(self, failure: AgentFailure, now: float, policy: CascadePolicy) -> tuple[AgentFailure, ...] | None:
        """Add `failure`; return the related failures forming a cascade (they leave the window), else None."""
        self._events = [e for e in self._events if now - e[0] < policy.window][-(MAX_WINDOW_EVENTS - 1) :]
        self._events.append((now, failure))
        members = related(failure, [f for _, f in self._events])
        if len(members) < policy.threshold:
            return None
        ids = {id(f) for f in members}
        self._events = [e for e in self._events if id(e[1]) not in ids]
        return members


def related(seed: AgentFailure, failures: Sequence[AgentFailure]) -> tuple[AgentFailure, ...]:
    """The failures connected to `seed` through shared agents, in the order given."""
    agents = {seed.from_agent, seed.to_agent}
    chosen: set[int] = set()
    grew = True
    while grew:
        grew = False
        for i, f in enumerate(failures):
            if i not in chosen and (f.from_agent in agents or f.to_agent in agents):
                chosen.add(i)
                agents |= {f.from_agent, f.to_agent}
                grew = True
    return tuple(f for i, f in enumerate(failures) if i in chosen)


def agents_involved(failures: Sequence[AgentFailure]) -> tuple[str, ...]:
    """Every agent, in first-seen order."""
    return tuple(dict.fromkeys(a for f in failures for a in (f.from_agent, f.to_agent)))


def chain_root(failures: Sequence[AgentFailure]) -> str:
    """The earliest agent that failed others and was not itself failed by another; "" when the chain is a
    cycle. An agent's own breaker opening (a failure from it to itself) does not make it a victim."""
    victims = {f.to_agent for f in failures if f.to_agent != f.from_agent}
    for f in failures:
        if f.from_agent not in victims:
            return f.from_agent
    return ""


class Evidence(enum.Enum):
    """What corroborated an accusation (the audit record's `evidence`)."""

    HEALTH_CHECK_FAILED = "health_check_failed"  # the sidecar's own check of the accused failed
    BREAKER_OPENED = "breaker_opened"  # one of the accused's breakers opened within the window
    OPERATOR_REPORT = "operator_report"  # an operator (or the sidecar) reported a failure of the accused
    REPORTERS = "reporters"  # `threshold` distinct agents other than the accused reported it


def corroboration(
    accused: str, failures: Sequence[AgentFailure], threshold: int, observed: Sequence[Evidence] = ()
) -> Evidence | None:
    """The evidence that lets an action run against `accused`, None when there is none: a fact the sidecar
    observed (`observed`: its health check failed, its breaker opened), a failure of it reported by an
    operator or the sidecar, or reports from at least `threshold` distinct agents other than the accused."""
    if observed:
        return observed[0]
    if any(f.from_agent == accused and not f.reporter.startswith("agent:") for f in failures):
        return Evidence.OPERATOR_REPORT
    voices = {f.reporter for f in failures if f.reporter.startswith("agent:") and f.reporter != f"agent:{accused}"}
    return Evidence.REPORTERS if len(voices) >= threshold else None


def parse_cascade_action(value: Any, field: str) -> CascadeAction:
    if isinstance(value, str):
        name = value.strip().upper().removeprefix("CASCADE_ACTION_")
        if name in CascadeAction.__members__:
            return CascadeAction[name]
    names = ", ".join(a.name.lower() for a in CascadeAction)
    raise InvalidArgument(f"{field}: {value!r} is not a cascade action; use one of {names}", field=field)


_KEYS = {"window", "threshold", "action", "kill_reason"}


def parse_cascade_policy(raw: Any, where: str = "recovery.cascade") -> CascadePolicy | None:
    """The policy file's cascade settings (source "policy"); None when the section is absent."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise InvalidArgument(f"{where}: must be a mapping", field=where)
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise InvalidArgument(
            f"{where}.{unknown[0]}: unknown key; known keys: {', '.join(sorted(_KEYS))}", field=f"{where}.{unknown[0]}"
        )
    threshold = raw.get("threshold")
    if threshold is not None and (not isinstance(threshold, int) or isinstance(threshold, bool)):
        raise InvalidArgument(
            f"{where}.threshold: must be a whole number, got {threshold!r}", field=f"{where}.threshold"
        )
    return new_cascade_policy(
        parse_duration(raw["window"], f"{where}.window") if raw.get("window") is not None else None,
        threshold,
        parse_cascade_action(raw["action"], f"{where}.action") if raw.get("action") is not None else None,
        parse_reason(raw["kill_reason"], f"{where}.kill_reason") if raw.get("kill_reason") is not None else None,
        source="policy",
        where=where,
    )
