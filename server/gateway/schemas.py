"""A tool call's arguments against the tool's `inputSchema`: numeric strings coerced where the schema asks for a
number, then validated (jsonschema, JSON Schema 2020-12 unless the schema names its `$schema`).

What comes out is what the sidecar checks and what the upstream runs; nothing else is forwarded.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from referencing import Registry
from referencing.exceptions import Unresolvable

# A plain decimal: no NaN, Infinity, hex, underscores or surrounding spaces (float() takes all of those).
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
MAX_DEPTH = 64
MAX_BYTES = 1 << 20  # the sidecar's default max_context_bytes: larger is refused before any validation work
MAX_TEXT = 200


class ArgumentsRefused(Exception):
    """The arguments do not fit the schema (or the schema cannot be used): `argument` names where, if known."""

    def __init__(self, message: str, argument: str = "") -> None:
        super().__init__(message)
        self.message, self.argument = message, argument


def conform(schema: Mapping[str, Any] | None, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments to check and run: a copy, with numeric strings turned into numbers where the schema's
    property is a number or an integer, then validated against the whole schema. Raises ArgumentsRefused."""
    _finite(arguments, "")
    try:
        size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode("utf-8"))
    except (TypeError, ValueError):
        raise ArgumentsRefused("the arguments are not JSON") from None
    if size > MAX_BYTES:
        raise ArgumentsRefused(f"the arguments are {size} bytes of JSON, over the gateway's {MAX_BYTES}")
    schema = dict(schema or {"type": "object"})
    coerced = _coerce(schema, dict(arguments), 0)
    assert isinstance(coerced, dict)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ArgumentsRefused(f"the tool's inputSchema is not a valid JSON Schema: {_short(exc.message)}") from None
    # An empty registry: a `$ref` to a URL is never fetched (an upstream must not make the gateway do requests).
    validator = cls(schema, registry=Registry())
    try:
        error = best_match(validator.iter_errors(coerced))
    except Unresolvable as exc:
        raise ArgumentsRefused(f"the tool's inputSchema has a reference that cannot be resolved: {exc}") from None
    if error is not None:
        where = ".".join(p for p in (_path(error.absolute_path), _missing(error)) if p)
        prefix = f"argument {where!r}: " if where else ""
        raise ArgumentsRefused(f"{prefix}{_short(error.message)}", where)
    return coerced


def _coerce(schema: Any, value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH or not isinstance(schema, Mapping):
        return value
    if isinstance(value, str) and _wants_number(schema):
        wants_int = _types(schema) & {"integer", "number"} == {"integer"}
        text = value.strip()
        if (_INTEGER if wants_int else _NUMBER).fullmatch(text):
            number = int(text) if _INTEGER.fullmatch(text) else float(text)
            if isinstance(number, int) or math.isfinite(number):
                return number
        return value  # not a number: the validator says so, naming the argument
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, Mapping):
            return {k: _coerce(props.get(k), v, depth + 1) if k in props else v for k, v in value.items()}
        return value
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            return [_coerce(items, v, depth + 1) for v in value]
    return value


def _types(schema: Mapping[str, Any]) -> set[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def _wants_number(schema: Mapping[str, Any]) -> bool:
    """A number or integer property that does not also accept a string (then the string is meant as it is)."""
    types = _types(schema)
    return bool(types & {"number", "integer"}) and "string" not in types


def _finite(value: Any, where: str, depth: int = 0) -> None:
    """NaN and infinities are not JSON: refused wherever they are (a cap compared with NaN is never exceeded)."""
    if depth > MAX_DEPTH:
        raise ArgumentsRefused(f"arguments nested deeper than {MAX_DEPTH} levels", where)
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgumentsRefused(f"argument {where!r}: {value} is not a finite number", where)
    if isinstance(value, Mapping):
        for k, v in value.items():
            _finite(v, f"{where}.{k}" if where else str(k), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _finite(v, f"{where}[{i}]", depth + 1)


def _path(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _missing(error: jsonschema.ValidationError) -> str:
    """The property a `required` or `additionalProperties` error is about (its path is the object's)."""
    if not isinstance(error.instance, Mapping):
        return ""
    if error.validator == "required":
        for name in error.validator_value or ():
            if name not in error.instance:
                return str(name)
    if error.validator == "additionalProperties" and isinstance(error.schema, Mapping):
        known = error.schema.get("properties") or {}
        for name in error.instance:
            if name not in known:
                return str(name)
    return ""


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"
