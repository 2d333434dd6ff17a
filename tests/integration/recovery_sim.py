"""A simulated agent process on the control channel: a real Attach stream driven by a thread.

`behavior(command)` decides the answer to each command: an (outcome, detail) pair to ack, or None to stay
silent (a hung agent). Every command received is recorded; waits are bounded.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from outrider.v1 import recovery_pb2
from outrider.v1 import recovery_service_pb2 as rpb

SUCCESS = recovery_pb2.COMMAND_OUTCOME_SUCCESS
FAILURE = recovery_pb2.COMMAND_OUTCOME_FAILURE
REJECTED = recovery_pb2.COMMAND_OUTCOME_REJECTED
Behavior = Callable[[recovery_pb2.ControlCommand], "tuple[int, str] | None"]


def ack_all(command: recovery_pb2.ControlCommand) -> tuple[int, str]:
    return SUCCESS, "ok"


def silent(command: recovery_pb2.ControlCommand) -> None:
    return None


def ack_except(*types: int) -> Behavior:
    """Ack everything but these command types (left unanswered)."""

    def behave(command: recovery_pb2.ControlCommand) -> tuple[int, str] | None:
        return None if command.type in types else (SUCCESS, "ok")

    return behave


class SimAgent:
    def __init__(self, recovery_stub: Any, agent_id: str, behavior: Behavior = ack_all, hello: bool = True) -> None:
        self.agent_id = agent_id
        self.behavior = behavior
        self.commands: list[recovery_pb2.ControlCommand] = []
        self.accepted: recovery_pb2.AttachAccepted | None = None
        self.error: grpc.RpcError | None = None
        self.ended = threading.Event()
        self._cond = threading.Condition()
        self._out: queue.Queue[rpb.AttachRequest | None] = queue.Queue()
        if hello:
            self._out.put(rpb.AttachRequest(hello=recovery_pb2.AttachHello(agent_id=agent_id, instance_id="sim:1")))
        self.call = recovery_stub.Attach(self._requests())
        self.thread = threading.Thread(target=self._run, name=f"sim-{agent_id}", daemon=True)
        self.thread.start()

    def _requests(self) -> Iterator[rpb.AttachRequest]:
        while True:
            item = self._out.get()
            if item is None:
                return
            yield item

    def send(self, request: rpb.AttachRequest) -> None:
        self._out.put(request)

    def ack(self, command_id: str, outcome: int = SUCCESS, detail: str = "") -> None:
        self.send(rpb.AttachRequest(ack=recovery_pb2.CommandAck(command_id=command_id, outcome=outcome, detail=detail)))

    def heartbeat(self) -> None:
        self.send(rpb.AttachRequest(heartbeat=recovery_pb2.AttachHeartbeat()))

    def _run(self) -> None:
        try:
            for response in self.call:
                if response.HasField("accepted"):
                    with self._cond:
                        self.accepted = response.accepted
                        self._cond.notify_all()
                    continue
                command = response.command
                answer = self.behavior(command)
                with self._cond:
                    self.commands.append(command)
                    self._cond.notify_all()
                if answer is not None:
                    self.ack(command.command_id, *answer)
        except grpc.RpcError as err:
            self.error = err
        finally:
            self.ended.set()
            with self._cond:
                self._cond.notify_all()

    def wait_for(self, predicate: Callable[[SimAgent], bool], timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.agent_id}: condition not met within {timeout}s; got {self.kinds()}")
                self._cond.wait(left)

    def wait_accepted(self, timeout: float = 30.0) -> None:
        self.wait_for(lambda a: a.accepted is not None or a.ended.is_set(), timeout)
        assert self.accepted is not None, f"{self.agent_id} was not accepted: {self.error}"

    def wait_command(self, kind: int, count: int = 1, timeout: float = 30.0) -> recovery_pb2.ControlCommand:
        self.wait_for(lambda a: len(a.of(kind)) >= count, timeout)
        return self.of(kind)[count - 1]

    def of(self, kind: int) -> list[recovery_pb2.ControlCommand]:
        return [c for c in self.commands if c.type == kind]

    def kinds(self) -> list[str]:
        return [recovery_pb2.ControlCommandType.Name(c.type) for c in self.commands]

    def wait_ended(self, timeout: float = 30.0) -> grpc.RpcError | None:
        assert self.ended.wait(timeout), f"{self.agent_id}: stream still open"
        return self.error

    def close(self) -> None:
        self._out.put(None)
        self.call.cancel()
        self.thread.join(5)

    def __enter__(self) -> SimAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- request helpers shared by the recovery tests ---------------------------------------------------


def register(s: Any, agent_id: str, group: str = "") -> None:
    from outrider.v1 import common_pb2
    from outrider.v1 import supervisor_service_pb2 as spb

    s.stub.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id, group=group)))


def ping_check(agent_id: str, timeout: float = 5.0) -> rpb.AddHealthCheckRequest:
    from google.protobuf import duration_pb2

    d = duration_pb2.Duration()
    d.FromNanoseconds(int(timeout * 1e9))
    return rpb.AddHealthCheckRequest(
        agent_id=agent_id, check=recovery_pb2.HealthCheck(ping=recovery_pb2.PingCheck(timeout=d))
    )


def seconds(value: float) -> Any:
    from google.protobuf import duration_pb2

    d = duration_pb2.Duration()
    d.FromNanoseconds(int(value * 1e9))
    return d


def eventually(predicate: Callable[[], bool], timeout: float = 30.0, what: str = "condition") -> None:
    """Poll a condition the server reaches on its own (bounded)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout}s")
        time.sleep(0.01)
