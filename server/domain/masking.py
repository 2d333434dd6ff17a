"""Masking secrets out of JSON-like values before they are logged or stored.

A dict entry is sensitive when its key is "named like" a sensitive key: both are lowercased and stripped
of everything but a-z and 0-9, then the pattern must occur in the key (`X-Api-Key`, `apiKey`,
`db_password`, `refresh_token` all match the defaults). Strings and containers under such a key become
"***"; numbers, booleans and None stay, so counts like `tokens: 1500` remain readable.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

MASK = "***"
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def normalise_key(key: str) -> str:
    return _NOT_ALNUM.sub("", key.lower())


def _patterns(sensitive_keys: Iterable[str]) -> tuple[str, ...]:
    if isinstance(sensitive_keys, tuple):  # the configured keys: normalised once, not on every call
        return _normalised(sensitive_keys)
    return _normalise_all(sensitive_keys)


@functools.lru_cache(maxsize=32)
def _normalised(sensitive_keys: tuple[str, ...]) -> tuple[str, ...]:
    return _normalise_all(sensitive_keys)


def _normalise_all(sensitive_keys: Iterable[str]) -> tuple[str, ...]:
    # A pattern that normalises to "" would match every key: ignore it rather than mask everything.
    return tuple(p for p in (normalise_key(k) for k in sensitive_keys) if p)


def is_sensitive(key: object, sensitive_keys: Iterable[str]) -> bool:
    name = normalise_key(str(key))
    return any(p in name for p in _patterns(sensitive_keys))


def mask(value: Any, sensitive_keys: Iterable[str]) -> Any:
    """A deep copy of `value` with the values of sensitive dict entries replaced by "***"."""
    return _mask(value, _patterns(sensitive_keys))


def _mask(value: Any, patterns: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            if _maskable(v) and _named_like(k if type(k) is str else str(k), patterns):
                out[k] = MASK
            else:
                out[k] = _mask(v, patterns)
        return out
    if isinstance(value, list):
        return [_mask(v, patterns) for v in value]
    if isinstance(value, tuple):
        return tuple(_mask(v, patterns) for v in value)
    return value


_CACHED_KEY_CHARS = 64  # longer keys (rare, and an agent's to choose) are not kept in the cache


def _named_like(key: str, patterns: tuple[str, ...]) -> bool:
    """Whether `key` is named like a sensitive key. The same few keys come in every context: the verdict
    is cached for short keys (normalising each key on every call was most of a mask)."""
    if len(key) > _CACHED_KEY_CHARS:
        name = normalise_key(key)
        return any(p in name for p in patterns)
    return _named_like_cached(key, patterns)


@functools.lru_cache(maxsize=4096)
def _named_like_cached(key: str, patterns: tuple[str, ...]) -> bool:
    name = normalise_key(key)
    return any(p in name for p in patterns)


def _maskable(value: Any) -> bool:
    # Numbers, booleans and None carry no secret; anything else (strings, bytes, containers, objects)
    # might, so it is masked.
    return not (value is None or isinstance(value, bool | int | float))
