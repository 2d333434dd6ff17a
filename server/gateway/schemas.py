"""A tool call's arguments against the tool's `inputSchema`: numeric strings coerced where the schema asks for a
number, then validated (jsonschema, JSON Schema 2020-12 unless the schema names its `$schema`). The schema's
`pattern` and `patternProperties` run on RE2, in linear time: an agent's string must not make a backtracking
pattern freeze the gateway (one event loop for every client); a pattern RE2 cannot run refuses the call.

What comes out is what the sidecar checks and what the upstream runs; nothing else is forwarded.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

import jsonschema
import re2
from jsonschema.exceptions import best_match
from referencing import Registry
from referencing.exceptions import Unresolvable

# A plain decimal: no NaN, Infinity, hex, underscores or surrounding spaces (float() takes all of those).
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
# Levels of objects and arrays, the arguments' own object being the first, as the sidecar counts them
# (`server.max_context_depth`, 32 by default): deeper would not even fit a protobuf Struct past ~48.
MAX_DEPTH = 32
MAX_BYTES = 1 << 20  # the sidecar's default max_context_bytes: larger is refused before any validation work
MAX_TEXT = 200
# The sidecar checks numbers as doubles: an integer beyond 2**53 would be checked as another number than the
# one the upstream runs (and beyond ~1.8e308 as none at all).
MAX_EXACT_INT = 2**53
# Digits and the like of a numeric string worth reading as a number: a longer one is no price, count or id
# (and int() refuses more than 4300 digits with a ValueError).
MAX_NUMBER_TEXT = 400


class ArgumentsRefused(Exception):
    """The arguments do not fit the schema (or the schema cannot be used): `argument` names where, if known."""

    def __init__(self, message: str, argument: str = "") -> None:
        super().__init__(message)
        self.message, self.argument = message, argument


def conform(schema: Mapping[str, Any] | None, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments to check and run: a copy, with numeric strings turned into numbers where the schema's
    property is a number or an integer, then validated against the whole schema. Raises ArgumentsRefused."""
    _checkable(arguments, "", 1)
    try:
        size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode("utf-8"))
    except (TypeError, ValueError):
        raise ArgumentsRefused("the arguments are not JSON") from None
    if size > MAX_BYTES:
        raise ArgumentsRefused(f"the arguments are {size} bytes of JSON, over the gateway's {MAX_BYTES}")
    schema = dict(schema or {"type": "object"})
    coerced = _coerce(schema, dict(arguments), 0)
    assert isinstance(coerced, dict)
    _checkable(coerced, "", 1)  # a coerced numeric string is a number now: in range too
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ArgumentsRefused(f"the tool's inputSchema is not a valid JSON Schema: {_short(exc.message)}") from None
    # An empty registry: a `$ref` to a URL is never fetched (an upstream must not make the gateway do requests).
    validator = _linear(cls)(schema, registry=Registry())
    try:
        error = best_match(validator.iter_errors(coerced))
    except _NotLinear as exc:
        raise ArgumentsRefused(
            f"the tool's inputSchema has a pattern the gateway cannot run in linear time (RE2: {exc}): "
            f"{_short(repr(exc.pattern))}"
        ) from None
    except Unresolvable as exc:
        raise ArgumentsRefused(
            f"the tool's inputSchema has a reference that cannot be resolved: {_short(str(exc))}"
        ) from None
    except (RecursionError, OverflowError, ValueError, TypeError) as exc:
        # A schema that refers to itself without end, or a keyword the arguments overflow: fail closed, never
        # a traceback for the caller.
        raise ArgumentsRefused(f"the tool's inputSchema cannot check these arguments ({type(exc).__name__})") from None
    if error is not None:
        where = ".".join(p for p in (_path(error.absolute_path), _missing(error)) if p)
        prefix = f"argument {where!r}: " if where else ""
        raise ArgumentsRefused(f"{prefix}{_short(error.message)}", where)
    return coerced


class _NotLinear(Exception):
    """A schema's pattern RE2 cannot compile (back-references, look-around)."""

    def __init__(self, pattern: str, message: str) -> None:
        super().__init__(message)
        self.pattern = pattern


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print each refused pattern to stderr


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> Any:
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as exc:
        arg = exc.args[0] if exc.args else ""
        raise _NotLinear(pattern, arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)) from None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[jsonschema.ValidationError]:
    """jsonschema's `pattern` on RE2 (a search, as JSON Schema's is)."""
    if validator.is_type(instance, "string") and _regex(pattern).search(instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[jsonschema.ValidationError]:
    """jsonschema's `patternProperties` on RE2."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for k, v in instance.items():
            if _regex(pattern).search(k) is not None:
                yield from validator.descend(v, subschema, path=k, schema_path=pattern)


@lru_cache(maxsize=16)
def _linear(cls: Any) -> Any:
    """The draft's validator class with its regular expressions on RE2."""
    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties}
    return jsonschema.validators.extend(cls, {k: v for k, v in keywords.items() if k in cls.VALIDATORS})


def _coerce(schema: Any, value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH or not isinstance(schema, Mapping):
        return value
    if isinstance(value, str) and _wants_number(schema):
        wants_int = _types(schema) & {"integer", "number"} == {"integer"}
        text = value.strip()
        if len(text) <= MAX_NUMBER_TEXT and (_INTEGER if wants_int else _NUMBER).fullmatch(text):
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


def _checkable(value: Any, where: str, level: int) -> None:
    """What the sidecar can check as it is, wherever it is: NaN and infinities are not JSON (a cap compared with
    NaN is never exceeded), an integer must be exact as a double, and objects and arrays at most MAX_DEPTH deep.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgumentsRefused(f"argument {where!r}: {value} is not a finite number", where)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXACT_INT:
        raise ArgumentsRefused(
            f"argument {where!r}: an integer beyond ±2**53 cannot be checked exactly (the sidecar's numbers are "
            "doubles)",
            where,
        )
    if isinstance(value, Mapping | list) and level > MAX_DEPTH:
        raise ArgumentsRefused(f"arguments nested deeper than {MAX_DEPTH} levels", where)
    if isinstance(value, Mapping):
        for k, v in value.items():
            _checkable(v, f"{where}.{k}" if where else str(k), level + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _checkable(v, f"{where}[{i}]", level + 1)


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
