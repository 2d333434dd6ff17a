"""Pages over in-memory collections, with the same opaque tokens as storage (a cursor: the last key)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from server.domain.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000

T = TypeVar("T")


def page_size(requested: int) -> int:
    if requested < 0:
        raise InvalidArgument("page_size must not be negative", field="page_size")
    return min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def encode(cursor: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(cursor).encode()).decode().rstrip("=")


def decode(token: str) -> Any:
    if not token:
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise InvalidArgument("page_token is not a token this server issued", field="page_token") from exc


def page_after(items: Sequence[T], key: Callable[[T], str], requested: int, token: str) -> tuple[list[T], str]:
    """`items` sorted by `key`; the page after the token's key, and the next token ("" at the end)."""
    size = page_size(requested)
    after = decode(token)
    if after is not None and not isinstance(after, str):
        raise InvalidArgument("page_token is not a token this server issued", field="page_token")
    chosen = [i for i in items if after is None or key(i) > after]
    page = chosen[:size]
    return page, encode(key(page[-1])) if len(chosen) > size else ""


def page_at(items: Sequence[T], requested: int, token: str) -> tuple[list[T], str]:
    """For lists without a unique sort key: the token is an offset."""
    size = page_size(requested)
    start = decode(token) or 0
    if not isinstance(start, int) or start < 0:
        raise InvalidArgument("page_token is not a token this server issued", field="page_token")
    page = list(items[start : start + size])
    return page, encode(start + size) if start + size < len(items) else ""
