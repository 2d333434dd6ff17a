"""`Agent`: holds an agent's control channel (RecoveryService.Attach) and answers the sidecar's commands.

    def on_kill(command):              # the kill switch: stop, then return (the ack says "terminated")
        work.stop()

    with Agent(client, "worker-1", on_restart=restart, on_kill=on_kill, on_handoff=take_step) as agent:
        agent.wait()                    # until killed, replaced or closed

PING is answered at once. RESTART, RESTART_CLEAN, KILL, HANDOFF (a killed agent's saga step, given to
`on_handoff`) and the budget signals SIGWARN / SIGSTOP / SIGRESUME (given to `on_signal`) go to the
callbacks, on worker threads so pings keep flowing. A callback acks SUCCESS by returning, FAILURE by
returning False or raising, REJECTED by raising CommandRejected; a command without a callback is REJECTED
(KILL without one is acked SUCCESS). The stream reconnects with backoff when it ends or breaks; commands
the sidecar re-sends after a reconnect (same id) are acked again without running twice. The helper stops
for good when the agent is killed, when another process attaches as the same agent, or on a fatal error
(not registered, bad credential): see `stopped_because` and `error`.

`AsyncAgent` (agent_aio.py) is the same over an `AsyncClient`. `heartbeat(client, id)` is for agents that
cannot hold a stream.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from . import _control as ctl
from ._common import seconds
from ._control import Command, CommandRejected, Handoff, KillOrder
from .budgets import Signal
from .client import Client
from .v1 import recovery_service_pb2 as pb

__all__ = ["Agent", "Command", "CommandRejected", "Handoff", "KillOrder", "Signal", "heartbeat"]

_POLL = 0.2  # how often an idle request stream looks whether it should end or send a heartbeat


def heartbeat(client: Client, agent_id: str) -> float | None:
    """Liveness for an agent that cannot hold a stream; returns how often to call it (seconds), or None
    when the agent has no heartbeat check. NotFoundError for an unregistered agent."""
    answer = client.call(client.recovery.Heartbeat, pb.HeartbeatRequest(agent_id=agent_id))
    return seconds(answer, "heartbeat_interval")


class _Stream:
    """One Attach stream: its outgoing queue, and the heartbeat interval the sidecar asked for."""

    def __init__(self) -> None:
        self.out: queue.Queue[pb.AttachRequest | None] = queue.Queue()
        self.heartbeat_interval: float | None = None
        self.accepted = False
        self.call: Any = None

    def requests(self, hello: pb.AttachRequest) -> Iterator[pb.AttachRequest]:
        yield hello
        last = time.monotonic()
        while True:
            interval = self.heartbeat_interval
            wait = _POLL if interval is None else max(0.01, min(_POLL, last + interval - time.monotonic()))
            try:
                item = self.out.get(timeout=wait)
            except queue.Empty:
                if interval is not None and time.monotonic() - last >= interval:
                    last = time.monotonic()
                    yield ctl.HEARTBEAT
                continue
            if item is None:
                return
            last = time.monotonic()
            yield item


class Agent(ctl.BaseAgent):
    """The control channel on a background thread; `close()` (or leaving `with`) ends it."""

    def __init__(
        self,
        client: Client,
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
        workers: int = 4,
    ) -> None:
        callbacks = ctl.Callbacks(on_restart, on_restart_clean, on_kill, on_handoff, on_signal)
        super().__init__(agent_id, callbacks, instance_id, reconnect_base, reconnect_max, rng)
        self.client = client
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix=f"outrider-agent-{agent_id}")
        self._lock = threading.Condition()
        self._stream: _Stream | None = None
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"outrider-agent-{agent_id}", daemon=True)

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self, wait: float | None = None) -> Agent:
        """Start holding the channel; with `wait`, block until the first stream is accepted (raising the
        error when the helper stopped instead)."""
        self._thread.start()
        if wait is not None and not self.wait_connected(wait) and self.stopped_because and self.error:
            self.close()
            raise self.error
        return self

    def close(self, timeout: float = 5.0) -> None:
        """End the stream and stop reconnecting; running callbacks are not waited for."""
        self._closing.set()
        with self._lock:
            stream = self._stream
        if stream is not None:
            stream.out.put(None)
            if stream.call is not None:
                stream.call.cancel()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> Agent:
        return self.start(wait=self.client.settings.timeout)

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._stream is not None and self._stream.accepted

    def wait_connected(self, timeout: float | None = None) -> bool:
        """True once a stream is accepted; False on timeout or when the helper stopped."""
        with self._lock:
            return self._lock.wait_for(lambda: self.connected or bool(self.stopped_because), timeout) and self.connected

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the helper stops (killed, replaced, fatal error, closed); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: bool(self.stopped_because), timeout)

    def heartbeat(self) -> float | None:
        return heartbeat(self.client, self.agent_id)

    # ---- the stream (the loop's decisions are BaseAgent's) -----------------------------------

    def _run(self) -> None:
        while not self._closing.is_set():
            stream = _Stream()
            with self._lock:
                self._stream = stream
            failure: BaseException | None = None
            try:
                self._hold(stream)
            except Exception as exc:
                failure = exc
            finally:
                stream.out.put(None)
                with self._lock:
                    self._stream = None
                    self._lock.notify_all()
            if self._closing.is_set():
                break
            pause = self._stream_ended(failure, stream.accepted)
            if pause is None or self._closing.wait(pause):
                break
        with self._lock:
            self.stopped_because = self._outcome
            self._lock.notify_all()

    def _hold(self, stream: _Stream) -> None:
        stream.call = self.client.recovery.Attach(stream.requests(self._hello()), **self.client._stream_options(None))
        if self._closing.is_set():
            stream.call.cancel()
        for response in stream.call:
            if response.HasField("accepted"):
                stream.heartbeat_interval = self._accepted(response.accepted)
                with self._lock:
                    stream.accepted = True
                    self._lock.notify_all()
            elif (work := self._admit(response.command)) is not None:
                with contextlib.suppress(RuntimeError):  # closing: the pool takes no more work
                    self._pool.submit(self._work, *work)

    def _work(self, command_id: str, work: ctl.Work) -> None:
        try:
            ack = ctl.ack_of(work())
        except Exception as exc:
            ack = ctl.ack_of_error(exc)
        self._finish(command_id, ack)

    def _send(self, message: pb.AttachRequest) -> None:
        with self._lock:
            stream = self._stream
        if stream is not None:
            stream.out.put(message)
