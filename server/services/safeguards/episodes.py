"""Episodic memory as a service: the bounded log in memory (queries never touch storage), each record
and eviction written through before the answer."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from server.domain.agents import validate_id
from server.domain.safeguards.episodes import Episode, EpisodeLog, limit_of, validate_text
from server.services.idempotency import Record, current_guard
from server.services.ports import Clock
from server.services.safeguards.journal import Change, Journal

log = logging.getLogger(__name__)

_REQUEST_LIMIT = 10_000


class EpisodeRepository(Protocol):
    def load_episodes(self, limit: int) -> list[Episode]:
        """The newest `limit` episodes (by episode_id); older ones are deleted."""
        ...

    def save_episodes(self, changes: Sequence[Change]) -> None:
        """("episode", str(episode_id), Episode to insert, or None to delete), and ("remembered", key,
        idempotency Record or None) of the RecordEpisode calls whose episodes they are, in one transaction."""
        ...


class EpisodeService:
    def __init__(self, repo: EpisodeRepository, clock: Clock, max_episodes: int) -> None:
        self.repo = repo
        self.clock = clock
        self._lock = threading.Lock()
        self._log = EpisodeLog(max_episodes)
        self._live: dict[int, Episode] = {}
        self._requests: OrderedDict[tuple[str, str], Episode] = OrderedDict()
        # Idempotency records of recorded episodes, written in the episodes' group commit (until durable).
        self._remembered: dict[str, Record] = {}
        self._journal = Journal(self._lock, self._snapshot, repo.save_episodes, "episodic memory")

    @property
    def max_episodes(self) -> int:
        return self._log.max_episodes

    def load(self) -> None:
        episodes = self.repo.load_episodes(self._log.max_episodes)
        with self._lock:
            self._log = EpisodeLog(self._log.max_episodes, episodes)
            self._live = {e.episode_id: e for e in episodes}
        log.info("episodic memory loaded", extra={"episodes": len(episodes)})

    def _snapshot(self, kind: str, key: str) -> Episode | Record | None:
        if kind == "remembered":
            return self._remembered.get(key)
        return self._live.get(int(key))

    def record(
        self,
        task_id: str,
        agent_id: str,
        task_type: str,
        outcome: str,
        metadata: Mapping[str, Any],
        episode_time: datetime | None = None,
        request_id: str = "",
    ) -> tuple[Episode, int]:
        """Append an episode (stamped now when it has no time); returns it and how many were dropped."""
        validate_id(agent_id, "episode.agent_id")
        for value, name in ((task_id, "task_id"), (task_type, "task_type"), (outcome, "outcome")):
            validate_text(value, f"episode.{name}")
        with self._lock:
            if request_id and (agent_id, request_id) in self._requests:
                return self._requests[(agent_id, request_id)], 0
            episode = Episode(
                self._log.next_id(),
                task_id,
                agent_id,
                task_type,
                outcome,
                dict(metadata),
                episode_time or self.clock.utcnow(),
            )
            dropped = self._log.record(episode)
            self._live[episode.episode_id] = episode
            version = self._journal.mark("episode", str(episode.episode_id))
            for old in dropped:
                self._live.pop(old.episode_id, None)
                version = self._journal.mark("episode", str(old.episode_id))
            if request_id:
                self._requests[(agent_id, request_id)] = episode
                while len(self._requests) > _REQUEST_LIMIT:
                    self._requests.popitem(last=False)
            guard = current_guard()
            if guard is not None and not guard.method.endswith("/RecordEpisode"):
                guard = None  # another call's record is not this write's to take
            if guard is not None:  # the RPC's record goes into the transaction that writes the episode
                self._remembered[guard.key] = guard.record((episode, len(dropped)))
                version = self._journal.mark("remembered", guard.key)
        self._journal.commit(version)
        if guard is not None:  # (the interceptor's own write after the answer then finds it: same answer)
            with self._lock:
                self._remembered.pop(guard.key, None)
        return episode, len(dropped)

    def similar(self, task_type: str, limit: int, only_agent: str | None = None) -> list[Episode]:
        """Newest first: episodes whose task type contains the text, ignoring case."""
        n = limit_of(limit)
        with self._lock:
            return self._log.similar(task_type, n, only_agent)

    def by_agent(self, agent_id: str, limit: int) -> list[Episode]:
        validate_id(agent_id, "agent_id")
        n = limit_of(limit)
        with self._lock:
            return self._log.by_agent(agent_id, n)

    def by_outcome(self, outcome: str, limit: int, only_agent: str | None = None) -> list[Episode]:
        """Newest first: episodes whose outcome equals the text, ignoring case."""
        n = limit_of(limit)
        with self._lock:
            return self._log.by_outcome(outcome, n, only_agent)

    def count(self) -> int:
        with self._lock:
            return len(self._log)
