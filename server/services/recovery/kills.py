"""The kill switch with saga handoff (the Agent Governance Toolkit, section 4 and 6).

1. The kill intent is written durably first (kill id, UTC time, every step PENDING).
2. Each in-flight step, in order, goes as a HANDOFF command to the session's substitutes, first registered
   first (never the killed agent, never one being killed, unregistered or unhealthy): HANDED_OFF when one
   acks SUCCESS in time; otherwise that attempt FAILED and the next is tried; none left: COMPENSATED, with
   the compensating actions recorded and emitted.
3. The termination callback is the KILL command, with the callback timeout.
4. Whatever happened, the agent is unregistered: registry, group, health check, retry count, every
   substitute list, its stream; then every kill hook runs (approvals cancel, leases revoke, ...).
The agent id is TERMINATED in the same transaction as the intent (registered or not): from then on every
RPC of its credentials is refused and CheckAction blocks, until an operator reinstates it.
A kill keeps going when its caller goes away; one interrupted by a restart is completed at start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, Literal

from server.domain.agents import validate_id
from server.domain.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound
from server.domain.recovery.codec import to_json
from server.domain.recovery.control import CommandType, failure_detail
from server.domain.recovery.events import RecoveryEventType
from server.domain.recovery.kill import (
    CompensatingAction,
    HandoffPayload,
    HandoffStatus,
    KillFilter,
    KillNotice,
    KillPayload,
    KillReason,
    KillResult,
    SagaStep,
    StepHandoff,
    SubstituteScope,
    begin_attempt,
    compensate,
    complete_kill,
    handoff_candidates,
    interrupt_attempt,
    kill_command_id,
    new_kill_id,
    record_termination,
    settle_attempt,
    start_kill,
    termination_recorded,
    with_handoff,
)
from server.domain.safeguards.reversibility import Assessment, Level
from server.services import observability as obs
from server.services.ports import Clock, Page
from server.services.recovery.agents import AgentService
from server.services.recovery.control_channel import ControlChannelHub
from server.services.recovery.events import EventAuditor
from server.services.recovery.health_checks import HealthCheckService
from server.services.recovery.ladder import RecoveryService
from server.services.recovery.ports import KillRepository
from server.services.recovery.substitutes import SubstituteRegistry

log = logging.getLogger(__name__)

# A kill hook: told about the kill after the agent is unregistered; returns how many objects it cancelled
# or revoked (None counts as 0). May be a plain function (run on a worker thread) or a coroutine function.
KillHook = Callable[[KillNotice], int | Awaitable[int | None] | None]
# The reversibility assessment of an action (with the step's payload as its parameters): its compensating
# actions, or None when the action has no assessment (level UNKNOWN: the step's declared compensation is used).
ReversibilityLookup = Callable[[str, Mapping[str, Any]], Sequence[CompensatingAction] | None]
HookCounts = Literal["approvals", "leases"] | None


class _TakenOver(Exception):
    """The kill's row is another sidecar's now: it took the kill over while this one was away."""


@dataclass(frozen=True, slots=True)
class _Hook:
    name: str
    callback: KillHook
    counts: HookCounts


def compensation_from(assess: Callable[[str, Mapping[str, Any]], Assessment]) -> ReversibilityLookup:
    """Adapt the reversibility feature's `assess` to the kill switch's lookup."""

    def lookup(action: str, parameters: Mapping[str, Any]) -> Sequence[CompensatingAction] | None:
        assessment = assess(action, parameters)
        if assessment.level is Level.UNKNOWN:
            return None
        return [
            CompensatingAction(c.description, c.action, dict(c.parameters), int(c.effectiveness), c.time_window)
            for c in assessment.compensating
        ]

    return lookup


class KillService:
    def __init__(
        self,
        repo: KillRepository,
        hub: ControlChannelHub,
        agents: AgentService,
        health: HealthCheckService,
        recovery: RecoveryService,
        substitutes: SubstituteRegistry,
        events: EventAuditor,
        clock: Clock,
        *,
        callback_timeout: float = 5.0,
        handoff_timeout: float = 5.0,
        cancel_approvals: KillHook | None = None,
        revoke_leases: KillHook | None = None,
        reversibility: ReversibilityLookup | None = None,
        owner_timeout: float = 15.0,
    ) -> None:
        """`cancel_approvals` and `revoke_leases` (the approvals and leases features) run at the end of every
        kill and return how many they cancelled or revoked; `reversibility` gives a step's compensating
        actions. A running kill whose owning sidecar has not beaten its heartbeat for `owner_timeout`
        (fleet.sidecar_timeout) is taken over by another sidecar (`adopt_orphans`)."""
        self.repo = repo
        self.hub = hub
        self.agents = agents
        self.health = health
        self.recovery = recovery
        self.substitutes = substitutes
        self.events = events
        self.clock = clock
        self.callback_timeout = callback_timeout
        self.handoff_timeout = handoff_timeout
        self.owner_timeout = owner_timeout
        self._reserved: set[str] = set()  # agents with a kill in progress
        self._by_kill: dict[str, asyncio.Task[KillResult]] = {}
        self._hooks: list[_Hook] = []
        if cancel_approvals is not None:
            self.on_kill(cancel_approvals, counts="approvals", name="cancel approvals")
        if revoke_leases is not None:
            self.on_kill(revoke_leases, counts="leases", name="revoke leases")
        self._reversibility = reversibility

    # ---- observers -------------------------------------------------------------------------------

    def on_kill(self, callback: KillHook, *, counts: HookCounts = None, name: str = "") -> None:
        """Run `callback(notice)` at the end of every kill; with `counts`, its result adds to the KillResult's
        cancelled_approval_count ("approvals") or revoked_lease_count ("leases")."""
        self._hooks.append(_Hook(name or getattr(callback, "__qualname__", "hook"), callback, counts))

    # ---- reads ---------------------------------------------------------------------------------

    def is_being_killed(self, agent_id: str) -> bool:
        return agent_id in self._reserved

    def get(self, kill_id: str) -> KillResult:
        if not kill_id:
            raise InvalidArgument("kill_id is required", field="kill_id")
        kill = self.repo.get(kill_id)
        if kill is None:
            raise NotFound(f"no kill has id {kill_id!r}", field="kill_id")
        return kill

    def list(self, flt: KillFilter, page_size: int, page_token: str) -> Page[KillResult]:
        return self.repo.list(flt, page_size, page_token)

    # ---- the kill ------------------------------------------------------------------------------

    async def kill(
        self,
        agent_id: str,
        session_id: str,
        reason: KillReason,
        steps: Sequence[SagaStep] = (),
        details: str = "",
        *,
        callback_timeout: float | None = None,
        handoff_timeout: float | None = None,
        request_id: str = "",
        actor: str = "system",
    ) -> KillResult:
        """Kill and wait for the outcome; the kill goes on if the caller is cancelled."""
        intent, task = await self.start(
            agent_id, session_id, reason, steps, details,
            callback_timeout=callback_timeout, handoff_timeout=handoff_timeout, request_id=request_id, actor=actor,
        )  # fmt: skip
        if task is None:
            return intent
        return await asyncio.shield(task)

    async def start(
        self,
        agent_id: str,
        session_id: str,
        reason: KillReason,
        steps: Sequence[SagaStep] = (),
        details: str = "",
        *,
        callback_timeout: float | None = None,
        handoff_timeout: float | None = None,
        request_id: str = "",
        actor: str = "system",
    ) -> tuple[KillResult, asyncio.Task[KillResult] | None]:
        """Record the intent and start the kill; returns the intent and its task (None: already complete)."""
        validate_id(agent_id, "agent_id")
        if request_id:
            earlier = await asyncio.to_thread(self.repo.find_by_request, request_id)
            if earlier is not None:
                return earlier, self._by_kill.get(earlier.kill_id)
        intent = start_kill(
            "kill:00000000", agent_id, session_id, reason, steps, self.clock.utcnow(),
            details=details, requested_by=actor, request_id=request_id,
            callback_timeout=self.callback_timeout if callback_timeout is None else callback_timeout,
            handoff_timeout=self.handoff_timeout if handoff_timeout is None else handoff_timeout,
        )  # fmt: skip
        # Registered or not: an agent that acted without registering must be stoppable too.
        if agent_id in self._reserved:
            raise FailedPrecondition(f"a kill of agent {agent_id!r} is already in progress", reason="KILL_IN_PROGRESS")
        self._reserved.add(agent_id)  # before any await: a concurrent kill of the same agent sees it
        try:
            intent = await self._record_intent(intent)
        except BaseException:
            self._reserved.discard(agent_id)
            raise
        return intent, self._launch(intent)

    def _launch(self, k: KillResult) -> asyncio.Task[KillResult]:
        self._reserved.add(k.agent_id)
        task: asyncio.Task[KillResult] = self.hub.spawn(self._run(k))  # cancelled at shutdown, resumed at start-up
        self._by_kill[k.kill_id] = task

        def done(_: object) -> None:
            self._reserved.discard(k.agent_id)
            self._by_kill.pop(k.kill_id, None)

        task.add_done_callback(done)
        return task

    async def _record_intent(self, intent: KillResult) -> KillResult:
        for _ in range(10):
            candidate = replace(intent, kill_id=new_kill_id(secrets.token_hex(4)))
            candidate = replace(
                candidate, handoffs=tuple(replace(h, kill_id=candidate.kill_id) for h in intent.handoffs)
            )
            if await asyncio.to_thread(self.repo.insert, candidate):
                # The insert terminated the agent id in the same transaction; this process refuses it now.
                self.agents.terminated(intent.agent_id, candidate.kill_id, intent.request_details, intent.requested_by)
                await self.events.record(
                    intent.requested_by,
                    "kill.start",
                    intent.agent_id,
                    {
                        "kill_id": candidate.kill_id,
                        "session_id": intent.session_id,
                        "reason": intent.reason.name,
                        "steps": [[h.step.saga_id, h.step.step_id] for h in intent.handoffs],
                        "details": intent.request_details,
                    },
                )
                log.warning("kill started", extra={"agent_id": intent.agent_id, "kill_id": candidate.kill_id})
                return candidate
        raise RuntimeError("could not draw a free kill id")

    @obs.traced("kill")
    async def _run(self, k: KillResult) -> KillResult:
        try:
            return await self._run_owned(k)
        except _TakenOver:
            # Resumed from a pause, this sidecar's kill ran on before its heartbeat found it had been declared
            # gone (give_up_taken_over): the sidecar that took the kill over records it, once.
            log.warning(
                "a kill taken over by another sidecar while this one was away: given up", extra={"kill_id": k.kill_id}
            )
            return await asyncio.to_thread(self.repo.get, k.kill_id) or k

    async def _run_owned(self, k: KillResult) -> KillResult:
        try:
            for i, h in enumerate(k.handoffs):
                if h.status is HandoffStatus.PENDING:
                    k = await self._hand_off(k, i, interrupt_attempt(h, self.clock.utcnow()))
            k = await self._terminate(k)
            terminated, detail = k.terminated, k.detail
        except (asyncio.CancelledError, _TakenOver):
            raise  # shutting down (the stored intent is completed at the next start-up), or not ours any more
        except Exception as exc:
            log.exception("kill failed before termination", extra={"kill_id": k.kill_id})
            terminated, detail = False, f"kill error: {exc or type(exc).__name__}"
        return await self._finish(k, terminated, detail)

    async def _store(self, k: KillResult) -> None:
        if not await asyncio.to_thread(self.repo.update, k):
            raise _TakenOver(k.kill_id)

    async def _hand_off(self, k: KillResult, index: int, h: StepHandoff) -> KillResult:
        tried = {a.to_agent for a in h.attempts}
        subs = self.substitutes.ordered(SubstituteScope.SESSION, k.session_id) if k.session_id else []
        for sub in handoff_candidates(subs, k.agent_id, self._eligible):
            if sub in tried:
                continue
            tried.add(sub)
            payload = HandoffPayload(k.kill_id, k.session_id, k.agent_id, h.step)
            command_id = self.hub.new_command_id()
            h = begin_attempt(h, sub, command_id, self.clock.utcnow())
            k = await self._save_step(k, index, h)
            result = await self.hub.request(
                sub, CommandType.HANDOFF, f"handoff of {h.step.saga_id}/{h.step.step_id}", k.handoff_timeout,
                payload, command_id=command_id,
            )  # fmt: skip
            if result.succeeded:
                detail = result.detail or "accepted"
            else:
                detail = failure_detail(result, "handoff", k.handoff_timeout)
            h = settle_attempt(h, result.succeeded, detail, self.clock.utcnow())
            k = await self._save_step(k, index, h)
            if result.succeeded:
                await self._audit_step(k, h)
                return k
        actions = self._compensation_for(h.step)
        h = compensate(h, actions, self.clock.utcnow())
        k = await self._save_step(k, index, h)
        await self._audit_step(k, h)
        return k

    def _eligible(self, agent_id: str) -> bool:
        return (
            self.agents.group_of(agent_id) is not None
            and self.agents.containment_of(agent_id) is None
            and agent_id not in self._reserved
            and not self.health.is_unhealthy(agent_id)
        )

    def _compensation_for(self, step: SagaStep) -> tuple[CompensatingAction, ...]:
        if self._reversibility is not None and step.action:
            try:
                assessed = self._reversibility(step.action, step.payload)
            except Exception:
                log.exception("reversibility lookup failed", extra={"action": step.action})
                assessed = None
            if assessed is not None:
                return tuple(assessed)
        return step.compensation

    async def _save_step(self, k: KillResult, index: int, h: StepHandoff) -> KillResult:
        k = with_handoff(k, index, h)
        await self._store(k)
        await self.events.emit(RecoveryEventType.HANDOFF, k.agent_id, h)
        return k

    async def _audit_step(self, k: KillResult, h: StepHandoff) -> None:
        action = "kill.handoff" if h.status is HandoffStatus.HANDED_OFF else "kill.compensate"
        await self.events.record(
            k.requested_by,
            action,
            k.agent_id,
            {
                "kill_id": k.kill_id,
                "saga_id": h.step.saga_id,
                "step_id": h.step.step_id,
                "to_agent": h.to_agent,
                "attempts": [[a.to_agent, a.status.name, a.detail] for a in h.attempts],
                "compensating_actions": [to_json(c) for c in h.compensating_actions],
            },
        )

    async def _terminate(self, k: KillResult) -> KillResult:
        """The KILL command's outcome, stored with the kill before it completes. A kill taken over from a
        sidecar that died reads what is known first: the outcome its first owner stored, then the routed
        KILL command's stored acknowledgement (or, still in flight, its outcome), and sends KILL only
        when none was ever sent."""
        if termination_recorded(k):
            return k
        command_id = kill_command_id(k.kill_id)
        result = await self.hub.routed_outcome(command_id, k.callback_timeout)
        if result is None:
            payload = KillPayload(k.kill_id, k.reason, k.request_details)
            result = await self.hub.request(
                k.agent_id, CommandType.KILL, k.reason.name.lower(), k.callback_timeout, payload, command_id=command_id
            )
        if result.succeeded:
            k = record_termination(k, True, result.detail or "terminated")
        else:
            k = record_termination(k, False, failure_detail(result, "kill", k.callback_timeout))
        await self._store(k)
        return k

    async def _finish(self, k: KillResult, terminated: bool, detail: str) -> KillResult:
        """Unregister the agent unconditionally, run the hooks, record the outcome."""
        # Wherever its stream is held (in a fleet, the holding sidecar ends it; bounded by the callback timeout).
        await self.hub.end_stream_anywhere(
            k.agent_id, Aborted(f"agent {k.agent_id!r} was killed", reason="AGENT_KILLED"), k.callback_timeout
        )
        self.hub.forget(k.agent_id)
        await asyncio.to_thread(self._unregister, k.agent_id)
        notice = KillNotice(k.kill_id, k.agent_id, k.session_id, k.reason, k.requested_by)
        counts = {"approvals": 0, "leases": 0}
        for hook in self._hooks:
            n = await self._run_hook(hook, notice, k.callback_timeout)
            if hook.counts:
                counts[hook.counts] += n
        k = complete_kill(k, terminated, detail, counts["approvals"], counts["leases"], self.clock.utcnow())
        await self._store(k)
        await self.events.emit(RecoveryEventType.KILL, k.agent_id, k)
        await self.events.record(
            k.requested_by,
            "kill.complete",
            k.agent_id,
            {
                "kill_id": k.kill_id,
                "terminated": terminated,
                "detail": detail,
                "handoff_success_count": k.handoff_success_count,
                "compensation_triggered": k.compensation_triggered,
                "cancelled_approval_count": k.cancelled_approval_count,
                "revoked_lease_count": k.revoked_lease_count,
            },
        )
        log.warning("kill complete", extra={"agent_id": k.agent_id, "kill_id": k.kill_id, "terminated": terminated})
        return k

    def _unregister(self, agent_id: str) -> None:
        with contextlib.suppress(NotFound):
            self.agents.deregister(agent_id)
        self.recovery.forget(agent_id)
        self.substitutes.remove_everywhere(agent_id)

    async def _run_hook(self, hook: _Hook, notice: KillNotice, timeout: float) -> int:
        try:
            if inspect.iscoroutinefunction(hook.callback):
                outcome = await asyncio.wait_for(hook.callback(notice), timeout)
            else:
                outcome = await asyncio.wait_for(asyncio.to_thread(hook.callback, notice), timeout)
                if inspect.isawaitable(outcome):
                    outcome = await asyncio.wait_for(outcome, timeout)
        except Exception:
            log.exception("kill hook failed", extra={"hook": hook.name, "kill_id": notice.kill_id})
            return 0
        return int(outcome or 0) if isinstance(outcome, int) else 0

    # ---- start-up ------------------------------------------------------------------------------

    async def resume_incomplete(self) -> int:
        """Complete the kills a restart interrupted (attempts in flight count as FAILED): only those whose
        owning sidecar is gone, each claimed by exactly one sidecar fleet-wide."""
        tasks = self._adopt(await asyncio.to_thread(self._claim))
        await asyncio.gather(*tasks, return_exceptions=True)
        return len(tasks)

    def adopt_orphans(self) -> int:
        """The periodic take-over (scheduler thread): claim the running kills whose owner died since and
        run them on this sidecar's loop, without waiting for them."""
        kills = self._claim()
        if kills:
            self.hub.run_sync(self._adopt_async(kills), timeout=30.0)
        return len(kills)

    def give_up_taken_over(self) -> int:
        """For a sidecar that finds it was declared gone (scheduler thread): the kills it was running that
        another sidecar took over meanwhile are that sidecar's now; this one stops running
        them, so no kill completes twice."""
        if self.hub.loop is None:  # a process that runs no kills (a separate console)
            return 0
        running = self.hub.run_sync(self._running(), timeout=10.0)
        taken = self.repo.taken_over(running) if running else []
        if taken:
            self.hub.run_sync(self._give_up(taken), timeout=10.0)
        return len(taken)

    async def _running(self) -> Sequence[str]:
        return [*self._by_kill]

    async def _give_up(self, kill_ids: Sequence[str]) -> None:
        for kill_id in kill_ids:
            task = self._by_kill.get(kill_id)
            if task is not None and not task.done():
                log.warning(
                    "a kill taken over by another sidecar while this one was away: given up", extra={"kill_id": kill_id}
                )
                task.cancel()

    def _claim(self) -> Sequence[KillResult]:
        return self.repo.claim_orphaned(self.clock.utcnow() - timedelta(seconds=self.owner_timeout))

    async def _adopt_async(self, kills: Sequence[KillResult]) -> None:
        self._adopt(kills)

    def _adopt(self, kills: Sequence[KillResult]) -> Sequence[asyncio.Task[KillResult]]:
        mine = [k for k in kills if k.agent_id not in self._reserved]
        for k in mine:
            log.warning("resuming an interrupted kill", extra={"kill_id": k.kill_id, "agent_id": k.agent_id})
        return [self._launch(k) for k in mine]
