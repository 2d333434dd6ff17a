"""Agent registry: stored durably, mirrored in memory so the hot path never reads storage."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace

from server.domain.agents import Agent, new_agent, validate_id
from server.domain.errors import NotFound
from server.services.ports import AgentRepository, Page


class AgentService:
    def __init__(self, repo: AgentRepository) -> None:
        self.repo = repo
        self._lock = threading.Lock()
        self._groups: dict[str, str] = {}
        self._owners: dict[str, str] = {}

    def load(self) -> None:
        with self._lock:
            agents = self.repo.all()
            self._groups = {a.agent_id: a.group for a in agents}
            self._owners = {a.agent_id: a.labels.get("owner", "") for a in agents}

    def group_of(self, agent_id: str) -> str | None:
        """In-memory lookup for the guardrail chain (no I/O on the hot path)."""
        return self._groups.get(agent_id)

    def owner_of(self, agent_id: str) -> str:
        """The agent's `owner` label ("" when none): reviewers may not approve their own agents."""
        return self._owners.get(agent_id, "")

    def register(
        self, agent_id: str, group: str, capabilities: Sequence[str], labels: Mapping[str, str]
    ) -> tuple[Agent, bool]:
        agent = new_agent(agent_id, group, capabilities, labels)
        with self._lock:
            stored, created = self.repo.upsert(agent)
            self._groups[stored.agent_id] = stored.group
            self._owners[stored.agent_id] = stored.labels.get("owner", "")
        return stored, created

    def deregister(self, agent_id: str) -> None:
        validate_id(agent_id, "agent_id")
        with self._lock:
            if not self.repo.delete(agent_id):
                raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
            self._groups.pop(agent_id, None)
            self._owners.pop(agent_id, None)

    def move(self, agent_id: str, group: str) -> Agent:
        """Put a registered agent into another group (recovery: EJECT out of its group, REPLACE into one)."""
        with self._lock:
            agent = self.repo.get(agent_id)
            if agent is None:
                raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
            stored, _ = self.repo.upsert(replace(agent, group=group))
            self._groups[agent_id] = stored.group
        return stored

    def get(self, agent_id: str) -> Agent:
        validate_id(agent_id, "agent_id")
        agent = self.repo.get(agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
        return agent

    def list(self, group: str, page_size: int, page_token: str) -> Page[Agent]:
        return self.repo.list(group, page_size, page_token)

    def count(self) -> int:
        return len(self._groups)
