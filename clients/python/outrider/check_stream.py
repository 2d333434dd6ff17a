"""A check stream: many CheckActions on one long-lived SupervisorService.CheckActions stream.

    with client.check_stream() as stream:                 # or: async with aclient.check_stream() as stream
        r = stream.check("worker-1", "deploy", {"cost": 40})   # thread-safe; `await stream.check(...)` in aio

One stream carries the checks of every thread (task) that shares it: each check gets an id of its own (a
counter), the sidecar answers by id as decisions finish, so a check waiting for a person holds up no
other. A check's own failure raises the error the unary `check_action` would raise (same class, code,
reason and field). When the stream itself ends with an error (a check naming another agent, a revoked
credential, the sidecar going away), every check waiting on it raises that error and the next check opens
a new stream: a broken stream is never reused. (With asyncio, a check written at the very moment the
sidecar ends the stream can get InternalError "Internal error from Core" instead of the stream's status:
grpc.aio reports a failed write that way, `grpc/aio/_call.py`.) Unlike `check_action`, a check that was waiting when the
stream broke is not re-sent; send it again with the same `request_id` to re-attach to its approval.
`close()` (leaving the `with` block) half-closes the stream and waits for the answers still due.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import queue
import threading
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import grpc

from ._common import CheckResult, check_request, check_result
from .errors import DeadlineExceededError, InternalError, OutriderError, from_rpc_error, from_stream_error
from .v1 import supervisor_service_pb2 as spb

if TYPE_CHECKING:
    from .aio import AsyncClient
    from .client import Client

_CLOSE = object()  # the request side's end


def _request(
    stream_id: int,
    agent_id: str,
    action: str,
    context: Mapping[str, Any] | None,
    request_id: str,
    wait: bool,
    traceparent: str,
    binary_context: Mapping[str, bytes] | None,
) -> spb.CheckActionsRequest:
    """One request of the stream: the unary call's request (a random request id unless given)."""
    check = check_request(agent_id, action, context, request_id or uuid.uuid4().hex, wait, binary_context)
    return spb.CheckActionsRequest(id=stream_id, check=check, traceparent=traceparent)


def _outcome(answer: spb.CheckActionsResponse) -> CheckResult | OutriderError:
    if answer.WhichOneof("result") == "response":
        return check_result(answer.response)
    if answer.WhichOneof("result") == "error":
        return from_stream_error(answer.error)
    return InternalError(f"the sidecar answered check {answer.id} with neither a response nor an error")


def _copy(err: OutriderError) -> OutriderError:
    """A fresh exception per waiting check (one instance raised in many threads would share a traceback)."""
    return type(err)(err.message, code=err.code, reason=err.reason, field=err.field, metadata=dict(err.metadata))


def _ended_cleanly() -> OutriderError:
    return InternalError("the check stream ended without answering this check")


def _no_answer(timeout: float, request_id: str) -> DeadlineExceededError:
    return DeadlineExceededError(f"no answer within {timeout:g}s; request {request_id} stays in flight at the sidecar")


# ---- blocking ------------------------------------------------------------------------------------


class _Session:
    """One CheckActions call: the requests go through a queue, a thread reads the answers."""

    def __init__(self, stub: Any, options: dict[str, Any], lock: threading.Condition) -> None:
        self._out: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = lock  # the CheckStream's: guards `pending` and `ended`, notified when they change
        self.pending: dict[int, concurrent.futures.Future[CheckResult]] = {}
        self.ended = False
        self._call: Any = stub.CheckActions(self._requests(), **options)
        self._reader = threading.Thread(target=self._read, name="outrider-check-stream", daemon=True)
        self._reader.start()

    def _requests(self) -> Iterator[spb.CheckActionsRequest]:
        while (item := self._out.get()) is not _CLOSE:
            yield item

    def send(self, request: spb.CheckActionsRequest) -> concurrent.futures.Future[CheckResult]:
        """Under the lock, on a session that has not ended."""
        future: concurrent.futures.Future[CheckResult] = concurrent.futures.Future()
        self.pending[request.id] = future
        self._out.put(request)
        return future

    def _read(self) -> None:
        error: OutriderError | None = None
        try:
            for answer in self._call:
                with self._lock:
                    future = self.pending.pop(answer.id, None)
                    self._lock.notify_all()
                if future is None:
                    continue  # its caller stopped waiting (timeout)
                outcome = _outcome(answer)
                if isinstance(outcome, OutriderError):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
        except grpc.RpcError as err:
            error = from_rpc_error(err)
        with self._lock:
            self.ended = True
            left, self.pending = self.pending, {}
            self._lock.notify_all()
        self._out.put(_CLOSE)  # lets gRPC's request thread finish
        for future in left.values():
            future.set_exception(_copy(error) if error is not None else _ended_cleanly())

    def close(self) -> None:
        """Half-close, wait for the answers still awaited, then end the call: requests whose caller
        stopped waiting (timeout) are not waited for; they stay in flight at the sidecar until then."""
        self._out.put(_CLOSE)
        with self._lock:
            self._lock.wait_for(lambda: self.ended or not self.pending)
        self._call.cancel()  # a no-op once the sidecar ended the stream
        self._reader.join()


class CheckStream:
    """`Client.check_stream()`: checks from any number of threads over one CheckActions stream (see the
    module's docstring). Use it as a context manager, or call `close()`."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._lock = threading.Condition()
        self._ids = itertools.count(1)
        self._session: _Session | None = None
        self._closed = False

    def check(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any] | None = None,
        *,
        request_id: str = "",
        wait: bool = True,
        traceparent: str = "",
        timeout: float | None = None,
        binary_context: Mapping[str, bytes] | None = None,
    ) -> CheckResult:
        """May `agent_id` do `action`? As `Client.check_action`: waits while a person decides unless
        ``wait=False``; a block is an answer, not an error. `traceparent` (W3C) makes the decision's span
        part of the caller's trace. `timeout`: DeadlineExceededError when no answer came in that many
        seconds (the request stays in flight at the sidecar; its late answer is dropped)."""
        request = _request(0, agent_id, action, context, request_id, wait, traceparent, binary_context)
        with self._lock:
            if self._closed:
                raise ValueError("the check stream is closed")
            request.id = next(self._ids)
            if self._session is None or self._session.ended:
                self._session = _Session(self._client.supervisor, self._client._stream_options(None), self._lock)
            session = self._session
            future = session.send(request)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            with self._lock:
                session.pending.pop(request.id, None)
                self._lock.notify_all()
            if future.done():  # answered meanwhile
                return future.result()
            raise _no_answer(timeout or 0, request.check.request_id) from None

    def close(self) -> None:
        """Half-close the stream and wait until every check still waiting is answered; then the stream
        ends (a check that gave up after its `timeout` is not waited for)."""
        with self._lock:
            self._closed = True
            session, self._session = self._session, None
        if session is not None:
            session.close()

    def __enter__(self) -> CheckStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- asyncio -------------------------------------------------------------------------------------


class _AsyncSession:
    """`_Session` on the event loop: an asyncio.Queue of requests, a task reading the answers."""

    def __init__(self, stub: Any, options: dict[str, Any]) -> None:
        self._out: asyncio.Queue[Any] = asyncio.Queue()
        self.pending: dict[int, asyncio.Future[CheckResult]] = {}
        self.ended = False
        self._call: Any = stub.CheckActions(self._requests(), **options)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _requests(self) -> AsyncIterator[spb.CheckActionsRequest]:
        while (item := await self._out.get()) is not _CLOSE:
            yield item

    def send(self, request: spb.CheckActionsRequest) -> asyncio.Future[CheckResult]:
        future: asyncio.Future[CheckResult] = asyncio.get_running_loop().create_future()
        self.pending[request.id] = future
        self._out.put_nowait(request)
        return future

    async def _read(self) -> None:
        error: OutriderError | None = None
        try:
            async for answer in self._call:
                future = self.pending.pop(answer.id, None)
                if future is None or future.done():
                    continue  # its caller stopped waiting
                outcome = _outcome(answer)
                if isinstance(outcome, OutriderError):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
        except grpc.RpcError as err:
            error = from_rpc_error(err)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this task was cancelled
            # The call was: by close(), or by the client's channel closing under it.
            error = OutriderError("the check stream was cancelled (the client closed)", code=grpc.StatusCode.CANCELLED)
        self.ended = True
        left, self.pending = self.pending, {}
        self._out.put_nowait(_CLOSE)
        for future in left.values():
            if not future.done():
                future.set_exception(_copy(error) if error is not None else _ended_cleanly())

    async def aclose(self) -> None:
        """See `_Session.close`."""
        self._out.put_nowait(_CLOSE)
        if self.pending:
            await asyncio.wait(list(self.pending.values()))
        self._call.cancel()
        await self._reader


class AsyncCheckStream:
    """`AsyncClient.check_stream()`: `CheckStream` for asyncio, ``async with`` and ``await s.check(...)``;
    checks from many tasks of one event loop share the stream."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._ids = itertools.count(1)
        self._session: _AsyncSession | None = None
        self._closed = False

    async def check(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any] | None = None,
        *,
        request_id: str = "",
        wait: bool = True,
        traceparent: str = "",
        timeout: float | None = None,
        binary_context: Mapping[str, bytes] | None = None,
    ) -> CheckResult:
        """See `CheckStream.check`. Cancelling the awaiting task stops waiting for the answer (the
        request stays in flight at the sidecar)."""
        if self._closed:
            raise ValueError("the check stream is closed")
        request = _request(next(self._ids), agent_id, action, context, request_id, wait, traceparent, binary_context)
        if self._session is None or self._session.ended:
            self._session = _AsyncSession(self._client.supervisor, self._client._stream_options(None))
        session = self._session
        future = session.send(request)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            raise _no_answer(timeout or 0, request.check.request_id) from None
        finally:
            session.pending.pop(request.id, None)
            if not future.done():
                future.cancel()

    async def close(self) -> None:
        """Half-close the stream and wait until every check still waiting is answered."""
        self._closed = True
        session, self._session = self._session, None
        if session is not None:
            await session.aclose()

    async def __aenter__(self) -> AsyncCheckStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
