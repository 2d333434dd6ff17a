"""Circuit breakers (the SupervisorAgent library's "Failure isolation", the Agent Governance Toolkit, section 3): the
state machine, without I/O.

the SupervisorAgent library's FailureIsolator, split for a client that runs the call itself: `admit` hands out a permit,
`settle` applies the call's outcome and says what the caller does. A success resets the failure count and
closes the circuit (RETURN_RESULT); a failure below the threshold is rethrown (RETHROW); the failure that
reaches it opens the circuit and answers the degraded value (DEGRADE, or FAIL_FAST for that strategy);
while OPEN nothing runs; after `recovery_timeout` the circuit is HALF_OPEN and `half_open_max_calls`
probes run: a success closes it, a failure opens it again. Every state change bumps the generation, and
outcomes of permits from an older generation are not counted.
"""

from __future__ import annotations

import enum
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.values import is_number, parse_duration

MAX_KEY = 256


class BreakerState(enum.IntEnum):
    # Values match outrider.v1.BreakerState.
    CLOSED = 1
    OPEN = 2
    HALF_OPEN = 3


class Outcome(enum.IntEnum):
    SUCCESS = 1
    FAILURE = 2


class Strategy(enum.IntEnum):
    FALLBACK = 1
    SKIP = 2
    CACHED = 3
    FAIL_FAST = 4


class Directive(enum.IntEnum):
    UNSPECIFIED = 0
    RETURN_RESULT = 1
    RETHROW = 2
    DEGRADE = 3
    FAIL_FAST = 4


@dataclass(frozen=True, slots=True)
class BreakerConfig:
    """Builder defaults of the SupervisorAgent library (threshold 3, 30 s) and the Agent Governance Toolkit (one
    half-open probe)."""

    failure_threshold: int = 3
    recovery_timeout: float = 30.0
    half_open_max_calls: int = 1
    strategy: Strategy = Strategy.FALLBACK
    permit_ttl: float = 60.0

    def merged(self, override: Mapping[str, Any]) -> BreakerConfig:
        """This configuration with the fields an override sets (as `parse_override` returns them)."""
        if not override:
            return self
        values = dict(override)
        if "strategy" in values:
            values["strategy"] = Strategy[values["strategy"]]
        return replace(self, **values)


CONFIG_FIELDS = ("failure_threshold", "recovery_timeout", "half_open_max_calls", "strategy", "permit_ttl")


def parse_override(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate a partial configuration: durations in seconds (or '30s'), strategy by name.

    Returns a JSON-storable dict with only the fields given (strategy as its upper-case name).
    """
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = f"{where}.{key}" if where else str(key)
        if key not in CONFIG_FIELDS:
            raise InvalidArgument(f"{name}: unknown key; known keys: {', '.join(CONFIG_FIELDS)}", field=name)
        if value is None:
            continue
        if key in ("failure_threshold", "half_open_max_calls"):
            if not is_number(value) or value < 1 or not float(value).is_integer():
                raise InvalidArgument(f"{name}: must be a whole number >= 1, got {value!r}", field=name)
            out[key] = int(value)
        elif key in ("recovery_timeout", "permit_ttl"):
            out[key] = parse_duration(value, name)
        else:
            text = value.name if isinstance(value, Strategy) else str(value).upper()
            if text not in Strategy.__members__:
                choices = ", ".join(s.name.lower() for s in Strategy)
                raise InvalidArgument(f"{name}: must be one of {choices}, got {value!r}", field=name)
            out[key] = text
    return out


@dataclass(frozen=True, slots=True)
class KeyRule:
    """A policy-file configuration for the keys matching `pattern` (a glob, e.g. `*:payments`)."""

    pattern: str
    override: Mapping[str, Any]


def config_for(
    key: str, defaults: BreakerConfig, rules: Sequence[KeyRule], runtime: Mapping[str, Any]
) -> BreakerConfig:
    """Defaults, then the first matching policy rule, then the key's own runtime settings."""
    config = defaults
    for rule in rules:
        if fnmatch.fnmatchcase(key, rule.pattern):
            config = config.merged(rule.override)
            break
    return config.merged(runtime)


def validate_key(key: str, field_name: str = "key") -> str:
    if not key:
        raise InvalidArgument(f"{field_name} is required", field=field_name)
    if len(key) > MAX_KEY:
        raise InvalidArgument(f"{field_name} must be at most {MAX_KEY} characters", field=field_name)
    return key


def owner_of(key: str) -> str:
    """The agent a key belongs to: `agent_id` or `agent_id:<dependency>`."""
    return key.split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class BreakerChange:
    """A state change (an event)."""

    key: str
    from_state: BreakerState
    to_state: BreakerState
    generation: int
    failure_count: int
    reason: str
    change_time: datetime

    @property
    def agent_id(self) -> str:
        return owner_of(self.key)


@dataclass(slots=True)
class Breaker:
    """One circuit. `opened_at` is monotonic seconds; the datetimes are wall-clock UTC."""

    key: str
    config: BreakerConfig
    create_time: datetime
    update_time: datetime
    runtime_config: dict[str, Any] = field(default_factory=dict)
    state: BreakerState = BreakerState.CLOSED
    failure_count: int = 0
    generation: int = 1
    forced: bool = False
    opened_at: float | None = None
    open_time: datetime | None = None
    half_open_time: datetime | None = None
    last_failure_time: datetime | None = None
    last_success_time: datetime | None = None
    has_cached: bool = False
    cached: Any = None
    probes: int = 0  # permits of the current generation taken in HALF_OPEN and not yet settled
    in_flight: int = 0  # permits not yet reported, released or expired

    def half_open_due(self, now: float) -> bool:
        return (
            self.state is BreakerState.OPEN
            and not self.forced
            and self.opened_at is not None
            and now >= self.opened_at + self.config.recovery_timeout
        )

    def retry_after(self, now: float) -> float | None:
        """Seconds until HALF_OPEN; None when unknown (forced open, or not OPEN)."""
        if self.state is not BreakerState.OPEN or self.forced or self.opened_at is None:
            return None
        return max(0.0, self.opened_at + self.config.recovery_timeout - now)

    def reconfigure(self, config: BreakerConfig) -> None:
        """New settings apply from the next event; an OPEN circuit's half-open time follows the new timeout."""
        self.config = config
        if self.state is BreakerState.OPEN and not self.forced and self.open_time is not None:
            self.half_open_time = self.open_time + timedelta(seconds=config.recovery_timeout)

    def copy(self) -> Breaker:
        return replace(self, runtime_config=dict(self.runtime_config))


class PermitState(enum.Enum):
    ACTIVE = "active"
    REPORTED = "reported"
    RELEASED = "released"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class Degradation:
    """What a refused (or degraded) call gets. `value` is meaningful only when `has_value` (CACHED)."""

    strategy: Strategy
    has_value: bool = False
    value: Any = None
    retry_after: float | None = None


@dataclass(frozen=True, slots=True)
class Settlement:
    """The answer to an outcome: what the client does, and the breaker after it."""

    directive: Directive
    degradation: Degradation | None
    state: BreakerState
    failure_count: int
    generation: int
    counted: bool
    outcome: Outcome


@dataclass(slots=True)
class Permit:
    permit_id: str
    key: str
    generation: int
    probe: bool
    expires_at: float
    expire_time: datetime
    request_id: str = ""
    state: PermitState = PermitState.ACTIVE
    answer: Settlement | None = None

    @property
    def owner(self) -> str:
        return owner_of(self.key)


@dataclass(frozen=True, slots=True)
class Admission:
    """The answer to a permit request. Refused: `directive` and `degradation` say what to do instead."""

    permitted: bool
    state: BreakerState
    generation: int
    failure_count: int
    permit: Permit | None
    directive: Directive
    failure_directive: Directive
    degradation: Degradation | None
    key: str = ""


def degraded_directive(config: BreakerConfig) -> Directive:
    return Directive.FAIL_FAST if config.strategy is Strategy.FAIL_FAST else Directive.DEGRADE


def degradation(b: Breaker, now: float) -> Degradation:
    cached = b.config.strategy is Strategy.CACHED
    return Degradation(
        strategy=b.config.strategy,
        has_value=cached,
        value=b.cached if cached and b.has_cached else None,
        retry_after=b.retry_after(now),
    )


def _move(b: Breaker, to: BreakerState, reason: str, now: float, wall: datetime) -> BreakerChange:
    before = b.state
    b.state = to
    b.generation += 1
    b.probes = 0
    b.update_time = wall
    if to is BreakerState.OPEN:
        b.opened_at, b.open_time = now, wall
        b.half_open_time = None if b.forced else wall + timedelta(seconds=b.config.recovery_timeout)
    else:
        b.half_open_time = None
    return BreakerChange(b.key, before, to, b.generation, b.failure_count, reason, wall)


def advance(b: Breaker, now: float, wall: datetime) -> BreakerChange | None:
    """OPEN → HALF_OPEN once the recovery timeout has passed (never while forced open)."""
    if b.half_open_due(now):
        return _move(b, BreakerState.HALF_OPEN, "recovery timeout elapsed", now, wall)
    return None


def admit(
    b: Breaker, permit_id: str, now: float, wall: datetime, request_id: str = ""
) -> tuple[Admission, list[BreakerChange]]:
    """A permit in CLOSED, or in HALF_OPEN while a probe slot is free; refused otherwise."""
    changes = [c for c in (advance(b, now, wall),) if c is not None]
    degrade = degraded_directive(b.config)
    if b.state is BreakerState.CLOSED or (
        b.state is BreakerState.HALF_OPEN and b.probes < b.config.half_open_max_calls
    ):
        probe = b.state is BreakerState.HALF_OPEN
        if probe:
            b.probes += 1
        b.in_flight += 1
        permit = Permit(
            permit_id,
            b.key,
            b.generation,
            probe,
            now + b.config.permit_ttl,
            wall + timedelta(seconds=b.config.permit_ttl),
            request_id,
        )
        # What a failure of this call would lead to, were it the only one in flight.
        opens = probe or (not b.forced and b.failure_count + 1 >= b.config.failure_threshold)
        failure_directive = degrade if opens else Directive.RETHROW
        return (
            Admission(
                True,
                b.state,
                b.generation,
                b.failure_count,
                permit,
                Directive.UNSPECIFIED,
                failure_directive,
                degradation(b, now) if opens else None,
                b.key,
            ),
            changes,
        )
    return (
        Admission(
            False,
            b.state,
            b.generation,
            b.failure_count,
            None,
            degrade,
            Directive.UNSPECIFIED,
            degradation(b, now),
            b.key,
        ),
        changes,
    )


def _leave(b: Breaker, p: Permit, state: PermitState) -> bool:
    """The permit stops being active; True when it belongs to the current generation."""
    p.state = state
    b.in_flight = max(0, b.in_flight - 1)
    current = p.generation == b.generation
    if current and p.probe:
        b.probes = max(0, b.probes - 1)
    return current


def _fail(b: Breaker, now: float, wall: datetime, expired: bool) -> BreakerChange | None:
    b.failure_count += 1
    b.last_failure_time = b.update_time = wall
    if b.state is BreakerState.HALF_OPEN:
        return _move(b, BreakerState.OPEN, "permit expired" if expired else "probe failed", now, wall)
    if b.state is BreakerState.CLOSED and not b.forced and b.failure_count >= b.config.failure_threshold:
        return _move(b, BreakerState.OPEN, "permit expired" if expired else "failure threshold reached", now, wall)
    return None


def settle(
    b: Breaker, p: Permit, outcome: Outcome, now: float, wall: datetime
) -> tuple[Settlement, list[BreakerChange]]:
    """Apply an active permit's outcome (the caller handles repeats and settled permits)."""
    current = _leave(b, p, PermitState.REPORTED)
    changes: list[BreakerChange] = []
    directive = Directive.RETURN_RESULT if outcome is Outcome.SUCCESS else Directive.RETHROW
    degraded: Degradation | None = None
    if current and outcome is Outcome.SUCCESS:
        b.last_success_time = b.update_time = wall
        b.failure_count = 0
        if b.state is BreakerState.HALF_OPEN:
            changes.append(_move(b, BreakerState.CLOSED, "probe succeeded", now, wall))
    elif current:
        change = _fail(b, now, wall, expired=False)
        if change is not None:
            changes.append(change)
            directive = degraded_directive(b.config)
            degraded = degradation(b, now)
    answer = Settlement(directive, degraded, b.state, b.failure_count, b.generation, current, outcome)
    p.answer = answer
    return answer, changes


def ignored(b: Breaker, outcome: Outcome) -> Settlement:
    """The answer to an outcome that does not count (older generation, expired or released permit)."""
    directive = Directive.RETURN_RESULT if outcome is Outcome.SUCCESS else Directive.RETHROW
    return Settlement(directive, None, b.state, b.failure_count, b.generation, False, outcome)


def expire(b: Breaker, p: Permit, now: float, wall: datetime) -> BreakerChange | None:
    """A permit neither reported nor released within its TTL counts as a failure (if still current)."""
    if _leave(b, p, PermitState.EXPIRED):
        return _fail(b, now, wall, expired=True)
    return None


def release(b: Breaker, p: Permit) -> None:
    """The call did not run: nothing is counted, a probe slot is freed."""
    _leave(b, p, PermitState.RELEASED)


def remember_result(b: Breaker, value: Any) -> bool:
    """Store a successful result for CACHED; True when the cached value changed."""
    if b.config.strategy is not Strategy.CACHED or (b.has_cached and b.cached == value):
        return False
    b.has_cached, b.cached = True, value
    return True


def reset(b: Breaker, now: float, wall: datetime) -> BreakerChange | None:
    """Back to CLOSED with count 0, ending any hold; the cached value stays. Old permits stop counting."""
    before = b.state
    b.forced = False
    b.failure_count = 0
    change = _move(b, BreakerState.CLOSED, "reset", now, wall)
    return change if before is not BreakerState.CLOSED else None


def force_open(b: Breaker, reason: str, now: float, wall: datetime) -> BreakerChange:
    b.forced = True
    return _move(b, BreakerState.OPEN, f"forced open: {reason}" if reason else "forced open", now, wall)


def force_close(b: Breaker, reason: str, now: float, wall: datetime) -> BreakerChange:
    b.forced = True
    b.failure_count = 0
    return _move(b, BreakerState.CLOSED, f"forced closed: {reason}" if reason else "forced closed", now, wall)


def trip(b: Breaker, reason: str, now: float, wall: datetime) -> BreakerChange | None:
    """Open as a failure-threshold open would (HALF_OPEN after the timeout); no-op when already OPEN."""
    if b.state is BreakerState.OPEN:
        return None
    b.forced = False
    return _move(b, BreakerState.OPEN, reason, now, wall)


def open_on_threshold(b: Breaker, reason: str, now: float, wall: datetime) -> BreakerChange | None:
    """A CLOSED circuit whose (fleet-wide) failure count reached the threshold opens; never while forced."""
    if b.state is BreakerState.CLOSED and not b.forced and b.failure_count >= b.config.failure_threshold:
        return _move(b, BreakerState.OPEN, reason, now, wall)
    return None


def probe_failed(b: Breaker, expired: bool, now: float, wall: datetime) -> BreakerChange | None:
    """A HALF_OPEN probe's failure (or expiry): counted, and the circuit opens again."""
    return _fail(b, now, wall, expired)
