"""The fleet's shared rate windows: what a `rate_limit` guardrail with `scope: fleet` takes its slices from."""

from __future__ import annotations

import asyncio
import math

from server.services.ports import Clock, RateWindowRepository


class RateWindows:
    """Implements the domain's SliceSource on a repository: window indexes from the wall clock (every
    sidecar must agree on it: run NTP), each slice one short transaction on a worker thread."""

    def __init__(self, repo: RateWindowRepository, clock: Clock) -> None:
        self.repo = repo
        self.clock = clock

    def window_index(self, window: float) -> int:
        return math.floor(self.clock.utcnow().timestamp() / window)

    async def take_slice(self, key: str, agent_id: str, index: int, want: int, cap: int) -> tuple[int, int]:
        return await asyncio.to_thread(self.repo.take, key, agent_id, index, want, cap)
