"""The caches' freshness gate: nothing is answered from a cache that has not been confirmed against the
database's change counters within its staleness bound.

The listener confirms the caches every `fleet.resync_interval` (server/storage/fleet/changes.py). A
sidecar that was paused (SIGSTOP, a VM freeze, a long GC) or whose listener starved resumes with caches
as old as the pause: a breaker forced open meanwhile would still grant permits from the CLOSED cache.
So every RPC, and every request of a CheckActions stream, looks first (one clock read, no I/O): when the
last confirmation is older than `bound` (twice `fleet.resync_interval`: 1 s by default) it waits for a
poll that starts after it (at most `WAIT_SECONDS`), which reloads every cache whose topic moved. While the
database is unreachable the listener is disconnected and the caches are all there is: answers come from
them, as documented for an outage.
"""

from __future__ import annotations

import asyncio
import logging

from server.services.fleet.ports import ChangeFeed
from server.services.fleet.settings import FleetSettings

log = logging.getLogger(__name__)

# At most this long for the confirming poll. A connected listener takes milliseconds, but a sidecar resumed
# from a pause has a backlog (every cache reloads after it finds it was declared gone, the calls queued
# meanwhile, heartbeats): 2 s was seen to run out on a busy host, and the queued calls were then answered
# from the stale caches. Answering late is better than answering stale.
WAIT_SECONDS = 10.0


class CacheFreshness:
    def __init__(self, changes: ChangeFeed, settings: FleetSettings) -> None:
        self.changes = changes
        self.bound = 2 * settings.resync_interval
        self.waits = 0  # how many confirmations answers waited for (a paused or starved sidecar)
        self._confirming: asyncio.Task[bool] | None = None  # shared by every answer waiting meanwhile

    def stale(self) -> bool:
        return self.changes.stale(self.bound)

    async def ensure(self) -> None:
        """Before answering from a cache: returns at once while the caches are fresh."""
        if not self.changes.stale(self.bound):
            return
        task = self._confirming
        if task is None or task.done():
            self.waits += 1
            task = self._confirming = asyncio.get_running_loop().create_task(
                asyncio.to_thread(self.changes.ensure_fresh, self.bound, WAIT_SECONDS)
            )
        if not await asyncio.shield(task):
            log.warning("caches could not be confirmed against the database; answering from them")
