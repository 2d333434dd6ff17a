"""What the sync and asyncio `Agent` share (`BaseAgent`): commands as plain values, the callbacks' answers
as acks, duplicate tracking, and the attach/re-attach loop's decisions (how a stream's end is handled, the
backoff before the next). No I/O here: the flavours hold the stream and run the callbacks."""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from ._common import CLIENT_NAME, from_value, seconds
from .budgets import Signal, signal_from
from .enums import CommandType, KillReason, StopReason, from_proto
from .errors import OutriderError, from_rpc_error
from .retry import backoff_delay
from .v1 import recovery_pb2 as rpb
from .v1 import recovery_service_pb2 as pb
from .v1 import safeguard_pb2 as spb

log = logging.getLogger("outrider")

SUCCESS = rpb.COMMAND_OUTCOME_SUCCESS
FAILURE = rpb.COMMAND_OUTCOME_FAILURE
REJECTED = rpb.COMMAND_OUTCOME_REJECTED
_DONE_KEPT = 1000  # acks remembered, to answer a re-sent command again without running it twice


HEARTBEAT = pb.AttachRequest(heartbeat=rpb.AttachHeartbeat())


def instance_id() -> str:
    """This process, for the sidecar's logs and console: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def hello(agent_id: str, instance: str) -> pb.AttachRequest:
    return pb.AttachRequest(hello=rpb.AttachHello(agent_id=agent_id, instance_id=instance, client=CLIENT_NAME))


class CommandRejected(Exception):
    """Raise it from a callback to refuse the command: it is acked REJECTED with the message."""


@dataclass(frozen=True)
class KillOrder:
    kill_id: str
    reason: KillReason  # BEHAVIORAL_DRIFT, RATE_LIMIT, RING_BREACH, MANUAL, QUARANTINE_TIMEOUT, SESSION_TIMEOUT
    details: str


@dataclass(frozen=True)
class Handoff:
    """A killed agent's saga step offered to this agent. Accept it (return True) only if it will run it."""

    kill_id: str
    session_id: str
    from_agent: str
    saga_id: str
    step_id: str
    action: str
    payload: dict[str, Any]
    compensation: tuple[spb.CompensatingAction, ...]


@dataclass(frozen=True)
class Command:
    """A command from the sidecar. `kill`, `handoff` and `signal` are set for their types only."""

    command_id: str
    type: CommandType  # PING, RESTART, RESTART_CLEAN, KILL, HANDOFF, SIGWARN, SIGSTOP, SIGRESUME (or UNKNOWN)
    reason: str
    kill: KillOrder | None = None
    handoff: Handoff | None = None
    signal: Signal | None = None


def command_from(c: rpb.ControlCommand) -> Command:
    name = from_proto(CommandType, rpb.ControlCommandType, c.type, CommandType.UNKNOWN)
    payload = c.WhichOneof("payload")
    kill = handoff = signal = None
    if payload == "kill":
        reason = from_proto(KillReason, rpb.KillReason, c.kill.reason)
        kill = KillOrder(c.kill.kill_id, reason, c.kill.details)
    elif payload == "handoff":
        h, step = c.handoff, c.handoff.step
        handoff = Handoff(
            h.kill_id,
            h.session_id,
            h.from_agent,
            step.saga_id,
            step.step_id,
            step.action,
            {k: from_value(v) for k, v in step.payload.fields.items()},
            tuple(step.compensation),
        )
    elif payload == "budget_signal":
        signal = signal_from(c.budget_signal)
    return Command(c.command_id, name, c.reason, kill, handoff, signal)


@dataclass(frozen=True)
class Callbacks:
    on_restart: Callable[[Command], Any] | None = None
    on_restart_clean: Callable[[Command], Any] | None = None
    on_kill: Callable[[Command], Any] | None = None
    on_handoff: Callable[[Handoff], Any] | None = None
    on_signal: Callable[[Signal], Any] | None = None

    def work_for(self, command: Command) -> Work | tuple[int, str]:
        """The callback to run for `command` (with its argument), or the ack to send at once."""
        t, c = command.type, CommandType  # == rather than `is`: a Command made by hand may hold a plain string
        if t == c.PING:
            return SUCCESS, "pong"
        if t == c.KILL and self.on_kill is None:
            return SUCCESS, "terminating"  # without a callback, the agent just stops holding the channel
        callback: Callable[[Any], Any] | None
        argument: Any = command
        if t in (c.RESTART, c.RESTART_CLEAN, c.KILL):
            callback = {c.RESTART: self.on_restart, c.RESTART_CLEAN: self.on_restart_clean, c.KILL: self.on_kill}[t]
        elif t == c.HANDOFF:
            callback, argument = self.on_handoff, command.handoff
        elif t in (c.SIGWARN, c.SIGSTOP, c.SIGRESUME):
            callback, argument = self.on_signal, command.signal
        else:
            return REJECTED, f"unknown command type {t}"
        if callback is None:
            return REJECTED, f"{t} is not handled by this agent"
        return Work(callback, argument)


@dataclass(frozen=True)
class Work:
    callback: Callable[[Any], Any]
    argument: Any

    def __call__(self) -> Any:
        return self.callback(self.argument)


def ack_of(returned: Any) -> tuple[int, str]:
    """A callback's return value as an ack: False is FAILURE, anything else SUCCESS."""
    return (FAILURE, "callback returned False") if returned is False else (SUCCESS, "")


def ack_of_error(exc: BaseException) -> tuple[int, str]:
    if isinstance(exc, CommandRejected):
        return REJECTED, str(exc)
    return FAILURE, f"{type(exc).__name__}: {exc}"


def ack_request(command_id: str, ack: tuple[int, str]) -> pb.AttachRequest:
    return pb.AttachRequest(ack=rpb.CommandAck(command_id=command_id, outcome=ack[0], detail=ack[1][:1024]))  # type: ignore[arg-type]


class Tracker:
    """Commands running and answered, so a command re-sent after a reconnect (same id) runs once and is
    acked again. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[str] = set()
        self._done: OrderedDict[str, tuple[int, str]] = OrderedDict()

    def admit(self, command_id: str) -> tuple[int, str] | bool:
        """The remembered ack of a command answered before; True when it is new (now running); False when
        it is running (its ack goes out when done)."""
        with self._lock:
            if command_id in self._done:
                return self._done[command_id]
            if command_id in self._running:
                return False
            self._running.add(command_id)
            return True

    def finish(self, command_id: str, ack: tuple[int, str]) -> None:
        with self._lock:
            self._running.discard(command_id)
            self._done[command_id] = ack
            while len(self._done) > _DONE_KEPT:
                self._done.popitem(last=False)


# How a stream's end is handled: reconnect (with backoff), or stop for good.
RETRY = "retry"
KILLED, REPLACED, FATAL = StopReason.KILLED, StopReason.REPLACED, StopReason.FATAL
_FATAL_CODES = {"INVALID_ARGUMENT", "NOT_FOUND", "PERMISSION_DENIED", "UNAUTHENTICATED", "UNIMPLEMENTED"}


def end_of(err: OutriderError | None) -> StopReason | str:
    """AGENT_KILLED: the agent was killed (and unregistered). STREAM_REPLACED: another process attached as
    this agent; this one steps back rather than take it back. Not registered, bad credential: fatal.
    Anything else (a normal end, the sidecar restarting or unreachable): reconnect."""
    if err is None:
        return RETRY
    if err.reason == "AGENT_KILLED":
        return KILLED
    if err.reason == "STREAM_REPLACED":
        return REPLACED
    if err.code is not None and err.code.name in _FATAL_CODES:
        return FATAL
    return RETRY


class Backoff:
    """Reconnect delays: `retry`'s exponential backoff with jitter, restarting after each accepted stream."""

    def __init__(self, base: float, max_delay: float, rng: random.Random | None) -> None:
        self.base, self.max_delay, self.rng = base, max_delay, rng
        self.failures = 0

    def next(self, was_accepted: bool) -> float:
        self.failures = 1 if was_accepted else self.failures + 1
        return backoff_delay(self.failures, self.base, self.max_delay, self.rng)


class BaseAgent:
    """What `Agent` and `AsyncAgent` share: their settings and counters, what to do with each message of
    the stream, and the re-attach loop's decisions. Each flavour holds the stream and runs the callbacks
    its own way (threads or tasks) and drives the loop:

        while not closing:
            failure = hold one stream (None when the sidecar ended it)
            pause = self._stream_ended(failure, accepted)
            if pause is None: stop (self._outcome says why)
            wait `pause` seconds (interrupted by close())
    """

    def __init__(
        self,
        agent_id: str,
        callbacks: Callbacks,
        instance: str | None,
        reconnect_base: float,
        reconnect_max: float,
        rng: random.Random | None,
    ) -> None:
        self.agent_id = agent_id
        self.callbacks = callbacks
        self.instance_id = instance or instance_id()
        self.backoff = Backoff(reconnect_base, reconnect_max, rng)
        self.connects = 0  # streams the sidecar accepted
        self.error: OutriderError | None = None  # why the last stream ended, when it broke
        self.stopped_because = StopReason.NONE  # CLOSED, KILLED, REPLACED or FATAL once stopped
        self._outcome = StopReason.CLOSED  # why the loop stops: set by _stream_ended
        self._tracker = Tracker()

    @property
    def killed(self) -> bool:
        return self.stopped_because == KILLED

    def _hello(self) -> pb.AttachRequest:
        return hello(self.agent_id, self.instance_id)

    def _send(self, message: pb.AttachRequest) -> None:
        """Put `message` on the current stream, if there is one (the flavour's queue)."""
        raise NotImplementedError

    def _accepted(self, accepted: rpb.AttachAccepted) -> float | None:
        """The sidecar accepted the stream: count it; the heartbeat interval it asks for (None: none)."""
        self.connects += 1
        return seconds(accepted, "heartbeat_interval")

    def _admit(self, raw: rpb.ControlCommand) -> tuple[str, Work] | None:
        """A command from the stream: the callback to run (with the command id), or None when it was
        answered here (PING, no callback, a re-sent command acked again) or is still running."""
        admitted = self._tracker.admit(raw.command_id)
        if admitted is False:
            return None  # still running: its ack goes out when it is done
        if admitted is not True:
            self._send(ack_request(raw.command_id, admitted))  # a re-sent command: the same ack again
            return None
        command = command_from(raw)
        work = self.callbacks.work_for(command)
        if isinstance(work, tuple):
            self._finish(command.command_id, work)
            return None
        return command.command_id, work

    def _finish(self, command_id: str, ack: tuple[int, str]) -> None:
        """Remember the ack and send it on the current stream (after a reconnect, the sidecar re-sends the
        command and gets the remembered ack)."""
        self._tracker.finish(command_id, ack)
        self._send(ack_request(command_id, ack))

    def _stream_ended(self, failure: BaseException | None, accepted: bool) -> float | None:
        """A stream ended (`failure` None: the sidecar ended it). Returns the pause before attaching again,
        or None when the helper stops for good (`_outcome` then says why)."""
        err: OutriderError | None = None
        if isinstance(failure, grpc.RpcError):
            err = from_rpc_error(failure)
        elif failure is not None:  # a bug of ours must not end the channel for good
            log.error("control channel of %s failed", self.agent_id, exc_info=failure)
            err = OutriderError(f"{type(failure).__name__}: {failure}")
        self.error = err
        end = end_of(err)
        log.info("control channel of %s ended (%s): %s", self.agent_id, end, err.message if err else "by the sidecar")
        if end != RETRY:
            self._outcome = StopReason(end)
            return None
        return self.backoff.next(accepted)
