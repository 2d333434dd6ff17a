"""Action names: validated to a documented character set and compared in one canonical form.

An action is what every rule matches on, so a look-alike must not slip past a rule written for the
real name. At the edge, an action is NFKC-normalised (full-width letters become ASCII, ligatures
unfold, NBSP and em spaces become a space); then, under the default `actions.charset: printable`, it is
refused when it starts or ends with whitespace or holds a run of it (` shell.exec`, `shell.exec `), when it
holds a control or format character (zero-width spaces and joiners, direction overrides), when a word mixes
letters of two scripts (`shell` spelt with a Cyrillic dze, U+0455), and when any character is confusable
with ASCII by the Unicode TR39 skeleton (`shell.exec` with a Latin small capital S, U+A731, or spelt
all in Cyrillic), unless the operator allows that character's script (`actions.allowed_scripts: [Cyrillic]`).
The skeleton is ICU's (PyICU's SpoofChecker), the reference implementation of TR39, never a table of ours.
Under `actions.charset: strict`, an action is 1-256 characters of the MCP tool-name set
`[A-Za-z0-9_.\\-/:]`, no spaces (tool names have none; fleets whose actions read like `deploy web-frontend`
keep the default). Rules compare without case unless they set `case_sensitive: true` (`fold`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import icu

from server.domain.errors import InvalidArgument

CHARSETS = ("printable", "strict")
MAX_ACTION = 1024
MAX_STRICT = 256
_STRICT = re.compile(r"^[A-Za-z0-9_.\-/:]{1,256}$")
_WORD = re.compile(r"[^\W\d_]+")  # runs of letters
_SPACE_RUN = re.compile(r"\s{2,}")
# The TR39 skeleton: ICU's data for the Unicode version it ships (one checker, read-only once built).
_SPOOF = icu.SpoofChecker()


@dataclass(frozen=True, slots=True)
class ActionRules:
    """How an action is checked at the edge: `actions.charset` and `actions.allowed_scripts` (script names
    as Unicode spells them, any case: `Cyrillic`, `Greek`, `Han`)."""

    charset: str = "printable"
    allowed_scripts: frozenset[str] = frozenset()

    def canonical(self, action: str, field: str = "action") -> str:
        return canonical_action(action, self.charset, field, self.allowed_scripts)


def script_names(names: Iterable[str]) -> frozenset[str]:
    """The canonical names of `names` (`cyrl` and `cyrillic` -> `Cyrillic`); InvalidArgument naming an
    unknown one."""
    out = set()
    for name in names:
        codes = icu.Script.getCode(name) if isinstance(name, str) and name else ()
        if not codes:
            raise InvalidArgument(f"{name!r} is not a Unicode script name (e.g. Cyrillic, Greek, Han)")
        out.add(icu.Script(codes[0]).getName())
    return frozenset(out)


def canonical_action(
    action: str, charset: str = "printable", field: str = "action", allowed_scripts: Iterable[str] = ()
) -> str:
    """The NFKC form of `action`, or INVALID_ARGUMENT saying what is wrong with it."""
    if not action:
        raise InvalidArgument(f"{field} is required", field=field)
    if len(action) > MAX_ACTION:
        raise InvalidArgument(f"{field} must be at most {MAX_ACTION} characters", field=field)
    # NFKC leaves ASCII alone: the common case costs nothing more.
    ascii_only = action.isascii()
    canonical = action if ascii_only else unicodedata.normalize("NFKC", action)
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
        raise _invalid(
            field,
            f"holds the non-printable character {_named(bad)}; control and format characters are refused",
        )
    if canonical[0].isspace() or canonical[-1].isspace():
        where = "starts" if canonical[0].isspace() else "ends"
        raise _invalid(field, f"{where} with whitespace (a look-alike of the name without it)")
    if _SPACE_RUN.search(canonical):
        raise _invalid(field, "holds a run of whitespace (a look-alike of the name with one space)")
    if not canonical.isascii():
        _check_letters(canonical, field, frozenset(allowed_scripts))
    return canonical


@functools.lru_cache(maxsize=4096)
def _check_letters(canonical: str, field: str, allowed: frozenset[str]) -> None:
    """Mixed-script words and characters confusable with ASCII; remembered per action, as an agent sends
    the same few names again and again (a refusal raises, so only valid names are remembered)."""
    for word in _WORD.findall(canonical):
        scripts = {_script(ch) for ch in word} - {"COMBINING", "MODIFIER"}  # marks belong to any script
        if len(scripts) > 1:
            raise _invalid(
                field,
                f"the word {word!r} mixes letters of {' and '.join(sorted(scripts))} (a look-alike of another name)",
            )
    for ch in dict.fromkeys(canonical):
        if ch.isascii():
            continue
        skeleton = _skeleton(ch)
        if skeleton.isascii() and _script_of(ch) not in allowed:
            raise _invalid(
                field,
                f"{_named(ch)} looks like ASCII {skeleton!r} (Unicode TR39 confusable; "
                f"actions.allowed_scripts can allow the {_script_of(ch)} script)",
            )


def ascii_lookalikes(text: str) -> str:
    """`text` with every non-ASCII character whose TR39 skeleton is ASCII replaced by that skeleton
    (Cyrillic ghe U+0433 -> `r`, a minus sign -> `-`); ASCII is left alone (the skeleton of ASCII `m` is `rn`,
    which no operator's pattern expects)."""
    if text.isascii():
        return text
    table = {ord(ch): sk for ch in set(text) if not ch.isascii() and (sk := _skeleton(ch)).isascii()}
    return text.translate(table) if table else text


def _invalid(field: str, problem: str) -> InvalidArgument:
    return InvalidArgument(f"{field}: {problem}", reason="INVALID_ACTION", field=field)


def _named(ch: str) -> str:
    return f"{ch!r} U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed')})"


@functools.lru_cache(maxsize=4096)
def _skeleton(ch: str) -> str:
    skeleton: str = _SPOOF.getSkeleton(0, ch)
    return skeleton


@functools.lru_cache(maxsize=4096)
def _script_of(ch: str) -> str:
    name: str = icu.Script.getScript(ch).getName()
    return name


def _script(ch: str) -> str:
    """The script of a letter, from its Unicode name (`CYRILLIC SMALL LETTER DZE` -> CYRILLIC), for the
    mixed-word check; the name's first word is it for every alphabet that matters here."""
    name = unicodedata.name(ch, "")
    first = name.split(" ", 1)[0]
    if first in ("CJK", "HIRAGANA", "KATAKANA"):
        return "HAN/KANA"  # Japanese mixes these in one word by design
    return first or "UNKNOWN"


def look_alike_key(name: str) -> str:
    """Names with equal keys look alike to a person: the Unicode TR39 skeleton of the folded form
    (`pay`, `PAY` and `p\\u0430y` with a Cyrillic a share one)."""
    skeleton: str = _SPOOF.getSkeleton(0, fold(name))
    return skeleton


def fold(text: str) -> str:
    """The case-insensitive form rules compare (NFKC, then Unicode case folding)."""
    return unicodedata.normalize("NFKC", text).casefold() if not text.isascii() else text.lower()
