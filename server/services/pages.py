"""Pages over in-memory collections, with the same opaque tokens as storage (server/domain/pages.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from server.domain.errors import InvalidArgument
from server.domain.pages import decode, encode, page_size
from server.services.ports import Page

T = TypeVar("T")

_FOREIGN = "page_token is not a token this server issued"


def page_after(items: Sequence[T], key: Callable[[T], str], requested: int, token: str) -> tuple[list[T], str]:
    """`items` sorted by `key`; the page after the token's key, and the next token ("" at the end)."""
    if token and not isinstance(decode(token), str):
        raise InvalidArgument(_FOREIGN, field="page_token")
    got = page(items, key, requested, token)
    return got.items, got.next_page_token


def page(items: Sequence[T], key: Callable[[T], str | int], requested: int, token: str) -> Page[T]:
    """`items` sorted by `key`; the token is the key of the last item of the previous page."""
    size = page_size(requested)
    after = decode(token)
    if after is not None and (isinstance(after, bool) or not isinstance(after, str | int)):
        raise InvalidArgument(_FOREIGN, field="page_token")
    rest = [i for i in items if after is None or _after(key(i), after)]
    chunk = rest[:size]
    return Page(list(chunk), encode(key(chunk[-1])) if len(rest) > size else "")


def page_at(items: Sequence[T], requested: int, token: str) -> tuple[list[T], str]:
    """For lists without a unique sort key: the token is an offset."""
    size = page_size(requested)
    start = decode(token) or 0
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise InvalidArgument(_FOREIGN, field="page_token")
    chunk = list(items[start : start + size])
    return chunk, encode(start + size) if start + size < len(items) else ""


def _after(value: str | int, cursor: str | int) -> bool:
    if isinstance(value, int) and isinstance(cursor, int):
        return value > cursor
    if isinstance(value, str) and isinstance(cursor, str):
        return value > cursor
    raise InvalidArgument(_FOREIGN, field="page_token")
