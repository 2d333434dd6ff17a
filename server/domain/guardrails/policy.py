"""Turns the policy's `guardrails:` list into a chain, with errors that name the entry and the option."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.domain.errors import InvalidArgument, OutriderError
from server.domain.guardrails import Guardrail, GuardrailSpec, build_guardrail
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.factory import spec_from_mapping
from server.domain.guardrails.plugin import PluginLoader


def parse_guardrails(
    raw: Any, load_plugin: PluginLoader, where: str = "guardrails", *, deps: GuardrailDeps | None = None
) -> list[Guardrail]:
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise InvalidArgument(f"{where}: must be a list of guardrails", field=where)
    chain = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping):
            raise InvalidArgument(f"{where}[{i}]: must be a mapping with name, kind and options", field=where)
        try:
            chain.append(build_guardrail(spec_from_mapping(entry, source="policy"), load_plugin, deps=deps))
        except OutriderError as exc:
            label = f"{where}[{i}]"
            raise type(exc)(f"{label}: {exc.message}", reason=exc.reason, field=f"{where}[{i}]") from exc
    return chain


def build_specs(
    specs: Sequence[GuardrailSpec], load_plugin: PluginLoader, *, deps: GuardrailDeps | None = None
) -> list[Guardrail]:
    return [build_guardrail(spec, load_plugin, deps=deps) for spec in specs]
