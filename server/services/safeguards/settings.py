"""The `safeguards:` section of the configuration file: breaker defaults and per-key settings, budgets,
episodic memory and lease slots. Errors name the key (`safeguards.breakers.failure_threshold: ...`).

```yaml
safeguards:
  breakers:
    failure_threshold: 3        # the SupervisorAgent library's defaults
    recovery_timeout: 30s
    half_open_max_calls: 1
    strategy: fallback          # fallback, skip, cached, fail_fast
    permit_ttl: 60s
    keys: {"*:payments": {failure_threshold: 5, strategy: fail_fast}}   # first matching glob
    max_keys_per_agent: 1000    # keys AcquirePermit may create per owner (the key up to its first ':')
  budgets:
    global: 1000000             # the global token budget
    reservation_ttl: 60s
    min_context: {critical: 4000, high: 2000, normal: 1000, low: 500}
  episodes:
    max_episodes: 1000
  leases:
    slots: 1                    # per key; "noop" = unlimited (the source's default guard)
    ttl: 30s
    keys: {"global:": 4, "user:*": noop}
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.safeguards.breakers import BreakerConfig, KeyRule, parse_override
from server.domain.safeguards.budgets import DEFAULT_MIN_CONTEXT, Priority
from server.domain.safeguards.leases import SlotPolicy, parse_slot_rules, parse_slots
from server.domain.values import is_number, parse_duration

# Breaker keys an agent's AcquirePermit may create per owner (the part of the key before the first ':'):
# an agent names its own keys ("<id>" or "<id>:<dependency>"), so without a bound one agent could grow the
# cache (and the table) without end. Operators' ForceOpen / ForceClose are not counted against it.
DEFAULT_MAX_KEYS_PER_AGENT = 1000


@dataclass(frozen=True)
class BreakerSettings:
    defaults: BreakerConfig = field(default_factory=BreakerConfig)
    keys: tuple[KeyRule, ...] = ()
    max_keys_per_agent: int = DEFAULT_MAX_KEYS_PER_AGENT


@dataclass(frozen=True)
class BudgetSettings:
    global_total: int = 1_000_000
    reservation_ttl: float = 60.0
    min_context: Mapping[Priority, int] = field(default_factory=lambda: dict(DEFAULT_MIN_CONTEXT))


@dataclass(frozen=True)
class LeaseSettings:
    slots: SlotPolicy = field(default_factory=SlotPolicy)
    ttl: float = 30.0


@dataclass(frozen=True)
class SafeguardSettings:
    breakers: BreakerSettings = field(default_factory=BreakerSettings)
    budgets: BudgetSettings = field(default_factory=BudgetSettings)
    max_episodes: int = 1000
    leases: LeaseSettings = field(default_factory=LeaseSettings)


def _section(raw: Any, where: str, known: set[str]) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidArgument(f"{where}: must be a mapping", field=where)
    unknown = sorted(set(raw) - known)
    if unknown:
        key = f"{where}.{unknown[0]}"
        raise InvalidArgument(f"{key}: unknown key; known keys: {', '.join(sorted(known))}", field=key)
    return raw


def _whole(value: Any, where: str) -> int:
    if not is_number(value) or value < 1 or not float(value).is_integer():
        raise InvalidArgument(f"{where}: must be a whole number above 0, got {value!r}", field=where)
    return int(value)


def parse_safeguards(raw: Any, where: str = "safeguards") -> SafeguardSettings:
    top = _section(raw, where, {"breakers", "budgets", "episodes", "leases"})
    return SafeguardSettings(
        breakers=_breakers(top.get("breakers"), f"{where}.breakers"),
        budgets=_budgets(top.get("budgets"), f"{where}.budgets"),
        max_episodes=_episodes(top.get("episodes"), f"{where}.episodes"),
        leases=_leases(top.get("leases"), f"{where}.leases"),
    )


def _breakers(raw: Any, where: str) -> BreakerSettings:
    sec = dict(_section(raw, where, {"keys", "max_keys_per_agent", *BreakerConfig.__dataclass_fields__}))
    keys_raw = sec.pop("keys", None) or {}
    max_keys = sec.pop("max_keys_per_agent", DEFAULT_MAX_KEYS_PER_AGENT)
    max_keys = _whole(max_keys, f"{where}.max_keys_per_agent")
    defaults = BreakerConfig().merged(parse_override(sec, where))
    if not isinstance(keys_raw, Mapping):
        raise InvalidArgument(f"{where}.keys: must be a mapping of key glob to settings", field=f"{where}.keys")
    rules = []
    for pattern, override in keys_raw.items():
        name = f"{where}.keys.{pattern}"
        if not isinstance(override, Mapping):
            raise InvalidArgument(f"{name}: must be a mapping of settings", field=name)
        rules.append(KeyRule(str(pattern), parse_override(override, name)))
    return BreakerSettings(defaults, tuple(rules), max_keys)


def _budgets(raw: Any, where: str) -> BudgetSettings:
    sec = _section(raw, where, {"global", "reservation_ttl", "min_context"})
    d = BudgetSettings()
    total = d.global_total if sec.get("global") is None else _whole(sec["global"], f"{where}.global")
    ttl = d.reservation_ttl
    if sec.get("reservation_ttl") is not None:
        ttl = parse_duration(sec["reservation_ttl"], f"{where}.reservation_ttl")
    floors = dict(d.min_context)
    names = {p.name.lower(): p for p in Priority}
    for name, value in _section(sec.get("min_context"), f"{where}.min_context", set(names)).items():
        floors[names[name]] = _whole(value, f"{where}.min_context.{name}")
    return BudgetSettings(total, ttl, floors)


def _episodes(raw: Any, where: str) -> int:
    sec = _section(raw, where, {"max_episodes"})
    return 1000 if sec.get("max_episodes") is None else _whole(sec["max_episodes"], f"{where}.max_episodes")


def _leases(raw: Any, where: str) -> LeaseSettings:
    sec = _section(raw, where, {"slots", "ttl", "keys"})
    default = 1 if sec.get("slots") is None else parse_slots(sec["slots"], f"{where}.slots")
    ttl = 30.0 if sec.get("ttl") is None else parse_duration(sec["ttl"], f"{where}.ttl")
    return LeaseSettings(SlotPolicy(default, parse_slot_rules(sec.get("keys"), f"{where}.keys")), ttl)
