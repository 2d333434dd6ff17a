"""Small value helpers shared by the rules: number formatting, durations, canonical JSON digests."""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from server.domain.errors import InvalidArgument

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def format_number(value: float | int) -> str:
    """Print a number as a person wrote it: 140, not 140.0; 140.5 stays 140.5."""
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)


def is_number(value: object) -> bool:
    """True for ints and floats, never for bools (JSON has no int/bool overlap)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse_duration(value: object, field: str) -> float:
    """Seconds from `60s`, `250ms`, `5m`, `1h`, `7d` or a plain number of seconds."""
    if is_number(value):
        seconds = float(value)  # type: ignore[arg-type]
    elif isinstance(value, str) and (m := _DURATION.match(value)):
        seconds = float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
    else:
        raise InvalidArgument(
            f"{field}: {value!r} is not a duration; use a number of seconds or e.g. '60s', '250ms', '5m'",
            field=field,
        )
    if seconds <= 0 or not math.isfinite(seconds):
        raise InvalidArgument(f"{field}: must be a positive duration, got {value!r}", field=field)
    return seconds


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
