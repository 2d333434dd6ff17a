"""The agent control channel hub: holds each attached agent's stream, sends commands, awaits their acks.

Everything here runs on the server's event loop. Deadlines are measured on the injected Clock, so a test
clock decides when an ack is late; other threads reach the loop through `run_sync`.

- An agent holds at most one stream: a new Attach replaces the older one (which ends ABORTED
  STREAM_REPLACED) and receives the commands not acked on it while they have not expired.
- `request` sends a command and waits for its ack until the timeout; `send` does not wait (the ack is still
  recorded and can be read with `result_of`).
- Acks for unknown or expired command ids are ignored.
- In a fleet (`attachments` given), every stream is recorded in the database before the agent is told it
  is accepted, and forgotten when it ends; the writes go through one thread, in order. With `commands`
  too, a command for an agent attached to another sidecar is routed there (server/services/recovery/
  routing.py); an agent attached here is served as before, without touching the database.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from server.domain.errors import Aborted, OutriderError, Unavailable
from server.domain.recovery.control import CommandOutcome, CommandResult, CommandType, ControlCommand, Delivery
from server.services.fleet.attachments import AttachmentService
from server.services.fleet.ports import ChangeFeed, CommandRepository
from server.services.ports import Clock
from server.services.recovery.routing import CommandRouter

log = logging.getLogger(__name__)

T = TypeVar("T")
# How often a waiter looks at the (possibly injected) clock while no ack arrives.
POLL_SECONDS = 0.02
_SETTLED_KEPT = 2000


@dataclass(frozen=True, slots=True)
class StreamEnd:
    """Put on a connection's queue to end its stream; `error` is None for a normal end."""

    error: OutriderError | None = None


@dataclass(eq=False)
class Connection:
    agent_id: str
    instance_id: str
    client: str
    connect_time: datetime
    number: int
    queue: asyncio.Queue[ControlCommand | StreamEnd] = field(default_factory=asyncio.Queue)
    closed: bool = False
    attachment_id: str = field(default_factory=lambda: f"att-{uuid.uuid4().hex[:16]}")

    def end(self, error: OutriderError | None = None) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(StreamEnd(error))


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("could not forget an attachment", extra={"error": str(future.exception())})


@dataclass(eq=False)
class _Pending:
    command: ControlCommand
    deadline: float  # on the clock's monotonic scale
    future: asyncio.Future[CommandResult]


class ControlChannelHub:
    def __init__(
        self,
        clock: Clock,
        attachments: AttachmentService | None = None,
        commands: CommandRepository | None = None,
        changes: ChangeFeed | None = None,
    ) -> None:
        self.clock = clock
        self.attachments = attachments  # None: one sidecar alone (SQLite, tests): nothing to record
        self.router: CommandRouter | None = None
        if attachments is not None and commands is not None and changes is not None:
            self.router = CommandRouter(self, commands, attachments, changes)
        self._writer: ThreadPoolExecutor | None = None
        self._writer_stopped = False
        if attachments is not None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="attachments")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._conns: dict[str, Connection] = {}
        self._pending: dict[str, _Pending] = {}
        self._settled: OrderedDict[str, CommandResult] = OrderedDict()
        self._last_seen: dict[str, tuple[float, datetime]] = {}
        self._numbers = itertools.count(1)
        self._background: set[asyncio.Task[Any]] = set()
        self.started = clock.monotonic()

    # ---- the loop ----------------------------------------------------------------------------

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def run_sync(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the server's loop from another thread (scheduler jobs, the console)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            coro.close()
            raise Unavailable("the sidecar's event loop is not running")
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            coro.close()
            raise RuntimeError("run_sync was called on the event loop's own thread; await the coroutine instead")
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """A background task on the loop, kept until it ends and cancelled by `close`."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def close(self) -> None:
        for conn in list(self._conns.values()):
            conn.end(Aborted("the sidecar is shutting down", reason="SHUTTING_DOWN"))
        self._conns.clear()
        tasks = [t for t in self._background if not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._writer is not None:
            self._writer_stopped = True
            await asyncio.to_thread(self._writer.shutdown, True)  # the last detach writes

    # ---- connections -------------------------------------------------------------------------

    def connect(self, agent_id: str, instance_id: str = "", client: str = "") -> Connection:
        old = self._conns.get(agent_id)
        if old is not None:
            old.end(Aborted(f"agent {agent_id!r} attached again: this stream was replaced", reason="STREAM_REPLACED"))
        conn = Connection(agent_id, instance_id, client, self.clock.utcnow(), next(self._numbers))
        self._conns[agent_id] = conn
        self.touch(agent_id)
        now = self.clock.monotonic()
        for p in self._pending.values():  # not acked on the old stream: send again, same id
            if p.command.agent_id == agent_id and p.deadline > now and not p.future.done():
                conn.queue.put_nowait(p.command)
        log.info("agent attached", extra={"agent_id": agent_id, "instance_id": instance_id, "client": client})
        return conn

    async def record_attach(self, conn: Connection) -> None:
        """In a fleet: write the attachment (in order with this sidecar's other attachment writes)."""
        if self.attachments is None:
            return
        try:
            await self._in_order(self.attachments.attached, conn.agent_id, conn.attachment_id, conn.connect_time)
        except Exception as exc:
            log.warning("could not record an attachment", extra={"agent_id": conn.agent_id, "error": str(exc)})
            raise Unavailable("the sidecar could not record the agent's attachment; attach again") from exc

    def _in_order(self, fn: Callable[..., T], *args: object) -> asyncio.Future[T]:
        assert self._writer is not None
        return asyncio.get_running_loop().run_in_executor(self._writer, fn, *args)

    def disconnect(self, conn: Connection) -> None:
        conn.closed = True
        if self._conns.get(conn.agent_id) is conn:
            del self._conns[conn.agent_id]
            log.info("agent detached", extra={"agent_id": conn.agent_id})
        if self.attachments is not None and self._writer is not None and not self._writer_stopped:
            future = self._in_order(self.attachments.detached, conn.agent_id, conn.attachment_id)
            future.add_done_callback(_log_failure)

    def stamp_attachments(self) -> None:
        """The fleet heartbeat job (scheduler thread), and the first thing a sidecar does when it finds it was
        declared gone: the streams it holds re-asserted (stamped, or recorded again where the others released
        them), those superseded by a newer stream elsewhere ended (the agent is there), dead sidecars' rows
        gone. A process that serves no streams (a separate console) has nothing to re-assert."""
        if self.attachments is None or self._loop is None:
            return
        self.run_sync(self._reassert(), timeout=10.0)
        self.attachments.release_gone()
        if self.router is not None:
            self.router.prune()

    async def _reassert(self) -> None:
        """On the loop: the snapshot and the write are queued in order with the streams' own attach and
        detach writes, so a stream that ends meanwhile is never written back after its detach."""
        if self.attachments is None or self._writer is None or self._writer_stopped:
            return
        held = {
            c.agent_id: (c.agent_id, c.attachment_id, c.connect_time, self._last_seen.get(a, (0.0, c.connect_time))[1])
            for a, c in self._conns.items()
            if not c.closed
        }
        superseded = await self._in_order(self.attachments.reassert, list(held.values()))
        for agent_id in superseded:
            conn = self._conns.get(agent_id)
            if conn is not None and conn.attachment_id == held[agent_id][1]:
                log.info("a stream superseded by a newer one on another sidecar ended", extra={"agent_id": agent_id})
                self.end_stream(
                    agent_id,
                    Aborted(f"agent {agent_id!r} attached again on another sidecar", reason="STREAM_REPLACED"),
                )

    def end_stream(self, agent_id: str, error: OutriderError | None = None) -> bool:
        conn = self._conns.pop(agent_id, None)
        if conn is None:
            return False
        conn.end(error)
        return True

    def connection(self, agent_id: str) -> Connection | None:
        return self._conns.get(agent_id)

    def is_connected(self, agent_id: str) -> bool:
        return agent_id in self._conns

    def connected(self) -> list[str]:
        """Agents attached right now."""
        return list(self._conns)

    def touch(self, agent_id: str) -> None:
        """A sign of life: a Heartbeat call or any message on the agent's stream."""
        self._last_seen[agent_id] = (self.clock.monotonic(), self.clock.utcnow())

    def last_seen(self, agent_id: str) -> tuple[float, datetime] | None:
        return self._last_seen.get(agent_id)

    def forget(self, agent_id: str) -> None:
        self._last_seen.pop(agent_id, None)

    # ---- commands ----------------------------------------------------------------------------

    @staticmethod
    def new_command_id() -> str:
        return f"cmd-{uuid.uuid4().hex[:16]}"

    def _issue(
        self,
        agent_id: str,
        kind: CommandType,
        reason: str,
        payload: object | None,
        timeout: float,
        command_id: str | None = None,
    ) -> _Pending | None:
        if agent_id not in self._conns:
            return None
        return self._issue_command(self._command(agent_id, kind, reason, payload, timeout, command_id), timeout)

    def _command(
        self,
        agent_id: str,
        kind: CommandType,
        reason: str,
        payload: object | None,
        timeout: float,
        command_id: str | None = None,
    ) -> ControlCommand:
        now = self.clock.utcnow()
        return ControlCommand(
            command_id or self.new_command_id(), agent_id, kind, reason, now, now + timedelta(seconds=timeout), payload
        )

    def _issue_command(self, command: ControlCommand, timeout: float) -> _Pending | None:
        conn = self._conns.get(command.agent_id)
        if conn is None:
            return None
        pending = _Pending(command, self.clock.monotonic() + timeout, asyncio.get_running_loop().create_future())
        self._pending[command.command_id] = pending
        conn.queue.put_nowait(command)
        return pending

    async def request(
        self,
        agent_id: str,
        kind: CommandType,
        reason: str,
        timeout: float,
        payload: object | None = None,
        *,
        command_id: str | None = None,
    ) -> CommandResult:
        """Send a command and wait for its ack, at most `timeout` seconds (on the clock); in a fleet, through
        the sidecar holding the agent's channel when that is another one."""
        pending = self._issue(agent_id, kind, reason, payload, timeout, command_id)
        if pending is not None:
            return await self._wait(pending)
        if self.router is None:
            return CommandResult("", Delivery.NOT_CONNECTED, detail="not connected")
        command = self._command(agent_id, kind, reason, payload, timeout, command_id)
        result = await self.router.request(command, timeout)
        self._remember(result)
        return result

    async def routed_outcome(self, command_id: str, timeout: float) -> CommandResult | None:
        """The outcome of a command routed earlier, perhaps by a sidecar that died since: its stored
        acknowledgement, or (still in flight) the outcome awaited at most `timeout`; None when no command
        of that id was routed (or the fleet routes nothing)."""
        if self.router is None:
            return None
        return await self.router.recorded(command_id, self.clock.monotonic() + timeout)

    async def deliver(self, command: ControlCommand, timeout: float) -> CommandResult:
        """A command routed here by another sidecar: sent on the agent's stream, its ack awaited."""
        pending = self._issue_command(command, timeout)
        if pending is None:
            return CommandResult(command.command_id, Delivery.NOT_CONNECTED, detail="not connected")
        return await self._wait(pending)

    async def post(
        self, agent_id: str, kind: CommandType, reason: str, timeout: float, payload: object | None = None
    ) -> str:
        """`send`, wherever the agent is attached: returns the command id ("" when attached nowhere)."""
        command_id = self.send(agent_id, kind, reason, timeout, payload)
        if command_id or self.router is None:
            return command_id
        command = self._command(agent_id, kind, reason, payload, timeout)
        deadline = self.clock.monotonic() + timeout
        routed = await self.router.post(command)
        if routed is None:
            return ""

        async def wait() -> None:
            assert self.router is not None
            self._remember(await self.router.outcome(routed, deadline))

        self.spawn(wait())
        return command.command_id

    async def end_stream_anywhere(self, agent_id: str, error: OutriderError, timeout: float) -> bool:
        """`end_stream`, on whichever sidecar holds the agent's stream (waits at most `timeout` for it)."""
        if self.end_stream(agent_id, error):
            return True
        if self.router is None or not isinstance(error, Aborted):
            return False
        return await self.router.end_stream(agent_id, error, timeout)

    async def attached_anywhere(self) -> list[str]:
        """Agents attached here and, in a fleet, to the other present sidecars."""
        here = self.connected()
        if self.router is None:
            return here
        return here + [a for a in await self.router.attached_elsewhere() if a not in self._conns]

    def send(self, agent_id: str, kind: CommandType, reason: str, timeout: float, payload: object | None = None) -> str:
        """Send without waiting; returns the command id ("" when the agent is not connected)."""
        pending = self._issue(agent_id, kind, reason, payload, timeout)
        if pending is None:
            return ""
        self.spawn(self._wait(pending))
        return pending.command.command_id

    async def _wait(self, p: _Pending) -> CommandResult:
        try:
            while True:
                left = p.deadline - self.clock.monotonic()
                if left <= 0:
                    result = CommandResult(p.command.command_id, Delivery.TIMEOUT)
                    break
                try:
                    result = await asyncio.wait_for(asyncio.shield(p.future), min(left, POLL_SECONDS))
                    break
                except TimeoutError:
                    continue
        finally:
            self._pending.pop(p.command.command_id, None)
        self._remember(result)
        return result

    def ack(self, conn: Connection, command_id: str, outcome: int, detail: str) -> None:
        self.touch(conn.agent_id)
        p = self._pending.get(command_id)
        if p is None or p.command.agent_id != conn.agent_id or p.future.done():
            log.debug("ack for an unknown or expired command ignored", extra={"command_id": command_id})
            return
        try:
            result_outcome = CommandOutcome(outcome)
        except ValueError:
            result_outcome = CommandOutcome.REJECTED
            detail = detail or "ack without an outcome"
        p.future.set_result(CommandResult(command_id, Delivery.ACKED, result_outcome, detail))
        if p.command.type is CommandType.KILL and result_outcome is CommandOutcome.SUCCESS:
            self.end_stream(conn.agent_id, Aborted(f"agent {conn.agent_id!r} was killed", reason="AGENT_KILLED"))

    def _remember(self, result: CommandResult) -> None:
        self._settled[result.command_id] = result
        while len(self._settled) > _SETTLED_KEPT:
            self._settled.popitem(last=False)

    def result_of(self, command_id: str) -> CommandResult | None:
        """How a recent command ended (acked with an outcome, or timed out); None while in flight or unknown."""
        return self._settled.get(command_id)

    def pending_count(self, agent_id: str) -> int:
        return sum(1 for p in self._pending.values() if p.command.agent_id == agent_id)
