"""`retry`: exponential backoff with jitter (the Agent Governance Toolkit's `retry`), for sync and async functions.

The n-th retry waits ``base * 2 ** (n - 1)`` seconds (base 1.0 s by default: 1, 2, 4, 8 ...), multiplied by
a jitter factor drawn from [0.5, 1.5) unless ``jitter=False``, capped at ``max_delay`` when given.
``max_attempts`` counts the first call. ``on_retry(attempt, exc)`` is called before each retry with the
number of the attempt that failed (1 for the first call) and its exception; never after the last one.

By default only transport errors are retried (`TRANSIENT`: UNAVAILABLE, DEADLINE_EXCEEDED, a broken
connection or an OS timeout): a retried INVALID_ARGUMENT or PERMISSION_DENIED fails the same way again, and
a bug should surface at once. Pass ``retry_on=`` to widen or narrow it.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import DeadlineExceededError, UnavailableError

F = TypeVar("F", bound=Callable[..., Any])

# What `retry` retries unless told otherwise: the sidecar gave no answer, or answered it cannot serve now.
TRANSIENT: tuple[type[BaseException], ...] = (UnavailableError, DeadlineExceededError, ConnectionError, TimeoutError)

DEFAULT_BASE = 1.0  # seconds: the Agent Governance Toolkit's backoff_base


def backoff_delay(
    attempt: int, base: float, max_delay: float | None, rng: random.Random | None = None, *, jitter: bool = True
) -> float:
    """The wait before retry number `attempt` (1 = the first retry)."""
    delay: float = base * 2 ** (attempt - 1)
    if jitter:
        delay *= (rng or random).uniform(0.5, 1.5)
    return min(delay, max_delay) if max_delay is not None else delay


def retry(
    max_attempts: int = 3,
    base: float = DEFAULT_BASE,
    max_delay: float | None = None,
    retry_on: tuple[type[BaseException], ...] = TRANSIENT,
    rng: random.Random | None = None,
    sleep: Callable[[float], Any] | None = None,
    *,
    jitter: bool = True,
    on_retry: Callable[[int, BaseException], Any] | None = None,
) -> Callable[[F], F]:
    """Retry the decorated function on `retry_on` exceptions; the last failure is re-raised.

    `max_attempts < 1` is rejected when decorating. `jitter=False` gives the plain exponential delays
    (leave it on in production: retriers of one incident should not all wake together). `on_retry`
    observes each retry before its wait; what it raises ends the retries. `rng` (a seeded
    random.Random) and `sleep` make the timings reproducible in tests.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    if base < 0 or (max_delay is not None and max_delay < 0):
        raise ValueError("base and max_delay must not be negative")

    def pause(attempt: int, exc: BaseException) -> float:
        delay = backoff_delay(attempt, base, max_delay, rng, jitter=jitter)
        if on_retry is not None:
            on_retry(attempt, exc)
        return delay

    def decorate(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                for attempt in range(1, max_attempts + 1):
                    try:
                        return await fn(*args, **kwargs)
                    except retry_on as exc:
                        if attempt == max_attempts:
                            raise
                        delay = pause(attempt, exc)
                    await (sleep(delay) if sleep else asyncio.sleep(delay))
                raise AssertionError("unreachable")

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for attempt in range(1, max_attempts + 1):
                try:
                    return fn(*args, **kwargs)
                except retry_on as exc:
                    if attempt == max_attempts:
                        raise
                    delay = pause(attempt, exc)
                (sleep or time.sleep)(delay)
            raise AssertionError("unreachable")

        return wrapper  # type: ignore[return-value]

    return decorate
