"""CheckActions: many CheckActions on one bidirectional stream, each decided as the unary call decides it.

The stream reads a request, decides it and writes the answer when it is ready; a request that has to wait
(for a human, for storage) goes on in a task of its own, so it holds up no other. Most decisions never
wait: those are decided at once, without a task (`start_eagerly`). At most `window` requests of one
stream are unanswered at a time (decided or not, but not yet written): beyond, the stream stops reading,
and HTTP/2 flow control makes the client wait. So a client that sends without reading answers holds at
most `window` answers in the sidecar's memory, and one stream never has more decisions in flight than the
agent's in-flight cap (limits.max_inflight_per_agent, which counts unary calls and every stream of the
agent together).

A request's own failure is its answer (`error`); the stream ends only when the request side fails: a
request that does not parse, names another agent (authorization, per message), reuses an id in flight,
or comes after the credential was revoked.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import types
from asyncio.tasks import _enter_task, _leave_task  # what task implementations use to say which task runs
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator
from typing import Any

from google.rpc import code_pb2

from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.errors import InvalidArgument, OutriderError
from server.rpc.errors import log_internal, status_code

# Decides one request and writes its answer into the given response (the stream's answer's own `response`:
# built in place, not copied into it).
Decide = Callable[[pb.CheckActionsRequest, pb.CheckActionResponse], Awaitable[None]]


def error_to_pb(exc: OutriderError, field_prefix: str = "check.") -> pb.CheckActionsError:
    """The status the unary call would have ended with, as one answer of the stream."""
    return pb.CheckActionsError(
        code=getattr(code_pb2, status_code(exc).name),
        message=exc.message,
        reason=exc.reason,
        field=f"{field_prefix}{exc.field}" if exc.field else "",
    )


def internal_error(exc: BaseException) -> pb.CheckActionsError:
    """One request's unexpected failure: logged under an error id, answered as the unary call would be."""
    _, message = log_internal("SupervisorService.CheckActions", exc)
    return pb.CheckActionsError(code=code_pb2.INTERNAL, message=message, reason="INTERNAL")


def _forget(pending: dict[int, asyncio.Task[None]], request_id: int, _task: asyncio.Task[None]) -> None:
    pending.pop(request_id, None)


class _End:
    """The request side is done (`error` None) or failed, or the stream must end (`until`)."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


@types.coroutine
def _resume(coro: Coroutine[Any, Any, None], waiting_on: Any) -> Generator[Any, Any, None]:
    """The rest of `coro`, which was started outside a task and stopped at `waiting_on` (what it yielded to
    the event loop: a future, or None to let others run). As a task's coroutine, this hands the task that
    same future first; when it is done, the task's `send(None)` reaches `coro` through `yield from`, as if
    `coro` had been the task's from the start. A cancellation meanwhile is thrown into `coro` where it
    waits."""
    try:
        yield waiting_on
    except BaseException as exc:  # every exception belongs to coro, where it waits
        try:
            waiting_on = coro.throw(exc)
        except StopIteration:
            return
        yield from _resume(coro, waiting_on)
        return
    yield from coro


def start_eagerly(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Runs `coro` at once, in a copy of the current context as a task would, up to its first real wait.
    None when it finished without one (most decisions: no task, no loop turn, no done-callback); else the
    task that goes on with it in that same context. What a task would do, minus its cost when nothing
    waits (Python 3.12's eager task factory, for 3.11).

    Unlike 3.12's, there is no task of its own yet while `coro` runs at once, so `asyncio.current_task()` is
    None until its first wait (the caller's task is set aside meanwhile). Code that binds the current task
    (`asyncio.timeout`, a `TaskGroup`) then fails at once with RuntimeError, instead of binding the caller's
    task and cancelling the whole stream later."""
    context = contextvars.copy_context()
    caller = asyncio.current_task(loop)
    if caller is not None:
        _leave_task(loop, caller)
    try:
        waiting_on = context.run(coro.send, None)
    except StopIteration:
        return None
    finally:
        if caller is not None:
            _enter_task(loop, caller)
    return loop.create_task(_resume(coro, waiting_on), context=context)


def _end_when_raised(answers: asyncio.Queue[pb.CheckActionsResponse | _End], task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        answers.put_nowait(_End(task.exception()))


async def answer_stream(
    requests: AsyncIterator[pb.CheckActionsRequest],
    decide: Decide,
    window: int,
    until: Callable[[], Coroutine[Any, Any, None]] | None = None,
) -> AsyncIterator[pb.CheckActionsResponse]:
    """Answers for `requests`, in the order they are decided. `until`, when given, runs beside the stream:
    when it raises, the answers already queued are delivered and the stream ends with its error (a watcher
    task instead of a timed wait per answer, which cost more than the rest of the stream's own work)."""
    answers: asyncio.Queue[pb.CheckActionsResponse | _End] = asyncio.Queue()
    slots = asyncio.Semaphore(window)
    pending: dict[int, asyncio.Task[None]] = {}

    async def one(request: pb.CheckActionsRequest) -> None:
        answer = pb.CheckActionsResponse(id=request.id)
        try:
            await decide(request, answer.response)
        except OutriderError as exc:
            answer = pb.CheckActionsResponse(id=request.id, error=error_to_pb(exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            answer = pb.CheckActionsResponse(id=request.id, error=internal_error(exc))
        answers.put_nowait(answer)

    async def read() -> None:
        loop = asyncio.get_running_loop()
        try:
            async for request in requests:
                if request.id in pending:
                    raise InvalidArgument(
                        f"id {request.id} is already in flight on this stream; ids are unique until answered",
                        field="id",
                    )
                await slots.acquire()  # released when its answer is written
                task = start_eagerly(loop, one(request))
                if task is None:
                    continue  # decided at once: its answer is queued
                pending[request.id] = task
                task.add_done_callback(functools.partial(_forget, pending, request.id))
            while pending:
                await asyncio.wait(list(pending.values()))
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            answers.put_nowait(_End(exc))
        else:
            answers.put_nowait(_End())

    reader = asyncio.create_task(read())
    watcher: asyncio.Task[None] | None = asyncio.create_task(until()) if until is not None else None
    if watcher is not None:
        watcher.add_done_callback(functools.partial(_end_when_raised, answers))
    try:
        while True:
            item = await answers.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
            slots.release()
    finally:
        reader.cancel()
        if watcher is not None:
            watcher.cancel()
        for task in list(pending.values()):
            task.cancel()
