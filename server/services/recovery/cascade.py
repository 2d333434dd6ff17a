"""Cascade detection use cases: failures reported between agents, the sliding window, the CASCADE event and
the policy's optional action (open the failing agents' breakers, or kill the chain's root)."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.domain.agents import validate_id
from server.domain.errors import InvalidArgument, OutriderError
from server.domain.recovery.cascade import (
    AgentFailure,
    Cascade,
    CascadeAction,
    CascadePolicy,
    Evidence,
    agents_involved,
    chain_root,
    corroboration,
    new_cascade_policy,
)
from server.domain.recovery.codec import from_json, to_json
from server.domain.recovery.events import RecoveryEventType
from server.domain.recovery.kill import KillReason
from server.domain.values import digest
from server.services.ports import Clock
from server.services.recovery.events import EventAuditor
from server.services.recovery.kills import KillService
from server.services.recovery.ports import CascadeWindowStore, RecoveryRepository

log = logging.getLogger(__name__)

# Opens (trips) the breaker with this key for the given reason; True when it opened (the breakers feature).
BreakerOpener = Callable[[str, str], bool]
_POLICY_KEY = "cascade_policy"
_REQUESTS_KEPT = 1000
MAX_DETAIL = 1024


class CascadeService:
    def __init__(
        self,
        repo: RecoveryRepository,
        kills: KillService,
        events: EventAuditor,
        clock: Clock,
        file_policy: CascadePolicy | None = None,
        open_breaker: BreakerOpener | None = None,
        observed_failing: Callable[[str], bool] | None = None,
        *,
        window: CascadeWindowStore,
    ) -> None:
        """`window`: the sliding window of failures (in the database: the fleet's one window)."""
        # A failure the sidecar saw itself (the agent's health check failed): evidence no agent can forge.
        self.observed_failing = observed_failing or (lambda agent_id: False)
        self.repo = repo
        self.kills = kills
        self.events = events
        self.clock = clock
        self.file_policy = file_policy
        self._policy = CascadePolicy()
        self.window = window
        self._lock = threading.Lock()
        self._opener = open_breaker
        self._recent: OrderedDict[str, tuple[AgentFailure, Cascade | None]] = OrderedDict()
        # When each agent's own breaker last opened on recorded failures (monotonic; the breakers' events).
        self._breaker_opened: OrderedDict[str, float] = OrderedDict()

    def load(self) -> None:
        """The stored policy; the policy file's `recovery.cascade` replaces it when that section changed."""
        stored = self.repo.get_setting(_POLICY_KEY)
        file_digest = digest(to_json(self.file_policy)) if self.file_policy else None
        if self.file_policy is not None and (stored or {}).get("file_digest") != file_digest:
            policy = replace(self.file_policy, update_time=self.clock.utcnow())
            self._store(policy, file_digest)
            log.info("cascade policy applied from the policy file")
        elif stored and "policy" in stored:
            policy = from_json(CascadePolicy, stored["policy"])
            assert isinstance(policy, CascadePolicy)
        else:
            policy = CascadePolicy()
        self._policy = policy

    def reload_file_policy(self, policy: CascadePolicy | None) -> None:
        """The policy file was reloaded: its `recovery.cascade`, when given, replaces the current policy."""
        self.file_policy = policy
        if policy is not None:
            policy = replace(policy, update_time=self.clock.utcnow())
            self._store(policy, digest(to_json(policy)))
            self._policy = policy
            log.info("cascade policy applied from the reloaded policy file")

    def follow_file_policy(self, policy: CascadePolicy | None) -> None:
        """Another sidecar applied the fleet's policy file (and stored its cascade policy): read it back."""
        self.file_policy = policy
        stored = self.repo.get_setting(_POLICY_KEY)
        if stored and "policy" in stored:
            loaded = from_json(CascadePolicy, stored["policy"])
            assert isinstance(loaded, CascadePolicy)
            self._policy = loaded

    def _store(self, policy: CascadePolicy, file_digest: str | None, answer: Any = None) -> None:
        value = {"policy": to_json(policy), "file_digest": file_digest}
        self.repo.put_setting(_POLICY_KEY, value, self.clock.utcnow(), answer)

    @property
    def policy(self) -> CascadePolicy:
        return self._policy

    def set_policy(
        self,
        window: float | None,
        threshold: int | None,
        action: CascadeAction | None,
        kill_reason: KillReason | None,
        actor: str = "system",
    ) -> CascadePolicy:
        policy = new_cascade_policy(window, threshold, action, kill_reason, now=self.clock.utcnow())
        with self._lock:
            stored = self.repo.get_setting(_POLICY_KEY) or {}
            self._store(policy, stored.get("file_digest"), policy)  # with SetCascadePolicy's record
            self._policy = policy
        self.events.audit.record(
            actor,
            "recovery.cascade_policy.set",
            "cascade",
            {"window": policy.window, "threshold": policy.threshold, "action": policy.action.name},
        )
        return policy

    async def report_failure(
        self,
        from_agent: str,
        to_agent: str,
        detail: str = "",
        *,
        source: str = "report",
        request_id: str = "",
        actor: str = "system",
        reporter: str = "sidecar",
    ) -> tuple[AgentFailure, Cascade | None]:
        """Record that `from_agent`'s failure reached `to_agent`; returns the cascade it completed, if any.
        Breakers report with source="breaker". `reporter` comes from the caller's credential."""
        validate_id(from_agent, "from_agent")
        validate_id(to_agent, "to_agent")
        if len(detail) > MAX_DETAIL:
            raise InvalidArgument(f"detail must be at most {MAX_DETAIL} characters", field="detail")
        key = f"{reporter}\n{request_id}"  # one caller's request id never answers for another's
        if request_id and key in self._recent:
            return self._recent[key]
        failure = AgentFailure(from_agent, to_agent, detail, source, self.clock.utcnow(), reporter)
        if source == "breaker":
            self._note_breaker_opened(to_agent)
        policy, cascade_id = self._policy, f"cascade-{uuid.uuid4().hex[:12]}"
        members = await asyncio.to_thread(self.window.record, failure, policy.window, policy.threshold, cascade_id)
        cascade = await self._detected(members, cascade_id) if members else None
        if request_id:
            self._recent[key] = (failure, cascade)
            while len(self._recent) > _REQUESTS_KEPT:
                self._recent.popitem(last=False)
        return failure, cascade

    def _note_breaker_opened(self, agent_id: str) -> None:
        # Only the breakers feature reports with source "breaker", for a key of `agent_id`'s own
        # (`agent_id` or `agent_id:<dependency>`): failures only it and operators may record.
        self._breaker_opened[agent_id] = self.clock.monotonic()
        self._breaker_opened.move_to_end(agent_id)
        while len(self._breaker_opened) > _REQUESTS_KEPT:
            self._breaker_opened.popitem(last=False)

    def observed(self, agent_id: str) -> tuple[Evidence, ...]:
        """What the sidecar itself saw of `agent_id` failing: its health check failed (its current status),
        one of its breakers opened within the cascade window. No agent can forge these about another."""
        facts = []
        if self.observed_failing(agent_id):
            facts.append(Evidence.HEALTH_CHECK_FAILED)
        opened = self._breaker_opened.get(agent_id)
        if opened is not None and self.clock.monotonic() - opened < self._policy.window:
            facts.append(Evidence.BREAKER_OPENED)
        return tuple(facts)

    async def _detected(self, failures: tuple[AgentFailure, ...], cascade_id: str) -> Cascade:
        policy = self._policy
        root = chain_root(failures)
        failing = tuple(dict.fromkeys(f.from_agent for f in failures))
        targets = failing if policy.action is CascadeAction.OPEN_BREAKERS or not root else (root,)
        evidence = {a: corroboration(a, failures, policy.threshold, self.observed(a)) for a in targets}
        trusted = {a for a, why in evidence.items() if why is not None}
        cascade = Cascade(
            cascade_id,
            failures,
            agents_involved(failures),
            root,
            policy.action,
            self.clock.utcnow(),
            corroborated=trusted == set(targets),
        )
        if policy.action is CascadeAction.OPEN_BREAKERS:
            cascade = replace(cascade, opened_breakers=await asyncio.to_thread(self._open_breakers, failures, trusted))
        elif policy.action is CascadeAction.KILL_ROOT and root in trusted:
            cascade = replace(cascade, kill_id=await self._kill_root(root, cascade, policy.kill_reason))
        await self.events.emit(RecoveryEventType.CASCADE, root, cascade)
        details = {**_details(cascade), "evidence": {a: why.value for a, why in evidence.items() if why is not None}}
        await self.events.record("system", "cascade.detected", root or cascade.agent_ids[0], details)
        log.warning(
            "cascade detected",
            extra={"agents": list(cascade.agent_ids), "root": root, "corroborated": cascade.corroborated},
        )
        return cascade

    def _open_breakers(self, failures: tuple[AgentFailure, ...], trusted: set[str]) -> tuple[str, ...]:
        if self._opener is None:
            log.warning("cascade action OPEN_BREAKERS, but no breakers are available")
            return ()
        opened = []
        for key in dict.fromkeys(f.from_agent for f in failures if f.from_agent in trusted):
            try:
                if self._opener(key, "cascade"):
                    opened.append(key)
            except Exception:
                log.exception("opening a breaker for a cascade failed", extra={"key": key})
        return tuple(opened)

    async def _kill_root(self, root: str, cascade: Cascade, reason: KillReason) -> str:
        try:
            intent, _task = await self.kills.start(
                root, "", reason, details=f"cascade {cascade.cascade_id}: {', '.join(cascade.agent_ids)}"
            )
        except OutriderError as exc:  # not registered, or already being killed
            log.warning("cascade root not killed", extra={"agent_id": root, "why": exc.message})
            return ""
        return intent.kill_id

    def report_failure_threadsafe(
        self, from_agent: str, to_agent: str, detail: str = "", source: str = "breaker"
    ) -> None:
        """For other features (a breaker opening): from a worker thread it reports and waits; on the event loop
        itself it schedules the report (waiting there would block the loop)."""
        hub = self.kills.hub
        # A breaker opens on the outcomes its key's agent reported: that agent is the voice, not the sidecar.
        reporter = f"agent:{to_agent}" if source == "breaker" else "sidecar"
        coro = self.report_failure(from_agent, to_agent, detail[:MAX_DETAIL], source=source, reporter=reporter)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None and running is hub.loop:
            hub.spawn(coro)
            return
        hub.run_sync(coro, timeout=30)

    def window_size(self) -> int:
        return self.window.size(self._policy.window, self.clock.utcnow())


def _details(c: Cascade) -> dict[str, Any]:
    return {
        "cascade_id": c.cascade_id,
        "agents": list(c.agent_ids),
        "root": c.root_agent,
        "failures": [[f.from_agent, f.to_agent] for f in c.failures],
        "action": c.action.name,
        "kill_id": c.kill_id,
        "opened_breakers": list(c.opened_breakers),
        "corroborated": c.corroborated,
        "reporters": sorted({f.reporter for f in c.failures}),
    }
