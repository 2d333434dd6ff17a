"""Episodic memory (the SupervisorAgent library's "Episodic memory"): a bounded log of task outcomes and its queries.

When the log is full, recording drops the oldest episode. Queries return the most recently recorded
episodes first, up to a limit: `similar` (the task type contains the text, ignoring case), `by_agent`,
`by_outcome` (the outcome equals the text, ignoring case).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.domain.errors import InvalidArgument

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_TEXT = 256


@dataclass(frozen=True, slots=True)
class Episode:
    episode_id: int  # assigned on record; increases with every recorded episode
    task_id: str
    agent_id: str
    task_type: str
    outcome: str
    metadata: Mapping[str, Any]
    episode_time: datetime


def validate_text(value: str, field_name: str) -> str:
    if len(value) > MAX_TEXT:
        raise InvalidArgument(f"{field_name} must be at most {MAX_TEXT} characters", field=field_name)
    return value


def limit_of(requested: int) -> int:
    """0 means the default; above the maximum is capped; negative is refused."""
    if requested < 0:
        raise InvalidArgument("limit must not be negative", field="limit")
    return min(requested or DEFAULT_LIMIT, MAX_LIMIT)


class EpisodeLog:
    """The bounded log, oldest first. Not thread-safe: the service holds a lock around it."""

    def __init__(self, max_episodes: int, episodes: Iterable[Episode] = ()) -> None:
        if max_episodes < 1:
            raise InvalidArgument("max_episodes must be at least 1", field="max_episodes")
        self.max_episodes = max_episodes
        self._log: deque[Episode] = deque()
        self.last_id = 0
        for e in sorted(episodes, key=lambda e: e.episode_id):
            self._log.append(e)
            self.last_id = max(self.last_id, e.episode_id)
        while len(self._log) > max_episodes:
            self._log.popleft()

    def __len__(self) -> int:
        return len(self._log)

    def next_id(self) -> int:
        self.last_id += 1
        return self.last_id

    def record(self, episode: Episode) -> list[Episode]:
        """Append; returns the episodes dropped to make room (oldest first)."""
        self._log.append(episode)
        self.last_id = max(self.last_id, episode.episode_id)
        dropped = []
        while len(self._log) > self.max_episodes:
            dropped.append(self._log.popleft())
        return dropped

    def _newest(self, match: Callable[[Episode], bool], limit: int) -> list[Episode]:
        out: list[Episode] = []
        for e in reversed(self._log):
            if len(out) >= limit:
                break
            if match(e):
                out.append(e)
        return out

    def similar(self, task_type: str, limit: int, only_agent: str | None = None) -> list[Episode]:
        needle = task_type.casefold()
        return self._newest(lambda e: needle in e.task_type.casefold() and only_agent in (None, e.agent_id), limit)

    def by_agent(self, agent_id: str, limit: int) -> list[Episode]:
        return self._newest(lambda e: e.agent_id == agent_id, limit)

    def by_outcome(self, outcome: str, limit: int, only_agent: str | None = None) -> list[Episode]:
        wanted = outcome.casefold()
        return self._newest(lambda e: e.outcome.casefold() == wanted and only_agent in (None, e.agent_id), limit)
