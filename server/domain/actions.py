"""Action names: validated to a documented character set and compared in one canonical form.

An action is what every rule matches on, so a look-alike must not slip past a rule written for the
real name. At the edge, an action is NFKC-normalised (full-width letters become ASCII, ligatures
unfold); then, under the default `actions.charset: printable`, control and format characters
(zero-width spaces, direction overrides) are refused, and so is a word that mixes letters of two
scripts (`shell` spelt with a Cyrillic dze, U+0455: the usual homoglyph trick). Under
`actions.charset: strict`, an action is 1-256 characters of the MCP tool-name set `[A-Za-z0-9_.\\-/:]`,
no spaces (tool names have none; fleets whose actions read like `deploy web-frontend` keep the
default). Rules compare without case unless they set `case_sensitive: true` (`fold`).
"""

from __future__ import annotations

import re
import unicodedata

from server.domain.errors import InvalidArgument

CHARSETS = ("printable", "strict")
MAX_ACTION = 1024
MAX_STRICT = 256
_STRICT = re.compile(r"^[A-Za-z0-9_.\-/:]{1,256}$")
_WORD = re.compile(r"[^\W\d_]+")  # runs of letters


def canonical_action(action: str, charset: str = "printable", field: str = "action") -> str:
    """The NFKC form of `action`, or INVALID_ARGUMENT saying what is wrong with it."""
    if not action:
        raise InvalidArgument(f"{field} is required", field=field)
    if len(action) > MAX_ACTION:
        raise InvalidArgument(f"{field} must be at most {MAX_ACTION} characters", field=field)
    # NFKC leaves ASCII alone: the common case costs nothing more.
    canonical = action if action.isascii() else unicodedata.normalize("NFKC", action)
    if charset == "strict":
        if not _STRICT.match(canonical):
            raise InvalidArgument(
                f"{field} must be 1-{MAX_STRICT} characters of A-Z a-z 0-9 _ . - / : (actions.charset: strict)",
                reason="INVALID_ACTION",
                field=field,
            )
        return canonical
    if not canonical.isprintable():
        bad = next(ch for ch in canonical if not ch.isprintable())
        raise InvalidArgument(
            f"{field} holds the non-printable character U+{ord(bad):04X} ({unicodedata.name(bad, 'unnamed')}); "
            "control and format characters are refused",
            reason="INVALID_ACTION",
            field=field,
        )
    if not canonical.isascii():
        for word in _WORD.findall(canonical):
            scripts = {_script(ch) for ch in word} - {"COMBINING", "MODIFIER"}  # marks belong to any script
            if len(scripts) > 1:
                raise InvalidArgument(
                    f"{field}: the word {word!r} mixes letters of {' and '.join(sorted(scripts))} "
                    "(a look-alike of another name)",
                    reason="INVALID_ACTION",
                    field=field,
                )
    return canonical


def _script(ch: str) -> str:
    """The script of a letter, from its Unicode name (`CYRILLIC SMALL LETTER DZE` -> CYRILLIC); the
    stdlib has no script property, and the name's first word is it for every alphabet that matters here."""
    name = unicodedata.name(ch, "")
    first = name.split(" ", 1)[0]
    if first in ("CJK", "HIRAGANA", "KATAKANA"):
        return "HAN/KANA"  # Japanese mixes these in one word by design
    return first or "UNKNOWN"


def fold(text: str) -> str:
    """The case-insensitive form rules compare (NFKC, then Unicode case folding)."""
    return unicodedata.normalize("NFKC", text).casefold() if not text.isascii() else text.lower()
