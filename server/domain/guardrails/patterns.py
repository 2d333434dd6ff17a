"""Compiled action globs and regexes, validated once when a guardrail is built."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

from server.domain.errors import InvalidArgument


class GlobSet:
    """Exact names or shell globs (`deploy-*`, `db.?`), matched case-sensitively as one regex."""

    __slots__ = ("_regex", "patterns")

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        joined = "|".join(f"(?:{fnmatch.translate(p)})" for p in self.patterns)
        self._regex = re.compile(joined) if self.patterns else None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, value: str) -> bool:
        return self._regex is not None and self._regex.match(value) is not None


def compile_regexes(patterns: Iterable[str], where: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for i, pattern in enumerate(patterns):
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise InvalidArgument(
                f"{where}[{i}]: invalid regular expression {pattern!r}: {exc}", field="blocked_patterns"
            ) from exc
    return tuple(compiled)
