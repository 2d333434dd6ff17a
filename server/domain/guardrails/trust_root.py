"""`trust_root`: the deterministic authority (the Agent Governance Toolkit, section 9) that runs before every guardrail.

It scans the action and *every* string leaf of the context: nested maps, lists, map keys, and bytes
decoded as UTF-8 with backslash escapes, so nothing hides inside a structure or an encoding.

Nor inside a spelling: under `normalize: nfkc` (the default) a pattern also meets each text's normal form
(NFKC, format characters such as zero-width spaces and joiners removed, whitespace runs folded to one space)
and that form's ASCII look-alike form (each non-ASCII character whose Unicode TR39 skeleton is ASCII replaced
by it: Cyrillic ghe U+0433 -> `r`, a minus sign -> `-`). So `rm\\s+-rf` also stops `rm\u200b -rf`,
`rm -rf` in full-width letters, `rm\u00a0-rf`, `rm\u2003-rf` and `rm -rf` with a Cyrillic ghe for the `r`.
The raw text is matched too, so a pattern written for a zero-width character still finds it.
`normalize: none` matches the raw text only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from server.domain.actions import ascii_lookalikes
from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.options import Options
from server.domain.guardrails.patterns import GlobSet, compile_regexes

_SCALARS = (bool, int, float, type(None))


def collect_texts(value: Any, out: list[str]) -> list[str]:
    """Every string-like leaf, map keys included, appended to `out` without paths: the fast walk for the
    common no-match case. Exact type checks first (contexts are plain dicts, lists and scalars), the
    abstract ones only for anything else."""
    stack = [value]
    pop, push, add = stack.pop, stack.append, out.append
    while stack:
        v = pop()
        t = type(v)
        if t is str:
            add(v)
        elif t is dict:
            for key, item in v.items():
                add(key if type(key) is str else _decode(key) if isinstance(key, bytes | bytearray) else str(key))
                if type(item) is str:
                    add(item)
                elif not isinstance(item, _SCALARS):
                    push(item)
        elif t is list or t is tuple:
            for item in v:
                if type(item) is str:
                    add(item)
                elif not isinstance(item, _SCALARS):
                    push(item)
        elif isinstance(v, bytes | bytearray | memoryview):
            add(_decode(v))
        elif isinstance(v, Mapping):
            push(dict(v))
        elif isinstance(v, list | tuple | set | frozenset):
            push(list(v))
    return out


def _decode(value: bytes | bytearray | memoryview) -> str:
    return bytes(value).decode("utf-8", errors="backslashreplace")


NORMALIZE = ("none", "nfkc")
_WHITESPACE = re.compile(r"\s+")
_NEEDS_FOLD = re.compile(r"\s{2,}|[^\S ]")  # a run of whitespace, or one that is not a plain space


def normal_forms(text: str) -> list[str]:
    """The forms of `text` other than itself that `normalize: nfkc` matches too (none for plain ASCII with
    single spaces, the common case, which costs one scan)."""
    if text.isascii():
        if not _NEEDS_FOLD.search(text):
            return []
        return [_WHITESPACE.sub(" ", text)]
    normal = unicodedata.normalize("NFKC", text)
    # Per distinct character, then one C-level translate: a 1 MiB leaf costs milliseconds, not a Python loop.
    drop = {ord(ch): None for ch in set(normal) if not ch.isascii() and unicodedata.category(ch) == "Cf"}
    normal = _WHITESPACE.sub(" ", normal.translate(drop) if drop else normal)
    lookalike = ascii_lookalikes(normal)
    return [form for form in dict.fromkeys((normal, lookalike)) if form != text]


def with_normal_forms(texts: list[str]) -> list[str]:
    """`texts` and their normal forms. Three C-level scans of all of them decide the common case (printable
    ASCII with single spaces: nothing to add; ASCII whitespace other than a space is not printable)."""
    joined = "|".join(texts)
    if joined.isascii() and joined.isprintable() and "  " not in joined:
        return texts
    out = list(texts)
    for text in texts:
        out.extend(normal_forms(text))
    return out


def iter_string_leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Yield (path, text) for every string-like leaf, map keys included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, bytes | bytearray | memoryview):
        yield path, bytes(value).decode("utf-8", errors="backslashreplace")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            key_text = (
                str(key)
                if not isinstance(key, bytes | bytearray)
                else bytes(key).decode("utf-8", errors="backslashreplace")
            )
            yield f"{path} key {key_text!r}", key_text
            yield from iter_string_leaves(item, f"{path}.{key_text}")
    elif isinstance(value, list | tuple | set | frozenset):
        for i, item in enumerate(value):
            yield from iter_string_leaves(item, f"{path}[{i}]")


class TrustRoot(Guardrail):
    kind = "trust_root"
    runs_first = True

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"allowed_actions", "blocked_patterns", "normalize"})
        self.allowed_actions = GlobSet(opts.strings("allowed_actions"))
        self.blocked = compile_regexes(opts.strings("blocked_patterns"), opts.where("blocked_patterns"))
        normalize = opts.string("normalize", default="nfkc")
        if normalize not in NORMALIZE:
            raise InvalidArgument(
                f"{opts.where('normalize')}: must be 'none' or 'nfkc', got {normalize!r}", field="normalize"
            )
        self.normalize = normalize == "nfkc"

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        if self.allowed_actions and not self.allowed_actions.matches(call.action):
            return GuardrailResult.blocked(f"Action {call.action!r} is not allowed by the trust root")
        if not self.blocked:
            return GuardrailResult.allow()
        texts = collect_texts(call.binary_context, collect_texts(call.context, [call.action]))
        if self.normalize:
            texts = with_normal_forms(texts)
        if not self.blocked.any_match_in(texts):
            return GuardrailResult.allow()
        # A match: walk again, with paths, to say which pattern matched where.
        for where, text in self._leaves(call):
            matched = self.blocked.matching(text)
            if matched:
                return GuardrailResult.blocked(f"Blocked by the trust root: pattern {matched[0]!r} matched {where}")
            for form in normal_forms(text) if self.normalize else ():
                matched = self.blocked.matching(form)
                if matched:
                    return GuardrailResult.blocked(
                        f"Blocked by the trust root: pattern {matched[0]!r} matched {where} "
                        f"(its normal form {form[:80]!r})"
                    )
        return GuardrailResult.allow()

    @staticmethod
    def _leaves(call: ActionCall) -> Iterator[tuple[str, str]]:
        yield "the action", call.action
        yield from iter_string_leaves(call.context, "context")
        yield from iter_string_leaves(call.binary_context, "binary_context")
