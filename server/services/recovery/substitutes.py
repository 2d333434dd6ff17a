"""Substitute lists: per session (who takes a killed agent's saga steps) and per group (whom REPLACE
promotes). First registered, first tried; durable; mirrored in memory so a kill reads no storage."""

from __future__ import annotations

import threading
from dataclasses import replace

from server.domain.agents import DEFAULT_GROUP, validate_id
from server.domain.errors import AlreadyExists, NotFound
from server.domain.recovery.kill import Substitute, SubstituteScope
from server.services import pages
from server.services.fleet.ports import SUBSTITUTES_TOPIC, ChangeFeed
from server.services.ports import AuditSink, Clock, Page
from server.services.recovery.agents import AgentService
from server.services.recovery.ports import KillRepository


def scope_key(scope: SubstituteScope, scope_id: str) -> tuple[SubstituteScope, str]:
    """A validated list key; an empty group names the default group."""
    if scope is SubstituteScope.GROUP:
        scope_id = scope_id or DEFAULT_GROUP
        validate_id(scope_id, "group")
    else:
        validate_id(scope_id, "session_id")
    return scope, scope_id


class SubstituteRegistry:
    def __init__(
        self,
        repo: KillRepository,
        agents: AgentService,
        clock: Clock,
        audit: AuditSink,
        changes: ChangeFeed | None = None,
    ) -> None:
        self.repo = repo
        self.agents = agents
        self.clock = clock
        self.audit = audit
        self._lock = threading.Lock()
        self._lists: dict[tuple[SubstituteScope, str], list[Substitute]] = {}
        if changes is not None:  # registered or removed on another sidecar: the stored lists replace ours
            changes.subscribe(SUBSTITUTES_TOPIC, lambda _agent_id: self.load(), self.load)

    def load(self) -> None:
        lists: dict[tuple[SubstituteScope, str], list[Substitute]] = {}
        for sub in self.repo.load_substitutes():
            lists.setdefault((sub.scope, sub.scope_id), []).append(sub)
        with self._lock:
            self._lists = lists

    def register(
        self, scope: SubstituteScope, scope_id: str, agent_id: str, request_id: str = "", actor: str = "system"
    ) -> Substitute:
        key = scope_key(scope, scope_id)
        validate_id(agent_id, "agent_id")
        if not self.agents.known(agent_id):
            raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
        with self._lock:
            current = self._lists.get(key, [])
            sub = Substitute(scope, key[1], agent_id, len(current), self.clock.utcnow(), request_id)
            added = not any(s.agent_id == agent_id for s in current) and self.repo.add_substitute(sub)
            if added:
                self._lists[key] = [*current, sub]
        if not added:
            if not any(s.agent_id == agent_id for s in current):
                self.load()  # registered on another sidecar before its notification reached this one
            for i, stored in enumerate(self._lists.get(key, [])):
                if stored.agent_id == agent_id:
                    if request_id and stored.request_id == request_id:  # a retry, on whichever sidecar
                        return replace(stored, position=i)
                    break
            raise AlreadyExists(
                f"agent {agent_id!r} is already a substitute of {scope.value} {key[1]!r}",
                reason="SUBSTITUTE_EXISTS",
                field="agent_id",
            )
        self.audit.record(
            actor,
            "recovery.substitute.register",
            agent_id,
            {"scope": scope.value, "id": key[1], "position": sub.position},
        )
        return sub

    def deregister(self, scope: SubstituteScope, scope_id: str, agent_id: str, actor: str = "system") -> None:
        key = scope_key(scope, scope_id)
        validate_id(agent_id, "agent_id")
        if not self.discard(*key, agent_id):
            raise NotFound(f"agent {agent_id!r} is not a substitute of {scope.value} {key[1]!r}", field="agent_id")
        self.audit.record(actor, "recovery.substitute.deregister", agent_id, {"scope": scope.value, "id": key[1]})

    def discard(self, scope: SubstituteScope, scope_id: str, agent_id: str) -> bool:
        with self._lock:
            current = self._lists.get((scope, scope_id), [])
            if not any(s.agent_id == agent_id for s in current):
                return False
            self.repo.remove_substitute(scope, scope_id, agent_id)
            self._lists[(scope, scope_id)] = [s for s in current if s.agent_id != agent_id]
            return True

    def remove_everywhere(self, agent_id: str) -> int:
        """Off every list (a killed agent)."""
        with self._lock:
            removed = self.repo.remove_agent_substitutes(agent_id)
            for key, current in list(self._lists.items()):
                self._lists[key] = [s for s in current if s.agent_id != agent_id]
        return removed

    def ordered(self, scope: SubstituteScope, scope_id: str) -> list[str]:
        """The list's agent ids in trial order (in memory)."""
        if scope is SubstituteScope.GROUP:
            scope_id = scope_id or DEFAULT_GROUP
        return [s.agent_id for s in self._lists.get((scope, scope_id), [])]

    def list(self, scope: SubstituteScope, scope_id: str, page_size: int, page_token: str) -> Page[Substitute]:
        key = scope_key(scope, scope_id)
        entries = [replace(s, position=i) for i, s in enumerate(self._lists.get(key, []))]
        return pages.page(entries, lambda s: s.position, page_size, page_token)
