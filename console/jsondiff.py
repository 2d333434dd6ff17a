"""A reviewer-readable diff of two JSON values: one row per changed leaf, by path.

Contexts arrive as protobuf Structs, where every number is a double: `10` comes back as `10.0`.
Reviewers see whole numbers as the agent wrote them, and `10` typed back in is no change.
"""

from __future__ import annotations

import json
from typing import Any

Row = tuple[str, str, str, str]  # (path, "added" | "removed" | "changed", before, after)
_MISSING = object()
_EXACT = 2**53  # beyond this a double no longer holds every whole number


def plain(value: Any) -> Any:
    """`value` with whole-number floats as ints (for display and comparison only)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < _EXACT:
        return int(value)
    return value


def diff(before: Any, after: Any) -> list[Row]:
    return _diff(plain(before), plain(after), "")


def _diff(before: Any, after: Any, path: str) -> list[Row]:
    if isinstance(before, dict) and isinstance(after, dict):
        rows: list[Row] = []
        for key in sorted(set(before) | set(after), key=str):
            sub = f"{path}.{key}" if path else str(key)
            rows += _diff(before.get(key, _MISSING), after.get(key, _MISSING), sub)
        return rows
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        rows = []
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            rows += _diff(b, a, f"{path}[{i}]")
        return rows
    if before is _MISSING:
        return [(path or "(root)", "added", "", _text(after))]
    if after is _MISSING:
        return [(path or "(root)", "removed", _text(before), "")]
    if before == after and type(before) is type(after):  # True == 1, but that is a change
        return []
    return [(path or "(root)", "changed", _text(before), _text(after))]


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def pretty(value: Any) -> str:
    return json.dumps(plain(value), indent=2, sort_keys=True, ensure_ascii=False)
