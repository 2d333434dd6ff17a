"""The Python client's pure helpers: retry timings (seeded), sandboxed execution."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from outrider import retry, sandboxed
from outrider.retry import backoff_delay


def test_backoff_is_exponential_with_jitter_in_half_to_one_and_a_half() -> None:
    rng = random.Random(42)
    for attempt in range(1, 8):
        d = backoff_delay(attempt, 0.1, None, rng)
        assert 0.1 * 2 ** (attempt - 1) * 0.5 <= d < 0.1 * 2 ** (attempt - 1) * 1.5
    assert backoff_delay(10, 1.0, 5.0, rng) == 5.0


def test_retry_sleeps_the_seeded_delays_then_reraises() -> None:
    slept: list[float] = []
    calls = []

    @retry(max_attempts=4, base=0.2, rng=random.Random(7), sleep=slept.append)
    def flaky() -> None:
        calls.append(1)
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        flaky()
    expected_rng = random.Random(7)
    assert len(calls) == 4
    assert slept == [0.2 * 2 ** (n - 1) * expected_rng.uniform(0.5, 1.5) for n in (1, 2, 3)]


def test_retry_returns_on_success_and_only_retries_listed_errors() -> None:
    attempts = iter([ValueError(), 42])

    @retry(max_attempts=3, base=0, retry_on=(ValueError,), sleep=lambda _: None)
    def sometimes() -> int:
        value = next(attempts)
        if isinstance(value, Exception):
            raise value
        return value

    assert sometimes() == 42

    @retry(max_attempts=5, retry_on=(ValueError,), sleep=lambda _: None)
    def wrong() -> None:
        raise KeyError("not retried")

    with pytest.raises(KeyError):
        wrong()


def test_retry_async_and_max_delay() -> None:
    slept: list[float] = []

    async def fake_sleep(d: float) -> None:
        slept.append(d)

    @retry(max_attempts=3, base=10, max_delay=1.5, rng=random.Random(1), sleep=fake_sleep)
    async def down() -> None:
        raise TimeoutError

    with pytest.raises(TimeoutError):
        asyncio.run(down())
    assert slept == [1.5, 1.5]


def test_retry_rejects_max_attempts_below_one_at_decoration_time() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        retry(max_attempts=0)


def test_sandboxed_never_raises() -> None:
    ok = sandboxed(lambda t: t.upper(), "plan the release", timeout=5, read_only=True)
    assert (ok.completed, ok.result, ok.error) == (True, "[READ-ONLY MODE] PLAN THE RELEASE", None)
    boom = sandboxed(lambda: 1 / 0, timeout=5)
    assert not boom.completed and boom.error == "ZeroDivisionError: division by zero"
    t0 = time.monotonic()
    slow = sandboxed(lambda: time.sleep(2), timeout=0.1)
    assert not slow.completed and slow.error == "timed out after 0.1s" and time.monotonic() - t0 < 1
    assert slow.duration >= 0.1
