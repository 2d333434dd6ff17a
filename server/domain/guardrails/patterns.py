"""Compiled action globs and regexes, validated once when a guardrail is built."""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Iterable, Sequence

import re2

from server.domain.actions import fold
from server.domain.errors import InvalidArgument


class GlobSet:
    """Exact names or shell globs (`deploy-*`, `db.?`), matched as one regex after NFKC normalisation
    (server/domain/actions.py), ignoring case unless `case_sensitive`."""

    __slots__ = ("_regex", "case_sensitive", "patterns")

    def __init__(self, patterns: Iterable[str], case_sensitive: bool = False) -> None:
        self.patterns = tuple(patterns)
        self.case_sensitive = case_sensitive
        canon = [unicodedata.normalize("NFKC", p) if case_sensitive else fold(p) for p in self.patterns]
        joined = "|".join(f"(?:{fnmatch.translate(p)})" for p in canon)
        self._regex = re.compile(joined) if self.patterns else None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, value: str) -> bool:
        if self._regex is None:
            return False
        if not self.case_sensitive:
            value = fold(value)
        elif not value.isascii():
            value = unicodedata.normalize("NFKC", value)
        return self._regex.match(value) is not None


MATCH_MODES = ("contains", "glob", "exact")


class NameSet:
    """Action patterns under a `match:` mode: `glob` (GlobSet), `exact` (the whole name), or `contains` (the
    name contains the pattern). Both sides NFKC-normalised, and case-folded unless `case_sensitive`."""

    __slots__ = ("_canon", "_glob", "case_sensitive", "mode", "patterns")

    def __init__(self, patterns: Iterable[str], mode: str, case_sensitive: bool = False) -> None:
        self.patterns = tuple(patterns)
        self.mode = mode
        self.case_sensitive = case_sensitive
        self._glob = GlobSet(self.patterns, case_sensitive) if mode == "glob" else None
        self._canon = tuple(self.canon(p) for p in self.patterns)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def canon(self, text: str) -> str:
        if self.case_sensitive:
            return text if text.isascii() else unicodedata.normalize("NFKC", text)
        return fold(text)

    def matches(self, action: str) -> bool:
        if self._glob is not None:
            return self._glob.matches(action)
        name = self.canon(action)
        if self.mode == "exact":
            return name in self._canon
        return any(p in name for p in self._canon)


def match_mode(value: object, default: str, where: str) -> str:
    """The `match:` option: one of MATCH_MODES."""
    mode = default if value is None else value
    if mode not in MATCH_MODES:
        raise InvalidArgument(f"{where}: must be one of 'contains', 'glob', 'exact', got {value!r}", field="match")
    return str(mode)


class RegexSet:
    """Operator regular expressions, compiled with RE2: linear time in the text, so no pattern can stall
    the sidecar (no catastrophic backtracking). One RE2 set scans a text for all of them at once, each
    pattern matching exactly as it would alone (joining them into one alternation renumbers capture
    groups and changes what a pattern means). Back-references and look-around do not exist in RE2: such
    a pattern is refused when the guardrail is built, naming it."""

    __slots__ = ("_set", "context_free", "patterns", "regexes")

    def __init__(self, patterns: Iterable[str], where: str, field: str) -> None:
        self.patterns = tuple(patterns)
        regexes = []
        for i, pattern in enumerate(self.patterns):
            try:
                regexes.append(re2.compile(pattern, _RE2_OPTIONS))
            except re2.error as exc:
                raise InvalidArgument(
                    f"{where}[{i}]: invalid regular expression {pattern!r}: RE2 cannot compile it "
                    f"({_re2_message(exc)}); back-references and look-around are not supported",
                    field=field,
                ) from None
        self.regexes = tuple(regexes)
        # Without a zero-width assertion (RE2 has no look-around: these are all of them, and a `^` inside a
        # class only makes this conservative), whether a pattern matches a text depends on the text alone,
        # so a match inside one of several texts is a match inside their concatenation.
        self.context_free = not any(a in p for p in self.patterns for a in _ASSERTIONS)
        self._set = re2.Set.SearchSet(_RE2_OPTIONS) if self.patterns else None
        if self._set is not None:
            for pattern in self.patterns:
                self._set.Add(pattern)
            self._set.Compile()

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __len__(self) -> int:
        return len(self.patterns)

    def any_match(self, text: str) -> bool:
        """Does any pattern match anywhere in `text`?"""
        return self._set is not None and self._set.Match(text) is not None

    def any_match_in(self, texts: Sequence[str]) -> bool:
        """Does any pattern match anywhere in any of `texts`, each text on its own?

        RE2 releases the GIL for every search, and taking it back waits for whichever thread took it
        meanwhile (≈ 100 µs with one busy thread, against ≈ 2 µs for the search): one search per string
        leaf made the trust root most of a CheckAction's cost. So the texts are searched joined, once;
        only when that finds something (a match may then also straddle two texts) are they searched one by
        one. Exact for context-free patterns; the others are searched text by text."""
        if self._set is None:
            return False
        match = self._set.Match
        if self.context_free and len(texts) > 1 and match("\n".join(texts)) is None:
            return False
        return any(match(text) is not None for text in texts)

    def matching(self, text: str) -> list[str]:
        """The patterns that match somewhere in `text`, in the order given."""
        if self._set is None:
            return []
        found = self._set.Match(text)
        return [self.patterns[i] for i in sorted(found)] if found else []


_ASSERTIONS = ("^", "$", "\\A", "\\z", "\\b", "\\B")
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print each refused pattern to stderr


def _re2_message(exc: Exception) -> str:
    arg = exc.args[0] if exc.args else ""
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def compile_regexes(patterns: Iterable[str], where: str, field: str = "blocked_patterns") -> RegexSet:
    return RegexSet(patterns, where, field)
