"""`rate_limit`: at most `max` admitted checks per agent in a `window`, warning from `warn_at`.

`scope: sidecar` counts in this process, in a sliding window. `scope: fleet` (the default when the sidecar
shares PostgreSQL with others) counts for the whole fleet in fixed windows aligned to the Unix epoch: each
sidecar takes a slice of a window's allowance from the database (atomically) and admits from it locally,
so CheckAction pays a database round trip once per slice, not per call (docs/fleet.md states the bound).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections import deque
from dataclasses import dataclass

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.deps import SliceSource
from server.domain.guardrails.options import Options
from server.domain.values import format_number, is_number, parse_duration

_ALLOW = GuardrailResult.allow()
SCOPES = ("fleet", "sidecar")
SLICE_FRACTION = 20  # a slice is max/20 (5 %), at least 1: the overshoot bound is one slice per sidecar
# Per-agent windows are swept once a window has passed since the last sweep, or sooner when the map has
# doubled since (and holds at least this many): an agent whose window has expired is forgotten (an empty
# window is a new window), so agent ids seen once cost nothing a window later, and the map holds at most
# twice the agents seen within the last two windows.
SWEEP_FROM = 1024


class RateLimit(Guardrail):
    kind = "rate_limit"

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"max", "window", "warn_at", "scope"})
        scope = opts.get("scope")
        if scope is not None and scope not in SCOPES:
            raise InvalidArgument(
                f"{opts.where('scope')}: must be one of 'fleet', 'sidecar', got {scope!r}", field="scope"
            )
        # None: not stated (fleet where the sidecar shares a database with others, else sidecar).
        self.scope: str | None = scope
        cap = opts.require("max")
        if not is_number(cap) or cap < 1 or not float(cap).is_integer():
            raise InvalidArgument(f"{opts.where('max')}: must be a whole number >= 1, got {cap!r}", field="max")
        self.max = int(cap)
        self.window = parse_duration(opts.require("window"), opts.where("window"))
        warn_at = opts.get("warn_at")
        if warn_at is not None and (not is_number(warn_at) or not 0 < warn_at <= 1):
            raise InvalidArgument(
                f"{opts.where('warn_at')}: must be a fraction in (0, 1], got {warn_at!r}", field="warn_at"
            )
        # The count from which a check answers WARNING (None: never).
        self.warn_from = math.ceil(float(warn_at) * self.max) if warn_at is not None else None
        self._seen: dict[str, deque[float]] = {}
        self._sweep_at = SWEEP_FROM
        self._next_sweep = -math.inf

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        horizon = now - self.window
        if len(self._seen) >= self._sweep_at or now >= self._next_sweep:
            self._forget_expired(horizon)
            self._next_sweep = now + self.window
        times = self._seen.setdefault(call.agent_id, deque())
        while times and times[0] <= horizon:
            times.popleft()
        result = self._answer(call.agent_id, len(times) + 1)
        if result.allowed:  # a refused check is not counted, so a flood does not extend its own block
            times.append(now)
        return result

    def _forget_expired(self, horizon: float) -> None:
        self._seen = {agent: times for agent, times in self._seen.items() if times and times[-1] > horizon}
        self._sweep_at = max(SWEEP_FROM, 2 * len(self._seen))

    def tracked(self) -> int:
        """Agents whose window this guardrail holds in memory (bounded: see SWEEP_FROM)."""
        return len(self._seen)

    def shadow_check(self, call: ActionCall, now: float) -> GuardrailResult:
        """In shadow mode the window still counts: it is this guardrail's own (no other guardrail reads it), and
        without it a shadow limit could never say what it would have blocked. Promoting it to enforce builds a
        new guardrail, whose window starts empty."""
        return self.check(call, now)

    def explain(self, call: ActionCall, now: float) -> GuardrailResult:
        """The answer check() would give now, without counting this call."""
        times = self._seen.get(call.agent_id, ())
        horizon = now - self.window
        return self._answer(call.agent_id, sum(1 for t in times if t > horizon) + 1)

    def _answer(self, agent_id: str, count: int) -> GuardrailResult:
        if count > self.max:
            return GuardrailResult.blocked(f"Rate limit exceeded: more than {self._per()} for agent {agent_id!r}")
        if self.warn_from is not None and count >= self.warn_from:
            return GuardrailResult.warning(f"Rate limit near: {count} of {self._per()}")
        return _ALLOW

    def _per(self) -> str:
        return f"{self.max} checks per {format_number(self.window)}s"


def window_key(spec: GuardrailSpec) -> str:
    """The name of a guardrail's shared windows: the same spec on every sidecar, a new one when it changes."""
    raw = json.dumps([spec.name, spec.kind, dict(spec.options)], sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


@dataclass
class _Slice:
    """This sidecar's share of one agent's current fleet window."""

    index: int
    left: int = 0  # admissions taken from the database and not used yet
    fleet: int = 0  # the fleet's total taken for the window, as of this sidecar's last take
    exhausted: bool = False  # the database had nothing left for this window: block without asking again


class FleetRateLimit(RateLimit):
    """`rate_limit` with `scope: fleet`: at most `max` admissions per agent per fixed window fleet-wide.

    A check takes one admission from this sidecar's slice; an empty slice takes another (max/20) from the
    database first, and an exhausted window blocks in memory until it ends. A slice left unused when its
    window ends is dropped, never carried over, so with synchronised clocks the fleet admits at most `max`
    per window; a sidecar whose clock lags the others' can admit at most the rest of its last slice into
    the next window (the overshoot bound: one slice per sidecar). Shadow mode and replay count locally
    (the sliding window of `scope: sidecar`): they never take slices from the fleet.
    """

    is_async = True  # CheckAction awaits check_async: the slice's storage work never blocks the event loop

    def __init__(self, spec: GuardrailSpec, rates: SliceSource) -> None:
        super().__init__(spec)
        self.rates = rates
        self.key = window_key(spec)
        self.slice = max(1, math.ceil(self.max / SLICE_FRACTION))
        self._slices: dict[str, _Slice] = {}
        self._taking: dict[str, asyncio.Future[None]] = {}
        self._swept_index = -1

    def _current(self, agent_id: str) -> _Slice:
        index = self.rates.window_index(self.window)
        held = self._slices.get(agent_id)
        if held is None or held.index != index:  # a new window: what was left of the old slice is dropped
            if held is None and (len(self._slices) >= self._sweep_at or index != self._swept_index):
                self._forget_ended(index)
            held = self._slices[agent_id] = _Slice(index)
        return held

    def _forget_ended(self, index: int) -> None:
        """Slices of windows that have ended are dropped anyway on the agent's next check: forget them now."""
        self._slices = {a: h for a, h in self._slices.items() if h.index == index or a in self._taking}
        self._swept_index = index
        self._sweep_at = max(SWEEP_FROM, 2 * len(self._slices))

    def tracked(self) -> int:
        return len(self._slices)

    async def check_async(self, call: ActionCall, now: float) -> GuardrailResult:
        held = self._current(call.agent_id)
        while held.left == 0 and not held.exhausted:
            await self._take(call.agent_id, held)
            if held is not self._current(call.agent_id):  # the window ended while the slice was taken
                held = self._current(call.agent_id)
        if held.left == 0:
            return self._answer(call.agent_id, self.max + 1)
        held.left -= 1
        return self._answer(call.agent_id, held.fleet - held.left)

    async def _take(self, agent_id: str, held: _Slice) -> None:
        """One slice request per agent at a time: concurrent checks of the agent wait for the same one."""
        pending = self._taking.get(agent_id)
        if pending is None:
            pending = asyncio.ensure_future(self._fetch(agent_id, held))
            self._taking[agent_id] = pending
            pending.add_done_callback(lambda _f: self._taking.pop(agent_id, None))
        await asyncio.shield(pending)

    async def _fetch(self, agent_id: str, held: _Slice) -> None:
        taken, fleet = await self.rates.take_slice(self.key, agent_id, held.index, self.slice, self.max)
        held.left += taken
        held.fleet = max(held.fleet, fleet)
        if taken == 0:
            held.exhausted = True

    def explain(self, call: ActionCall, now: float) -> GuardrailResult:
        """What check_async would answer now, taking nothing (an empty slice: it would take one and allow,
        unless this sidecar already knows the window is exhausted)."""
        held = self._slices.get(call.agent_id)
        if held is None or held.index != self.rates.window_index(self.window):
            return _ALLOW
        if held.left == 0:
            return self._answer(call.agent_id, self.max + 1) if held.exhausted else _ALLOW
        return self._answer(call.agent_id, held.fleet - held.left + 1)
