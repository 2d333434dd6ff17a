"""Durable idempotency of mutating RPCs: the first answer to a (method, caller, request_id) is stored with a
digest of the request, for a retention (default 24 h). A retry, even after a restart or on another sidecar
on the database, gets that answer back and changes nothing; the same request id with a different request is
INVALID_ARGUMENT."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from server.domain.errors import InvalidArgument
from server.services.ports import Clock

DEFAULT_RETENTION = 24 * 3600.0
MAX_REQUEST_ID = 256


@dataclass(frozen=True, slots=True)
class Remembered:
    request_digest: str
    response: bytes


@dataclass(slots=True)
class Guard:
    """The idempotency record of the call being served, for a storage write to add to its own transaction:
    the change and the record that says it was made commit together, so a retry after a crash that lost
    the answer finds the record and changes nothing (before, the record followed in its own transaction).
    `render` (set by the servicer) turns what the storage write returns into the RPC's answer."""

    key: str
    method: str
    caller: str
    request_digest: str
    when: datetime
    render: Callable[[Any], bytes] | None = None
    written: bool = False  # the record went into the change's transaction
    answer: bytes | None = None  # what the record says (the call answers it, so a retry answers the same)

    def record(self, result: Any) -> Record:
        """The record to write with the change whose result is `result` (a group commit writes several)."""
        assert self.render is not None
        self.answer = self.render(result)
        return Record(self.key, self.method, self.caller, self.request_digest, self.answer, self.when)


@dataclass(frozen=True, slots=True)
class Record:
    """An idempotency record ready to be written in the transaction of its change."""

    key: str
    method: str
    caller: str
    request_digest: str
    response: bytes
    when: datetime


class AlreadyRemembered(Exception):
    """A storage write found the call's idempotency record already stored (the change was made by an
    earlier attempt, here or on another sidecar): its transaction is rolled back; answer the stored reply."""


_current: ContextVar[Guard | None] = ContextVar("outrider_idempotency_guard", default=None)


def current_guard() -> Guard | None:
    """The guard of the call being served, when it has a request id and its answer can be rendered."""
    g = _current.get()
    return g if g is not None and g.render is not None else None


def attempt_failed() -> None:
    """The storage write of the call being served failed and is run again: what its record said rolled back
    with it (a COMMIT that did go through is found by the next attempt's write: AlreadyRemembered)."""
    g = _current.get()
    if g is not None:
        g.written, g.answer = False, None


@contextmanager
def guarding(guard: Guard) -> Iterator[Guard]:
    token = _current.set(guard)
    try:
        yield guard
    finally:
        _current.reset(token)


def answer_with(render: Callable[[Any], bytes]) -> None:
    """Called by a servicer before its storage write: how the write's result becomes the stored answer."""
    g = _current.get()
    if g is not None:
        g.render = render


class IdempotencyRepository(Protocol):
    def get(self, key: str) -> Remembered | None: ...

    def put(self, key: str, method: str, caller: str, remembered: Remembered, when: datetime) -> bool:
        """False when the key is taken (another call stored first)."""
        ...

    def prune(self, older_than: datetime) -> int: ...


class MemoryIdempotency:
    """For a process without storage (and unit tests): the same contract, no durability."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[Remembered, datetime]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Remembered | None:
        found = self.rows.get(key)
        return found[0] if found else None

    def put(self, key: str, method: str, caller: str, remembered: Remembered, when: datetime) -> bool:
        with self._lock:
            if key in self.rows:
                return False
            self.rows[key] = (remembered, when)
            return True

    def prune(self, older_than: datetime) -> int:
        with self._lock:
            old = [k for k, (_, t) in self.rows.items() if t < older_than]
            for k in old:
                del self.rows[k]
            return len(old)


def _key(method: str, caller: str, request_id: str) -> str:
    return hashlib.sha256(f"{method}\n{caller}\n{request_id}".encode()).hexdigest()


class IdempotencyService:
    def __init__(self, repo: IdempotencyRepository, clock: Clock, retention: float = DEFAULT_RETENTION) -> None:
        self.repo, self.clock, self.retention = repo, clock, retention

    def recall(self, method: str, caller: str, request_id: str, request: bytes) -> bytes | None:
        """The stored answer of an earlier call with this request id (None: a first call)."""
        if len(request_id) > MAX_REQUEST_ID:
            raise InvalidArgument(f"request_id must be at most {MAX_REQUEST_ID} characters", field="request_id")
        found = self.repo.get(_key(method, caller, request_id))
        if found is None:
            return None
        if found.request_digest != hashlib.sha256(request).hexdigest():
            raise InvalidArgument(
                f"request_id {request_id!r} was used for a different request; use a new request id",
                reason="REQUEST_ID_REUSED",
                field="request_id",
            )
        return found.response

    def guard(self, method: str, caller: str, request_id: str, request: bytes) -> Guard:
        """The record a storage write may add to its own transaction (`guarding`, `answer_with`)."""
        return Guard(
            _key(method, caller, request_id),
            method,
            caller,
            hashlib.sha256(request).hexdigest(),
            self.clock.utcnow(),
        )

    def remember(self, method: str, caller: str, request_id: str, request: bytes, response: bytes) -> bytes:
        """Store the first answer; returns the answer that stands (another call's, when it stored first)."""
        key = _key(method, caller, request_id)
        remembered = Remembered(hashlib.sha256(request).hexdigest(), response)
        if self.repo.put(key, method, caller, remembered, self.clock.utcnow()):
            return response
        earlier = self.repo.get(key)
        return earlier.response if earlier is not None else response

    def prune(self) -> int:
        return self.repo.prune(self.clock.utcnow() - timedelta(seconds=self.retention))
