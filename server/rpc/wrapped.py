"""Interceptors' wrapped method handlers, built once per method instead of once per call.

A server interceptor sees every call and used to build a new handler (a namedtuple and a closure) for each;
a call that waits for a person keeps those alive for as long as it waits, thousands at once in an approval
burst. Wrapping depends only on the method and the handler the next layer returns, so it is memoized on
both, up to LIMIT entries (a handler factory that returned a new handler per call would otherwise grow the
cache: past the limit, handlers are wrapped per call again).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

LIMIT = 512


class Wrapped:
    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: dict[Hashable, Any] = {}

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        try:
            return self._items[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable handler: wrapped per call
            return build()
        wrapped = build()
        if len(self._items) < LIMIT:
            self._items[key] = wrapped
        return wrapped

    def __len__(self) -> int:
        return len(self._items)
