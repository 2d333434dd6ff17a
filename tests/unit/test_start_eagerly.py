"""`start_eagerly`: a stream's decision runs at once and becomes a task only when it has to wait; either way
it behaves as the task it replaces would (its own context, the waits' results, cancellation, errors)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

from server.rpc.check_stream import start_eagerly

where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="outside")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_coroutine_that_never_waits_finishes_at_once_without_a_task() -> None:
    async def go() -> tuple[Any, list[str], str]:
        seen: list[str] = []

        async def decide() -> None:
            where.set("inside")
            seen.append(where.get())

        task = start_eagerly(asyncio.get_running_loop(), decide())
        return task, seen, where.get()

    task, seen, after = run(go())
    assert task is None
    assert seen == ["inside"]
    assert after == "outside"  # its context was a copy, as a task's is


def test_a_coroutine_that_waits_goes_on_in_a_task_with_its_context_and_the_waits_results() -> None:
    async def go() -> tuple[list[Any], str]:
        loop = asyncio.get_running_loop()
        first: asyncio.Future[int] = loop.create_future()
        second: asyncio.Future[int] = loop.create_future()
        seen: list[Any] = []

        async def decide() -> None:
            where.set("inside")
            seen.append(await first)
            await asyncio.sleep(0)  # a bare yield to the loop
            seen.append(await second)
            seen.append(where.get())

        task = start_eagerly(loop, decide())
        assert task is not None and not task.done()
        assert seen == []
        first.set_result(1)
        await asyncio.sleep(0)
        second.set_result(2)
        await task
        return seen, where.get()

    seen, after = run(go())
    assert seen == [1, 2, "inside"]
    assert after == "outside"


def test_cancelling_the_task_reaches_the_coroutine_where_it_waits() -> None:
    async def go() -> tuple[list[str], bool, bool]:
        loop = asyncio.get_running_loop()
        never: asyncio.Future[None] = loop.create_future()
        seen: list[str] = []

        async def decide() -> None:
            try:
                await never
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise
            finally:
                seen.append("finally")

        task = start_eagerly(loop, decide())
        assert task is not None
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen, task.cancelled(), never.cancelled()

    seen, cancelled, waited_on_cancelled = run(go())
    assert seen == ["cancelled", "finally"]
    assert cancelled
    assert waited_on_cancelled  # the future it waited on was cancelled, as a task's own wait would be


def test_a_coroutine_that_catches_the_cancellation_and_waits_again_goes_on() -> None:
    async def go() -> list[str]:
        loop = asyncio.get_running_loop()
        never: asyncio.Future[None] = loop.create_future()
        later: asyncio.Future[str] = loop.create_future()
        seen: list[str] = []

        async def decide() -> None:
            try:
                await never
            except asyncio.CancelledError:
                seen.append("cancelled")
            seen.append(await later)

        task = start_eagerly(loop, decide())
        assert task is not None
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.sleep(0)
        later.set_result("after")
        await task
        return seen

    assert run(go()) == ["cancelled", "after"]


def test_an_error_after_a_wait_is_the_tasks_error() -> None:
    async def go() -> BaseException | None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        async def decide() -> None:
            await ready
            raise ValueError("broken")

        task = start_eagerly(loop, decide())
        assert task is not None
        ready.set_result(None)
        await asyncio.wait([task])
        return task.exception()

    err = run(go())
    assert isinstance(err, ValueError) and str(err) == "broken"


def test_an_error_before_any_wait_is_raised_to_the_caller() -> None:
    async def go() -> None:
        async def decide() -> None:
            raise ValueError("at once")

        start_eagerly(asyncio.get_running_loop(), decide())

    with pytest.raises(ValueError, match="at once"):
        run(go())


def test_no_task_is_current_until_the_first_wait_so_binding_one_fails_loudly() -> None:
    """Until its first wait the coroutine has no task of its own: `asyncio.current_task()` is None there (not
    the caller's task, which a timeout would then cancel), and the caller's task is current again after."""

    async def go() -> tuple[list[Any], Any, BaseException | None]:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        seen: list[Any] = []

        async def decide() -> None:
            seen.append(asyncio.current_task())
            await ready
            seen.append(asyncio.current_task())

        async def bounded() -> None:
            async with asyncio.timeout(5):
                await asyncio.sleep(0)

        caller = asyncio.current_task()
        task = start_eagerly(loop, decide())
        assert task is not None
        after = asyncio.current_task()
        ready.set_result(None)
        await task
        refused: BaseException | None = None
        try:
            start_eagerly(loop, bounded())
        except RuntimeError as exc:
            refused = exc
        assert asyncio.current_task() is caller
        return [*seen, task], after is caller, refused

    (during, later, task), caller_back, refused = run(go())
    assert during is None
    assert later is task  # after its first wait it runs as its own task
    assert caller_back
    assert isinstance(refused, RuntimeError)
