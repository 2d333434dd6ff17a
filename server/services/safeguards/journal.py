"""Write-through of in-memory state, committed in groups: memory is the truth, storage follows before
each answer.

A service changes its objects under its own lock and marks them dirty (`mark`, which returns a version).
Before it answers, it calls `commit(version)`: that returns once a snapshot at least that new is in
storage. Concurrent callers share one transaction (a group commit): whoever holds the write lock
snapshots every object dirty at that moment, so a hundred concurrent changes cost a few commits, and
counts stay exact because they are only ever changed in memory, under the lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from server.domain.errors import StorageUnavailable, Unavailable

log = logging.getLogger(__name__)

# (kind, key, snapshot): the snapshot is None when the object no longer exists (delete it).
Change = tuple[str, str, Any]


class Journal:
    def __init__(
        self,
        lock: threading.Lock | threading.RLock,
        snapshot: Callable[[str, str], Any],
        apply: Callable[[Sequence[Change]], None],
        name: str,
    ) -> None:
        self._lock = lock  # the service's state lock
        self._snapshot = snapshot  # called under the state lock: a copy of the object, or None
        self._apply = apply  # one transaction
        self._name = name
        self._write_lock = threading.Lock()
        self._dirty: dict[tuple[str, str], None] = {}
        self._version = 0
        self._durable = 0

    def mark(self, kind: str, key: str) -> int:
        """Record that an object changed; the caller holds the state lock."""
        self._dirty[(kind, key)] = None
        self._version += 1
        return self._version

    @property
    def version(self) -> int:
        return self._version

    def is_durable(self, version: int) -> bool:
        return version <= self._durable

    def commit(self, version: int) -> None:
        """Return once every change up to `version` is in storage. Call without the state lock."""
        if version <= self._durable:
            return
        with self._write_lock:
            if version <= self._durable:
                return  # another caller's group commit covered it
            with self._lock:
                dirty = list(self._dirty)
                self._dirty = {}
                upto = self._version
                changes = [(kind, key, self._snapshot(kind, key)) for kind, key in dirty]
            try:
                self._apply(changes)
            except Exception as exc:
                with self._lock:
                    for item in dirty:
                        self._dirty.setdefault(item, None)
                log.exception("%s: storage write failed", self._name)
                if isinstance(exc, StorageUnavailable):
                    raise
                raise Unavailable(f"{self._name}: storage is not available; the change is not durable") from exc
            self._durable = upto
