"""Context capture for replay (`decision_log.capture: masked`): a decision's context with its sensitive keys
masked (server/domain/masking.py, the audit trail's rules), bounded by `decision_log.capture_max_bytes`.

A masked context over the cap is stored truncated and marked: its top-level entries are kept in key order while
they fit (an entry that alone is over what is left is dropped), and the decision records `context_truncated`.
Replay does not re-run a truncated context (the candidate would see another call); it counts it as skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from server.domain.masking import mask

NONE = "none"
MASKED = "masked"
MODES = (NONE, MASKED)
DEFAULT_MAX_BYTES = 16 * 1024


def _size(value: Any) -> int:
    return len(json.dumps(value, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8"))


def capture(context: Mapping[str, Any], sensitive_keys: Iterable[str], max_bytes: int) -> tuple[dict[str, Any], bool]:
    """The masked context as stored, and whether it had to be truncated to fit `max_bytes` (its JSON size)."""
    masked: dict[str, Any] = mask(dict(context), tuple(sensitive_keys))
    if _size(masked) <= max_bytes:
        return masked, False
    kept: dict[str, Any] = {}
    used = 2  # the braces
    for key in sorted(masked, key=str):
        entry = _size({key: masked[key]}) - 2 + (1 if kept else 0)  # "key":value, and a comma after the first
        if used + entry <= max_bytes:
            kept[key] = masked[key]
            used += entry
    return kept, True
