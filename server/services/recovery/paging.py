"""Pages over in-memory lists (recovery policies, substitute lists), with the same opaque tokens as storage."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from server.domain.errors import InvalidArgument
from server.services.ports import Page

T = TypeVar("T")
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def page_size(requested: int) -> int:
    if requested < 0:
        raise InvalidArgument("page_size must not be negative", field="page_size")
    return min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def encode(cursor: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(cursor).encode()).decode().rstrip("=")


def decode(token: str) -> object:
    if not token:
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise InvalidArgument("page_token is not a token this server issued", field="page_token") from exc


def page(items: Sequence[T], key: Callable[[T], str | int], requested_size: int, token: str) -> Page[T]:
    """`items` sorted by `key`; the token is the key of the last item of the previous page."""
    size = page_size(requested_size)
    after = decode(token)
    if after is not None and not isinstance(after, str | int):
        raise InvalidArgument("page_token is not a token this server issued", field="page_token")
    rest = [i for i in items if after is None or _after(key(i), after)]
    chunk = rest[:size]
    return Page(list(chunk), encode(key(chunk[-1])) if len(rest) > size else "")


def _after(value: str | int, cursor: str | int) -> bool:
    if isinstance(value, int) and isinstance(cursor, int):
        return value > cursor
    if isinstance(value, str) and isinstance(cursor, str):
        return value > cursor
    raise InvalidArgument("page_token is not a token this server issued", field="page_token")
