"""`AsyncAgent`: the `Agent` helper (agent.py) for asyncio, over an `AsyncClient`.

    async with AsyncAgent(client, "worker-1", on_restart=restart, on_kill=stop) as agent:
        await agent.wait()

The same commands, acks, reconnects and stopping rules as `Agent`; the stream is a task on the running
loop. Callbacks may be coroutine functions (awaited on the loop) or plain functions (run in a worker
thread, so a slow one never blocks the loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

from . import _control as ctl
from ._common import seconds
from ._control import Command, Handoff
from .aio import AsyncClient
from .budgets import Signal
from .enums import StopReason
from .v1 import recovery_service_pb2 as pb

_POLL = 0.2  # how often an idle request stream looks whether the heartbeat interval is known


class AsyncAgent(ctl.BaseAgent):
    """`Agent` for asyncio: ``async with AsyncAgent(client, "worker-1", on_kill=...) as agent:``.

    Callbacks may be plain functions (run in a worker thread) or coroutine functions.
    """

    def __init__(
        self,
        client: AsyncClient,
        agent_id: str,
        *,
        on_restart: Callable[[Command], Any] | None = None,
        on_restart_clean: Callable[[Command], Any] | None = None,
        on_kill: Callable[[Command], Any] | None = None,
        on_handoff: Callable[[Handoff], Any] | None = None,
        on_signal: Callable[[Signal], Any] | None = None,
        instance_id: str | None = None,
        reconnect_base: float = 0.5,
        reconnect_max: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        callbacks = ctl.Callbacks(on_restart, on_restart_clean, on_kill, on_handoff, on_signal)
        super().__init__(agent_id, callbacks, instance_id, reconnect_base, reconnect_max, rng)
        self.client = client
        self._out: asyncio.Queue[pb.AttachRequest] | None = None
        self._changed = asyncio.Event()
        self._connected = False
        self._task: asyncio.Task[None] | None = None
        self._work: set[asyncio.Task[None]] = set()

    async def start(self, wait: float | None = None) -> AsyncAgent:
        self._task = asyncio.get_running_loop().create_task(self._run())
        if wait is not None and not await self.wait_connected(wait) and self.stopped_because and self.error:
            raise self.error
        return self

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._work):
            task.cancel()
        if not self.stopped_because:
            self.stopped_because = StopReason.CLOSED
        self._changed.set()

    async def __aenter__(self) -> AsyncAgent:
        return await self.start(wait=self.client.settings.timeout)

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._connected

    async def _until(self, predicate: Callable[[], bool], timeout: float | None) -> bool:
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(loop(), timeout)
        except TimeoutError:
            return False
        return True

    async def wait_connected(self, timeout: float | None = None) -> bool:
        return await self._until(lambda: self._connected or bool(self.stopped_because), timeout) and self._connected

    async def wait(self, timeout: float | None = None) -> bool:
        return await self._until(lambda: bool(self.stopped_because), timeout)

    async def heartbeat(self) -> float | None:
        answer = await self.client.call(self.client.recovery.Heartbeat, pb.HeartbeatRequest(agent_id=self.agent_id))
        return seconds(answer, "heartbeat_interval")

    def _set_connected(self, value: bool) -> None:
        self._connected = value
        self._changed.set()

    # ---- the stream (the loop's decisions are BaseAgent's) -----------------------------------

    async def _run(self) -> None:
        try:
            while True:
                accepted: list[bool] = [False]
                failure: BaseException | None = None
                try:
                    await self._hold(accepted)
                except Exception as exc:
                    failure = exc
                finally:
                    self._out = None
                    self._set_connected(False)
                pause = self._stream_ended(failure, accepted[0])
                if pause is None:
                    return
                await asyncio.sleep(pause)
        finally:
            self.stopped_because = self._outcome
            self._changed.set()

    async def _hold(self, accepted: list[bool]) -> None:
        out: asyncio.Queue[pb.AttachRequest] = asyncio.Queue()
        interval: list[float | None] = [None]
        await out.put(self._hello())
        call = self.client.recovery.Attach(_outgoing(out, interval), **self.client._stream_options(None))
        self._out = out
        try:
            async for response in call:
                if response.HasField("accepted"):
                    interval[0] = self._accepted(response.accepted)
                    accepted[0] = True
                    self._set_connected(True)
                elif (work := self._admit(response.command)) is not None:
                    task = asyncio.get_running_loop().create_task(self._run_callback(*work))
                    self._work.add(task)
                    task.add_done_callback(self._work.discard)
        finally:
            call.cancel()

    async def _run_callback(self, command_id: str, work: ctl.Work) -> None:
        try:
            if inspect.iscoroutinefunction(work.callback):
                returned = await work()
            else:  # a plain function may block: keep it off the event loop
                returned = await asyncio.to_thread(work)
                if inspect.isawaitable(returned):
                    returned = await returned
            ack = ctl.ack_of(returned)
        except Exception as exc:
            ack = ctl.ack_of_error(exc)
        self._finish(command_id, ack)

    def _send(self, message: pb.AttachRequest) -> None:
        if self._out is not None:
            self._out.put_nowait(message)


async def _outgoing(out: asyncio.Queue[pb.AttachRequest], interval: list[float | None]) -> AsyncIterator[Any]:
    """The request stream: queued messages, and a heartbeat whenever the asked-for interval passes idle.
    (One `get` stays pending across heartbeats: cancelling it on a timeout could drop a message.)"""
    getter: asyncio.Task[pb.AttachRequest] | None = None
    try:
        while True:
            if getter is None:
                getter = asyncio.ensure_future(out.get())
            wait = interval[0]  # None until the sidecar says (or when it wants no heartbeats)
            done, _ = await asyncio.wait({getter}, timeout=wait if wait is not None else _POLL)
            if getter in done:
                item, getter = getter.result(), None
                yield item
            elif wait is not None:
                yield ctl.HEARTBEAT
    finally:
        if getter is not None:
            getter.cancel()
