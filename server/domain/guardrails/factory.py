"""Builds a guardrail from its spec: the one place that knows every kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.domain.errors import InvalidArgument, Unimplemented
from server.domain.guardrails.action_list import ActionList
from server.domain.guardrails.base import Guardrail, GuardrailSpec
from server.domain.guardrails.breaker import BreakerGuardrail
from server.domain.guardrails.budget import BudgetGuardrail
from server.domain.guardrails.cost_cap import CostCap
from server.domain.guardrails.deps import GuardrailDeps, SliceSource
from server.domain.guardrails.hitl import Hitl
from server.domain.guardrails.plugin import Plugin, PluginLoader
from server.domain.guardrails.rate_limit import FleetRateLimit, RateLimit
from server.domain.guardrails.rule import KIND as RULE
from server.domain.guardrails.rule import build_rule
from server.domain.guardrails.trust_root import TrustRoot

_SIMPLE: dict[str, type[Guardrail]] = {
    TrustRoot.kind: TrustRoot,
    CostCap.kind: CostCap,
    ActionList.kind: ActionList,
    RateLimit.kind: RateLimit,
    Hitl.kind: Hitl,
}
# Kinds whose services are not built yet: named now so policy files can be written against them.
RESERVED: dict[str, str] = {}
# Kinds that call a service at check time (given through `deps`).
_STATEFUL = (BreakerGuardrail.kind, BudgetGuardrail.kind)
KINDS = (*_SIMPLE, RULE, Plugin.kind, *_STATEFUL, *RESERVED)
MAX_NAME = 128


def spec_from_mapping(raw: Mapping[str, Any], source: str) -> GuardrailSpec:
    """A policy-file entry `{name, kind, **options}` as a spec (shape only; build_guardrail validates)."""
    name, kind = raw.get("name"), raw.get("kind")
    options = {k: v for k, v in raw.items() if k not in ("name", "kind")}
    if not isinstance(kind, str):
        raise InvalidArgument(f"`kind` is required and must be a string, got {kind!r}", field="kind")
    if name is None and kind == "hitl":
        name = "hitl-approval"
    if not isinstance(name, str):
        raise InvalidArgument(f"`name` is required and must be a string, got {name!r}", field="name")
    return GuardrailSpec(name=name, kind=kind, options=options, source=source)


def build_guardrail(spec: GuardrailSpec, load_plugin: PluginLoader, *, deps: GuardrailDeps | None = None) -> Guardrail:
    if not spec.name or len(spec.name) > MAX_NAME:
        raise InvalidArgument(f"guardrail name must be 1-{MAX_NAME} characters, got {spec.name!r}", field="name")
    if spec.kind == RateLimit.kind:
        return _rate_limit(spec, deps.rates if deps else None)
    if spec.kind in _SIMPLE:
        return _SIMPLE[spec.kind](spec)
    if spec.kind == RULE:
        return build_rule(spec)
    if spec.kind == Plugin.kind:
        return Plugin(spec, load_plugin)
    if spec.kind == BreakerGuardrail.kind:
        return BreakerGuardrail(spec, deps.breakers if deps else None)
    if spec.kind == BudgetGuardrail.kind:
        return BudgetGuardrail(spec, deps.budgets if deps else None)
    if spec.kind in RESERVED:
        raise Unimplemented(
            f"guardrail kind {spec.kind!r} ({RESERVED[spec.kind]}) is reserved and not available in this version"
        )
    raise InvalidArgument(f"unknown guardrail kind {spec.kind!r}; known kinds: {', '.join(KINDS)}", field="kind")


def _rate_limit(spec: GuardrailSpec, rates: SliceSource | None) -> RateLimit:
    """`scope: fleet` is the default where the sidecar shares its database with others (`rates` given: on
    PostgreSQL); on SQLite the one sidecar is the whole fleet, so both scopes count in this process."""
    plain = RateLimit(spec)  # validates every option, `scope` included
    if rates is None or plain.scope == "sidecar":
        return plain
    return FleetRateLimit(spec, rates)
