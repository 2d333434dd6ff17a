"""`sandboxed`: run a function on its own thread under a timeout (the SupervisorAgent library's SandboxedExecution).

It never raises: a timeout, an interruption or an exception gives ``completed=False`` with an error
message. ``read_only`` prefixes a string task with ``[READ-ONLY MODE]`` — an instruction to the model,
not an enforced restriction, exactly as in the source.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

READ_ONLY_PREFIX = "[READ-ONLY MODE] "


@dataclass(frozen=True)
class SandboxResult:
    result: Any
    completed: bool
    duration: float  # seconds
    error: str | None


def sandboxed(
    fn: Callable[[Any], Any], task: Any = None, timeout: float = 30.0, read_only: bool = False
) -> SandboxResult:
    """Run ``fn(task)`` (or ``fn()`` when task is None) and wait up to ``timeout`` seconds."""
    if read_only and isinstance(task, str):
        task = READ_ONLY_PREFIX + task
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="outrider-sandbox")
    started = time.monotonic()
    future = pool.submit(fn) if task is None else pool.submit(fn, task)  # type: ignore[call-arg]
    try:
        result = future.result(timeout=timeout)
        return SandboxResult(result, True, time.monotonic() - started, None)
    except concurrent.futures.TimeoutError:
        future.cancel()
        return SandboxResult(None, False, time.monotonic() - started, f"timed out after {timeout:g}s")
    except BaseException as exc:  # the source: interruptions and exceptions are results, never raised
        return SandboxResult(None, False, time.monotonic() - started, f"{type(exc).__name__}: {exc}")
    finally:
        # A timed-out function keeps its thread until it returns; we do not wait for it.
        pool.shutdown(wait=False, cancel_futures=True)
