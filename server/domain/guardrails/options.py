"""Reads a guardrail's options with errors that name the guardrail and the option."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import COMMON_OPTIONS, GuardrailSpec

_MISSING = object()


class Options:
    def __init__(self, spec: GuardrailSpec, allowed: Collection[str]) -> None:
        self.spec = spec
        # `mode`, `when` and `on_error` are every kind's (Guardrail.__init__ validates them).
        unknown = sorted(set(spec.options) - set(allowed) - set(COMMON_OPTIONS))
        if unknown:
            known = ", ".join(sorted(allowed)) or "none"
            raise InvalidArgument(
                f"guardrail {spec.name!r} ({spec.kind}): unknown option {unknown[0]!r}; known options: {known}",
                field=unknown[0],
            )

    def where(self, key: str) -> str:
        return f"guardrail {self.spec.name!r} ({self.spec.kind}) option {key!r}"

    def require(self, key: str) -> Any:
        if key not in self.spec.options or self.spec.options[key] is None:
            raise InvalidArgument(f"{self.where(key)}: is required", field=key)
        return self.spec.options[key]

    def get(self, key: str, default: Any = None) -> Any:
        value = self.spec.options.get(key, _MISSING)
        return default if value is _MISSING or value is None else value

    def string(self, key: str, default: str) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or not value:
            raise InvalidArgument(f"{self.where(key)}: must be a non-empty string, got {value!r}", field=key)
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise InvalidArgument(f"{self.where(key)}: must be true or false, got {value!r}", field=key)
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.get(key, ())
        if isinstance(value, str):
            value = (value,)
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
            raise InvalidArgument(f"{self.where(key)}: must be a list of non-empty strings", field=key)
        return tuple(value)
