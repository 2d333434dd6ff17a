"""Agent registry: stored durably, mirrored in memory so the hot path never reads storage.

Agent records are operator-owned: set by operators over RPC, with `outrider agents set`, or declared in the
policy file's `agents.records` (applied at start and on every policy reload, where the file's record wins);
an agent credential may only create its own bare record (as `agents.self_registration` allows). Each agent
id also has a standing: a killed agent is TERMINATED and an ejected one QUARANTINED until an operator
reinstates it. Records and standings are mirrored in memory. A change made by another process (the CLI,
another sidecar) arrives through the change feed (`agents` topic: the record and standing of that agent are
read back, within ~100 ms); `refresh_records()` and `refresh()`, each polled several times a second, are the
fallback when notifications do not flow (within 1 s).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from server.domain.agents import (
    Agent,
    AgentSettings,
    Containment,
    Standing,
    new_agent,
    self_registration,
    validate_agent_id,
    validate_id,
)
from server.domain.errors import FailedPrecondition, NotFound
from server.domain.recovery.ladder import EJECTED_GROUP
from server.services.fleet.ports import AGENTS_TOPIC, ChangeFeed
from server.services.ports import AgentRepository, AuditSink, Clock, Page


class _NoAudit:
    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        return None


class AgentService:
    def __init__(
        self,
        repo: AgentRepository,
        *,
        settings: AgentSettings | None = None,
        audit: AuditSink | None = None,
        clock: Clock | None = None,
        changes: ChangeFeed | None = None,
    ) -> None:
        self.repo = repo
        self.settings = settings or AgentSettings()
        self.audit: AuditSink = audit or _NoAudit()
        self.clock = clock
        self._lock = threading.Lock()
        self._groups: dict[str, str] = {}
        self._owners: dict[str, str] = {}
        # Labels and capabilities per agent, for conditions (`agent.labels`, `agent.capabilities`).
        self._profiles: dict[str, Agent] = {}
        self._contained: dict[str, Containment] = {}
        self._containment_version = -1
        if changes is not None:
            changes.subscribe(AGENTS_TOPIC, self._changed_elsewhere, self.load)
        self._records_version = -1

    def load(self) -> None:
        self.refresh_records(force=True)
        self.refresh(force=True)

    def refresh_records(self, force: bool = False) -> bool:
        """Pick up records changed by other processes (one tiny read when nothing changed); True when the
        mirror was reloaded. Staleness bound: the poll interval (250 ms) plus the reload. The reload reads
        under the lock the writers hold, so an older read never overwrites a change this process just made
        (a registration followed at once by an Attach must find its record)."""
        version = self.repo.records_version()
        if version == self._records_version and not force:
            return False
        with self._lock:
            version = self.repo.records_version()
            agents = self.repo.all()
            self._groups = {a.agent_id: a.group for a in agents}
            self._owners = {a.agent_id: a.labels.get("owner", "") for a in agents}
            self._profiles = {a.agent_id: a for a in agents}
            self._records_version = version
        return True

    def refresh(self, force: bool = False) -> None:
        """Pick up standings changed by other processes (one tiny read when nothing changed)."""
        version = self.repo.containment_version()
        if version == self._containment_version and not force:
            return
        # Under the lock the writers hold: a change they make meanwhile is never overwritten by an older read.
        with self._lock:
            self._containment_version = self.repo.containment_version()
            self._contained = self.repo.contained()

    def _changed_elsewhere(self, agent_id: str) -> None:
        """Another sidecar changed this agent's record or standing (the listener's thread): read both
        back under the writers' lock, so an older read never overwrites a newer local change."""
        with self._lock:
            agent = self.repo.get(agent_id)
            if agent is None:
                self._groups.pop(agent_id, None)
                self._owners.pop(agent_id, None)
                self._profiles.pop(agent_id, None)
            else:
                self._groups[agent_id] = agent.group
                self._owners[agent_id] = agent.labels.get("owner", "")
                self._profiles[agent_id] = agent
        self.refresh(force=True)

    def group_of(self, agent_id: str) -> str | None:
        """In-memory lookup for the guardrail chain (no I/O on the hot path)."""
        return self._groups.get(agent_id)

    def profile_of(self, agent_id: str) -> Agent | None:
        """In-memory: the agent's record as last seen (labels, capabilities), None when not registered."""
        return self._profiles.get(agent_id)

    def known(self, agent_id: str) -> bool:
        """Is the agent registered? The mirror first; on a miss, the database (blocking): another sidecar
        may have registered it a moment ago, before its notification arrived here. A hit joins the mirror.
        For the registry's NOT_FOUND paths (attach, recovery, checks, substitutes), never the hot path."""
        if agent_id in self._groups:
            return True
        with self._lock:
            agent = self.repo.get(agent_id)
            if agent is None:
                return False
            self._groups[agent_id] = agent.group
            self._owners[agent_id] = agent.labels.get("owner", "")
            self._profiles[agent_id] = agent
        return True

    def owner_of(self, agent_id: str) -> str:
        """The agent's `owner` label ("" when none): reviewers may not approve their own agents."""
        return self._owners.get(agent_id, "")

    def contained(self) -> list[Containment]:
        """Every terminated or quarantined agent id, by id (in memory)."""
        return sorted(self._contained.values(), key=lambda c: c.agent_id)

    def containment_of(self, agent_id: str) -> Containment | None:
        """In-memory: the agent's TERMINATED or QUARANTINED standing, None when it may act."""
        return self._contained.get(agent_id)

    def register(
        self,
        agent_id: str,
        group: str,
        capabilities: Sequence[str],
        labels: Mapping[str, str],
        *,
        by_agent: bool = False,
        actor: str = "system",
    ) -> tuple[Agent, bool]:
        """Create or change a record. `by_agent`: the caller is the agent's own credential, which may only
        create a bare record in the default group (PERMISSION_DENIED naming the field otherwise)."""
        if by_agent:
            agent_or_none = self._self_registration(agent_id, group, capabilities, labels)
            if agent_or_none is None:
                return self.get(agent_id), False
            agent = agent_or_none
        else:
            agent = new_agent(agent_id, group, capabilities, labels, self.settings.default_group)
        # An operator placing a quarantined agent in a group (other than the ejected one) lifts the
        # quarantine, in the record's transaction, which also holds RegisterAgent's idempotency record: a
        # retry after a lost answer gets the first answer, and nothing is half done.
        release = None
        if not by_agent and agent.group != EJECTED_GROUP:
            release = Containment(agent.agent_id, Standing.ACTIVE, "", f"placed in {agent.group}", actor, self._now())
        with self._lock:
            before = self.repo.get(agent.agent_id)
            stored, created, lifted = self._put(agent, release)
            if lifted is not None:
                self._contained.pop(stored.agent_id, None)
        self._audit_change(actor, before, stored)
        if lifted is not None:
            self.audit.record(actor, "agent.release", stored.agent_id, {"group": stored.group})
        return stored, created

    def _put(self, agent: Agent, release: Containment | None = None) -> tuple[Agent, bool, Containment | None]:
        # Caller holds the lock.
        stored, created, lifted = self.repo.register(agent, release)
        self._groups[stored.agent_id] = stored.group
        self._owners[stored.agent_id] = stored.labels.get("owner", "")
        self._profiles[stored.agent_id] = stored
        return stored, created, lifted

    def change(
        self,
        agent_id: str,
        *,
        group: str = "",
        labels: Mapping[str, str] | None = None,
        remove_labels: Sequence[str] = (),
        capabilities: Sequence[str] = (),
        remove_capabilities: Sequence[str] = (),
        actor: str = "system",
    ) -> tuple[Agent, bool]:
        """An operator's edit of one record (the CLI's `agents set`): the given labels are set, the named ones
        removed, capabilities added and removed; the rest stays. A missing record is created (default group)."""
        validate_agent_id(agent_id, "agent_id")
        current = self.repo.get(agent_id)
        merged = dict(current.labels) if current else {}
        merged.update(labels or {})
        for key in remove_labels:
            merged.pop(key, None)
        caps = [c for c in (current.capabilities if current else ()) if c not in remove_capabilities]
        caps += [c for c in capabilities if c not in caps]
        return self.register(agent_id, group or (current.group if current else ""), caps, merged, actor=actor)

    def apply_declared(self, records: Sequence[Agent], source: str, actor: str = "policy") -> int:
        """The policy file's `agents.records`: each declared record replaces the stored one (RPC and CLI
        changes to a declared agent last until the next start or reload); undeclared records stay. A
        standing is never lifted here: a terminated or quarantined agent stays so until an operator
        reinstates it. Returns how many records changed (each audited like an RPC change)."""
        changed = 0
        for declared in records:
            with self._lock:
                before = self.repo.get(declared.agent_id)
                if before is not None and _record(before) == _record(declared):
                    continue
                stored, _, _ = self._put(declared)
            self._audit_change(actor, before, stored, source=source)
            changed += 1
        return changed

    def _self_registration(
        self, agent_id: str, group: str, capabilities: Sequence[str], labels: Mapping[str, str]
    ) -> Agent | None:
        existing = self.repo.get(agent_id)  # storage, not the mirror: another sidecar may have created it
        ever = self.repo.ever_registered(agent_id) if existing is None else False
        return self_registration(existing, ever, agent_id, group, capabilities, labels, self.settings)

    def _audit_change(self, actor: str, before: Agent | None, after: Agent, source: str = "") -> None:
        record: dict[str, Any] = _record(after)
        origin = {"source": source} if source else {}
        if before is None:
            self.audit.record(actor, "agent.register", after.agent_id, {**record, **origin})
            return
        old = _record(before)
        if old != record:
            changed = sorted(k for k in record if record[k] != old[k])
            details = {"changed": changed, "before": old, **record, **origin}
            self.audit.record(actor, "agent.update", after.agent_id, details)

    def deregister(self, agent_id: str, actor: str = "system") -> None:
        validate_id(agent_id, "agent_id")
        with self._lock:
            if not self.repo.delete(agent_id):
                raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
            self._groups.pop(agent_id, None)
            self._owners.pop(agent_id, None)
            self._profiles.pop(agent_id, None)
            self.audit.record(actor, "agent.deregister", agent_id, {})

    def move(self, agent_id: str, group: str, actor: str = "system") -> Agent:
        """Put a registered agent into another group (recovery: EJECT out of its group, REPLACE into one)."""
        with self._lock:
            agent = self.repo.get(agent_id)
            if agent is None:
                raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
            stored, _, _ = self._put(replace(agent, group=group))
        self._audit_change(actor, agent, stored)
        return stored

    # ---- standing --------------------------------------------------------------------------

    def terminated(self, agent_id: str, kill_id: str, detail: str, actor: str) -> None:
        """A kill recorded the agent TERMINATED (in the kill's own transaction): mirror it at once."""
        with self._lock:
            self._contained[agent_id] = Containment(agent_id, Standing.TERMINATED, kill_id, detail, actor, self._now())

    def quarantine(self, agent_id: str, detail: str, actor: str = "system") -> None:
        """EJECT: the agent keeps no freedom its group's rules denied it; CheckAction blocks until an
        operator places it in a group again (RegisterAgent) or reinstates it."""
        c = Containment(agent_id, Standing.QUARANTINED, "", detail, actor, self._now())
        current = self._contained.get(agent_id)
        if current is not None and current.standing is Standing.TERMINATED:
            return  # a kill is stronger than a quarantine
        self._store(c)
        self.audit.record(actor, "agent.quarantine", agent_id, {"detail": detail})

    def reinstate(self, agent_id: str, reason: str, actor: str) -> Containment:
        """An operator lifts a termination or a quarantine; FAILED_PRECONDITION when the agent is neither."""
        validate_id(agent_id, "agent_id")
        self.refresh()
        current = self._contained.get(agent_id)
        if current is None:
            raise FailedPrecondition(
                f"agent {agent_id!r} is neither terminated nor quarantined", reason="NOT_CONTAINED"
            )
        # The standing stored when the lift committed (its idempotency record holds the same).
        current = self._store(Containment(agent_id, Standing.ACTIVE, "", reason, actor, self._now())) or current
        self.audit.record(
            actor,
            "agent.reinstate",
            agent_id,
            {"standing": current.standing.value, "kill_id": current.kill_id, "reason": reason},
        )
        return current

    def _store(self, c: Containment) -> Containment | None:
        """Returns the standing it replaced (None: the id had none or was ACTIVE)."""
        with self._lock:
            before = self.repo.set_standing(c)
            if c.standing is Standing.ACTIVE:
                self._contained.pop(c.agent_id, None)
            else:
                self._contained[c.agent_id] = c
        return before

    def _now(self) -> datetime:
        return self.clock.utcnow() if self.clock is not None else datetime.now(UTC)

    # ---- reads -----------------------------------------------------------------------------

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


def _record(a: Agent) -> dict[str, Any]:
    """The operator-owned part of a record, as the audit trail shows it."""
    return {"group": a.group, "labels": dict(a.labels), "capabilities": list(a.capabilities)}
