"""How long the current call may wait for storage: the RPC layer states the caller's deadline
(`call_deadline`), and a use case that can wait for a database coming back (`retry_storage`) retries
until shortly before it, then lets StorageUnavailable go (UNAVAILABLE, "storage unavailable, retry")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from server.domain.errors import StorageUnavailable

T = TypeVar("T")

# Seconds a call without a deadline waits for storage: a CheckAction that asks a human is a call its
# caller is prepared to wait for, so longer than the 5 s of the calls that never wait for anything else.
WITHOUT_DEADLINE = 30.0
MARGIN = 0.25  # seconds left before the caller's deadline for the answer to get back
_FIRST_BACKOFF, _MAX_BACKOFF = 0.05, 1.0

_UNSET = -1.0
# The current call's deadline on the monotonic clock; None: the caller set none; _UNSET: not an RPC.
_DEADLINE: ContextVar[float | None] = ContextVar("outrider_call_deadline", default=_UNSET)


@contextmanager
def call_deadline(time_remaining: float | None) -> Iterator[None]:
    """The current call (and the tasks it starts) has `time_remaining` seconds; None: no deadline."""
    token = _DEADLINE.set(None if time_remaining is None else time.monotonic() + time_remaining)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left(started: float) -> float:
    """Seconds this call may still spend waiting for storage (`started`: when its wait began)."""
    deadline = _DEADLINE.get()
    if deadline is None or deadline == _UNSET:
        return WITHOUT_DEADLINE - (time.monotonic() - started)
    return deadline - MARGIN - time.monotonic()


async def retry_storage(call: Callable[[], Awaitable[T]]) -> T:
    """`call()`, retried with back-off (50 ms doubling to 1 s) while it raises StorageUnavailable and the
    call's deadline leaves time for another try; then the last StorageUnavailable."""
    backoff, started = _FIRST_BACKOFF, time.monotonic()
    while True:
        try:
            return await call()
        except StorageUnavailable:
            if time_left(started) <= backoff:
                raise
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, _MAX_BACKOFF)
