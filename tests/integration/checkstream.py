"""A CheckActions stream driven from a test: send requests when the test says, read answers on a thread."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

import grpc

from outrider.v1 import supervisor_service_pb2 as pb

_CLOSE = object()


class CheckStream:
    def __init__(self, stub: Any, timeout: float = 30.0) -> None:
        self._out: queue.Queue[Any] = queue.Queue()
        self.answers: dict[int, pb.CheckActionsResponse] = {}
        self.order: list[int] = []
        self.error: grpc.RpcError | None = None
        self.sent = 0  # requests the channel took from the iterator
        self._cond = threading.Condition()
        self._done = False
        self.call = stub.CheckActions(self._requests(), timeout=timeout)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _requests(self) -> Iterator[pb.CheckActionsRequest]:
        while (item := self._out.get()) is not _CLOSE:
            self.sent += 1
            yield item

    def _read(self) -> None:
        try:
            for answer in self.call:
                with self._cond:
                    self.answers[answer.id] = answer
                    self.order.append(answer.id)
                    self._cond.notify_all()
        except grpc.RpcError as exc:
            self.error = exc
        with self._cond:
            self._done = True
            self._cond.notify_all()

    def send(self, request_id: int, check: pb.CheckActionRequest, traceparent: str = "") -> None:
        self._out.put(pb.CheckActionsRequest(id=request_id, check=check, traceparent=traceparent))

    def close(self) -> None:
        """Half-close: the stream ends once every request is answered."""
        self._out.put(_CLOSE)

    def wait(self, *ids: int, timeout: float = 10.0) -> list[pb.CheckActionsResponse]:
        with self._cond:
            ok = self._cond.wait_for(lambda: all(i in self.answers for i in ids) or self._done, timeout)
            missing = [i for i in ids if i not in self.answers]
            assert ok and not missing, f"no answer for {missing} (stream error: {self.error})"
            return [self.answers[i] for i in ids]

    def ended(self, timeout: float = 10.0) -> grpc.RpcError | None:
        """Wait for the end of the stream; its error, if it ended with one."""
        with self._cond:
            assert self._cond.wait_for(lambda: self._done, timeout), "the stream did not end"
        return self.error

    def over(self, within: float) -> bool:
        """Whether the stream ended, waiting at most `within` seconds for it."""
        with self._cond:
            return self._cond.wait_for(lambda: self._done, within)

    def cancel(self) -> None:
        self.call.cancel()
        self._out.put(_CLOSE)
        self._thread.join(5)
