"""In-memory storage for the safeguard services' unit tests: keeps the latest snapshot of each object, as
the SQL repository does, so a "restart" is a new service loading from the same fake."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from server.domain.safeguards.breakers import Breaker, BreakerConfig
from server.domain.safeguards.episodes import Episode
from server.domain.safeguards.leases import Lease, LeaseState
from server.services.ports import Page


class MemoryAudit:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, str, dict[str, Any]]] = []

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        self.records.append((actor, action, subject, details))


class MemorySafeguards:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], Any] = {}
        self.commits = 0
        self.fail = False

    def _save(self, changes: Sequence[tuple[str, str, Any]]) -> None:
        if self.fail:
            raise OSError("disk on fire")
        self.commits += 1
        for kind, key, obj in changes:
            if obj is None:
                self.rows.pop((kind, key), None)
            else:
                self.rows[(kind, key)] = copy.deepcopy(obj)

    def _all(self, kind: str) -> list[Any]:
        return [copy.deepcopy(v) for (k, _), v in self.rows.items() if k == kind]

    # breakers
    def load_breakers(self) -> list[Breaker]:
        out = self._all("breaker")
        for b in out:
            b.config, b.probes, b.in_flight, b.opened_at = BreakerConfig(), 0, 0, None
        return out

    save_breakers = _save

    # episodes
    def load_episodes(self, limit: int) -> list[Episode]:
        return sorted(self._all("episode"), key=lambda e: e.episode_id)[-limit:]

    save_episodes = _save

    # leases
    def load_leases(self) -> tuple[list[Lease], dict[str, int]]:
        active = [le for le in self._all("lease") if le.state is LeaseState.ACTIVE]
        keys = {k: v for (kind, k), v in self.rows.items() if kind == "key"}
        return active, keys

    save_leases = _save

    def get_lease(self, lease_id: str) -> Lease | None:
        found = self.rows.get(("lease", lease_id))
        return copy.deepcopy(found) if found else None

    def list_leases(
        self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str
    ) -> Page[Lease]:
        items = [
            le
            for le in self._all("lease")
            if (not scope or le.key.scope == scope)
            and (not key_id or le.key.id == key_id)
            and (not agent_id or le.agent_id == agent_id)
            and (not state or le.state == state)
        ]
        return Page(sorted(items, key=lambda le: le.acquire_time, reverse=True), "")

    def prune_leases(self, ended_before: datetime) -> int:
        return 0
