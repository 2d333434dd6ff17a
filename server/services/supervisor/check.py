"""The CheckAction use case: run the chain on one action call, ask a human where a hitl guardrail says so,
take circuit-breaker permits, and record the decision.

The event loop stays free: a call whose context is at least `offload_bytes` (limits.offload_context_bytes)
runs its guardrails on a small bounded worker pool (limits.chain_workers threads; beyond
limits.max_offloaded calls waiting for it, RESOURCE_EXHAUSTED), so one agent's megabyte context does not
hold every other agent's small call behind it. One agent holds at most `max_inflight_per_agent`
concurrent CheckActions (limits.max_inflight_per_agent; RESOURCE_EXHAUSTED beyond), so under overload
every credential keeps its share.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, cast

from server.domain.agents import Standing, validate_agent_id
from server.domain.approvals import requests as rules
from server.domain.approvals.requests import Approval, ApprovalState, approval_digest
from server.domain.errors import FailedPrecondition, InvalidArgument, ResourceExhausted, StorageUnavailable
from server.domain.guardrails import ActionCall, ChainRun, Guardrail, GuardrailResult, Severity, Verdict, gate
from server.domain.guardrails.hitl import Hitl
from server.domain.masking import MASK, mask
from server.services import observability as obs
from server.services.deadlines import retry_storage
from server.services.ports import Clock
from server.services.recovery.agents import AgentService
from server.services.supervisor.chain import ChainStore
from server.services.supervisor.decision_log import DecisionLog
from server.services.supervisor.walk import isolated, walk
from server.telemetry.metrics import Metrics

if TYPE_CHECKING:
    from opentelemetry.trace import Span

log = logging.getLogger(__name__)

MAX_ACTION = 1024
# The built-in checks that run before the chain; their names are the `guardrail` of the decisions they block.
KILL_SWITCH = "kill-switch"
QUARANTINE = "quarantine"
REGISTRATION = "registration"
# An approver's edit re-runs the chain; an edit that needs approval again may re-run it again.
MAX_EDIT_ROUNDS = 4


_ID_PREFIX = secrets.token_hex(8)
_ID_COUNTER = itertools.count(1)


def _new_decision_id() -> str:
    """32 hex characters: a random per-process prefix and a counter, unique without a syscall per call
    (uuid4's os.urandom releases and re-takes the GIL on the hot path)."""
    return f"{_ID_PREFIX}{next(_ID_COUNTER):016x}"


class Approvals(Protocol):
    """Human approval, as CheckAction uses it (services/approvals/requests.py)."""

    def request(
        self, call: ActionCall, hitl: Hitl, request_id: str, trace_id: str, warnings: tuple[tuple[str, str], ...]
    ) -> Approval: ...

    async def request_async(
        self,
        call: ActionCall,
        hitl: Hitl,
        request_id: str,
        trace_id: str,
        warnings: tuple[tuple[str, str], ...],
        digest: str = "",
    ) -> Approval:
        """`request`, group-committed with the other requests arriving meanwhile (on the event loop)."""
        ...

    async def wait(
        self, approval_id: str, current: Approval | None = None, *, pending_version: int | None = None
    ) -> Approval: ...

    def mark_consumed(self, approval_id: str) -> bool: ...


class NoApprovals:
    """The null object for a process without human approval: a matching hitl guardrail fails closed."""

    def request(
        self, call: ActionCall, hitl: Hitl, request_id: str, trace_id: str, warnings: tuple[tuple[str, str], ...]
    ) -> Approval:
        raise FailedPrecondition("human approval is not configured in this process")

    async def request_async(
        self,
        call: ActionCall,
        hitl: Hitl,
        request_id: str,
        trace_id: str,
        warnings: tuple[tuple[str, str], ...],
        digest: str = "",
    ) -> Approval:
        raise FailedPrecondition("human approval is not configured in this process")

    async def wait(
        self, approval_id: str, current: Approval | None = None, *, pending_version: int | None = None
    ) -> Approval:
        raise FailedPrecondition("human approval is not configured in this process")

    def mark_consumed(self, approval_id: str) -> bool:
        raise FailedPrecondition("human approval is not configured in this process")


# The reversibility level of an action (SafeguardService), for hitl's `reversibility: true`.
LevelOf = Callable[[str, dict[str, Any]], str | None]


def no_levels(action: str, context: dict[str, Any]) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Checked:
    verdict: Verdict
    decision_id: str
    approval: Approval | None = None
    # The context finally checked, when an approver edited it (None: the agent's own).
    effective_context: Mapping[str, Any] | None = None
    permit_id: str = ""


@dataclass(frozen=True, slots=True)
class Asked:
    """What asking a human gave one pass over the chain.

    `result` is the guardrail's answer when the pass goes on; `pending` ends the pass with the request still
    open (non-blocking CheckAction); `edited` ends it because an approver's edit must re-run the chain."""

    approval: Approval | None = None
    result: GuardrailResult | None = None
    pending: Verdict | None = None
    edited: Mapping[str, Any] | None = None


@dataclass
class _Outcome:
    """One pass over the chain."""

    run: ChainRun
    approval: Approval | None = None
    verdict: Verdict | None = None  # set when the pass ends early with a pending approval
    edited: Mapping[str, Any] | None = None  # set when an approver's edit must re-run the chain
    permit_ids: list[str] = field(default_factory=list)  # circuit-breaker permits the `breaker` kind took


class CheckActionService:
    def __init__(
        self,
        chain: ChainStore,
        agents: AgentService,
        decisions: DecisionLog,
        approvals: Approvals,
        *,
        plugin_executor: Executor,
        max_context_bytes: int,
        release_permit: Callable[[str], object],
        assess_level: LevelOf = no_levels,
        sensitive_keys: tuple[str, ...] = (),
        tracer: obs.Tracer = obs.NO_TRACER,
        metrics: Metrics,
        clock: Clock,
        chain_pool: Executor | None = None,
        offload_bytes: int = 64 * 1024,
        max_offloaded: int = 64,
        max_inflight_per_agent: int = 16,
        max_streams_per_agent: int = 4,
    ) -> None:
        self.chain_pool = chain_pool
        self.offload_bytes = offload_bytes
        self.max_offloaded = max_offloaded
        self.max_inflight_per_agent = max_inflight_per_agent
        self._inflight: dict[str, int] = {}  # event-loop state: CheckActions in progress per agent
        # Open CheckActions streams per agent (event-loop state): an idle stream costs memory, and each
        # opening only one request of the rate limit (limits.max_check_streams_per_agent).
        self.max_streams_per_agent = max_streams_per_agent
        self._streams: dict[str, int] = {}
        self._offloaded = 0  # calls on (or waiting for) the chain pool
        self.chain = chain
        self.agents = agents
        self.decisions = decisions
        self.approvals = approvals
        self.plugin_executor = plugin_executor
        self.max_context_bytes = max_context_bytes
        self.release_permit = release_permit
        self.assess_level = assess_level
        self.sensitive_keys = sensitive_keys
        # Spans per guardrail and for approval waits (when the CheckAction span records), and metrics.
        self.tracer = tracer
        self.metrics = metrics
        self.clock = clock

    def validate_check(self, agent_id: str, action: str, context_bytes: int) -> None:
        validate_agent_id(agent_id, "agent_id")
        if not action:
            raise InvalidArgument("action is required", field="action")
        if len(action) > MAX_ACTION:
            raise InvalidArgument(f"action must be at most {MAX_ACTION} characters", field="action")
        if context_bytes > self.max_context_bytes:
            raise InvalidArgument(
                f"context is {context_bytes} bytes, over the limit of {self.max_context_bytes}", field="context"
            )

    def admit(self, agent_id: str) -> None:
        """Take one of the agent's in-flight slots (RESOURCE_EXHAUSTED when it has none left); `release`
        gives it back. Runs on the event loop: a plain dict, no lock."""
        held = self._inflight.get(agent_id, 0)
        if held >= self.max_inflight_per_agent:
            raise ResourceExhausted(
                f"agent {agent_id!r} already has {held} CheckAction calls in flight "
                f"(limits.max_inflight_per_agent: {self.max_inflight_per_agent})",
                reason="TOO_MANY_IN_FLIGHT",
            )
        self._inflight[agent_id] = held + 1

    def release(self, agent_id: str) -> None:
        _give_back(self._inflight, agent_id)

    def admit_stream(self, agent_id: str) -> None:
        """Open one of the agent's CheckActions streams (RESOURCE_EXHAUSTED beyond its share);
        `release_stream` closes it. Event-loop state, as `admit`."""
        held = self._streams.get(agent_id, 0)
        if held >= self.max_streams_per_agent:
            raise ResourceExhausted(
                f"agent {agent_id!r} already has {held} CheckActions streams open "
                f"(limits.max_check_streams_per_agent: {self.max_streams_per_agent}); share one stream",
                reason="TOO_MANY_STREAMS",
            )
        self._streams[agent_id] = held + 1

    def release_stream(self, agent_id: str) -> None:
        _give_back(self._streams, agent_id)

    def heavy(self, context_bytes: int) -> bool:
        return self.chain_pool is not None and context_bytes >= self.offload_bytes

    async def offload(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn` on the bounded chain pool (RESOURCE_EXHAUSTED when too many calls wait for it)."""
        assert self.chain_pool is not None
        if self._offloaded >= self.max_offloaded:
            raise ResourceExhausted(
                f"{self._offloaded} large-context calls are already waiting for the chain workers "
                f"(limits.max_offloaded); retry with backoff",
                reason="CHAIN_WORKERS_BUSY",
            )
        self._offloaded += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.chain_pool, fn, *args)
        finally:
            self._offloaded -= 1

    async def check_action(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any],
        binary_context: Mapping[str, bytes],
        request_id: str,
        trace_id: str = "",
        wait: bool = True,
        context_bytes: int = 0,
    ) -> Checked:
        """Run the chain. A hitl guardrail that matches makes this wait for a person (or, with
        `wait=False`, return at once with the request pending); an approver's edit re-runs the whole
        chain on the edited context. A large context (`context_bytes`) is checked on the chain pool.
        Unavailable (DECISION_LOG_FULL) while the decision log cannot keep the decision (fail closed)."""
        self.decisions.check_accepting()
        heavy = self.heavy(context_bytes)
        started = time.perf_counter()
        group = self.agents.group_of(agent_id)
        effective: Mapping[str, Any] = context
        approved_edits: set[str] = set()
        approval: Approval | None = None
        standing = self._standing(agent_id, group)
        for _ in range(MAX_EDIT_ROUNDS if standing is None else 0):
            call = self.make_call(agent_id, action, effective, binary_context, group)
            outcome = await self._run_chain(call, request_id, trace_id, wait, approved_edits, heavy)
            approval = outcome.approval or approval
            if outcome.edited is None:
                break
            self._release_permits(outcome.permit_ids)  # the re-run takes its own
            effective = outcome.edited
        else:
            outcome = _Outcome(ChainRun(), approval, standing)
            if standing is None:
                outcome.run.record(
                    approval.guardrail if approval else "",
                    GuardrailResult.blocked("too many edit rounds: the approved edits keep needing approval"),
                )
        verdict = outcome.verdict or outcome.run.verdict()
        if verdict.shadow is None and outcome.run.shadow is not None:  # a pass that ended early (pending)
            verdict = replace(verdict, shadow=outcome.run.shadow)
        decision_id = _new_decision_id()
        if not verdict.allowed:
            # A block is a significant event: one log line, with secrets masked out of the context.
            log.info(
                "action blocked",
                extra={
                    "decision_id": decision_id,
                    "agent_id": agent_id,
                    "action": action,
                    "guardrail": verdict.guardrail,
                    "reason": verdict.reason,
                    "context": mask(dict(effective), self.sensitive_keys),
                },
            )
        latency_us = int((time.perf_counter() - started) * 1e6)
        self.decisions.submit(decision_id, agent_id, action, effective, verdict, latency_us, request_id, trace_id)
        permit_id = self._keep_permit(outcome.permit_ids, verdict.allowed)
        result = "allowed" if verdict.allowed else ("pending" if approval and not approval.closed else "blocked")
        self.metrics.decision(result, verdict.guardrail, latency_us / 1e6)
        if verdict.shadow is not None:
            self.metrics.shadow_decision(verdict.shadow.guardrail, verdict.shadow.needs_approval)
        if obs.recording():
            obs.annotate(
                agent_id=agent_id,
                action=action,
                decision_id=decision_id,
                outcome=result,
                allowed=verdict.allowed,
                guardrail=verdict.guardrail,
                shadow=verdict.shadow.describe() if verdict.shadow else None,
                severity=verdict.severity.name,
                reason=verdict.reason,
                warnings=len(verdict.warnings),
                approval_id=approval.approval_id if approval else None,
                request_id=request_id,
            )
        return Checked(
            verdict, decision_id, approval, effective if effective is not context else None, permit_id=permit_id
        )

    def make_call(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any],
        binary_context: Mapping[str, bytes],
        group: str | None,
    ) -> ActionCall:
        """The call as the chain sees it: with the agent's labels and capabilities and the clock's time, which
        conditions (`when:`) read. CheckAction and ExplainAction build it here, so both see the same."""
        profile = self.agents.profile_of(agent_id)
        if profile is None:
            return ActionCall(agent_id, action, context, binary_context, group, time=self.clock.utcnow())
        return ActionCall(
            agent_id,
            action,
            context,
            binary_context,
            group,
            labels=profile.labels,
            capabilities=profile.capabilities,
            time=self.clock.utcnow(),
        )

    def _standing(self, agent_id: str, group: str | None) -> Verdict | None:
        """Before the chain (in memory, no I/O): a killed agent, a quarantined one, or an unregistered one when
        registration is required, is blocked whatever the chain would say."""
        contained = self.agents.containment_of(agent_id)
        if contained is not None and contained.standing is Standing.TERMINATED:
            reason = f"agent {agent_id!r} was killed ({contained.kill_id}); an operator must reinstate it"
            return Verdict(False, reason, Severity.BLOCK, KILL_SWITCH, ())
        if contained is not None:
            reason = f"agent {agent_id!r} was ejected and is quarantined until an operator places it in a group"
            return Verdict(False, reason, Severity.BLOCK, QUARANTINE, ())
        if group is None and self.agents.settings.require_registration:
            reason = f"agent {agent_id!r} is not registered (agents.require_registration is on)"
            return Verdict(False, reason, Severity.BLOCK, REGISTRATION, ())
        return None

    async def _run_chain(
        self,
        call: ActionCall,
        request_id: str,
        trace_id: str,
        wait: bool,
        approved_edits: set[str],
        heavy: bool = False,
    ) -> _Outcome:
        checking = _Checking(self, call, request_id, trace_id, wait, approved_edits, heavy)
        try:
            walked = await walk(self.chain.order, call, self.clock.monotonic(), checking, self.assess_level)
        except StorageUnavailable:  # an approval that could not be stored in time: no decision, no permit kept
            self._release_permits(checking.out.permit_ids)
            raise
        out = checking.out
        out.run = walked.run
        return out

    def _keep_permit(self, permit_ids: list[str], allowed: bool) -> str:
        """The permit returned with an allowed decision; a blocked call will not run, so its permits go back."""
        keep = permit_ids[-1] if allowed and permit_ids else ""
        self._release_permits([p for p in permit_ids if p != keep])
        return keep

    def _release_permits(self, permit_ids: list[str]) -> None:
        for permit_id in permit_ids:
            self.release_permit(permit_id)

    async def ask_human(
        self,
        hitl: Hitl,
        call: ActionCall,
        request_id: str,
        trace_id: str,
        wait: bool,
        approved_edits: set[str],
        run: ChainRun,
    ) -> Asked:
        """A `hitl` guardrail's turn in the walk: an approval request made (or re-attached by `request_id`), and
        waited for when `wait`; an edit the reviewer already approved passes without a second request."""
        digest = approval_digest(call.action, call.context)
        if digest in approved_edits and not hitl.policy.edits_require_approval:
            return Asked(result=GuardrailResult.allow("Approved as edited by the reviewer"))
        # Group-committed: a burst of requests is written in a few transactions, off the event loop. While
        # storage is unreachable the ask is retried within the call's deadline (then UNAVAILABLE).
        warnings = run.warnings + hitl.note(call)
        approval = await retry_storage(
            lambda: self.approvals.request_async(call, hitl, request_id, trace_id, warnings, digest)
        )
        obs.approval_event(approval, "approval.created")
        if not approval.closed:
            if not wait:
                obs.approval_event(approval, "approval.pending")
                pending = Verdict(False, rules.block_reason(approval), Severity.BLOCK, hitl.name, run.warnings)
                return Asked(approval, pending=pending)
            # The waiting call keeps only the request's id and version, not the request (its masked context
            # and warnings live in the stored row): thousands of calls wait at once in a burst.
            approval_id, version = approval.approval_id, approval.version
            del approval
            approval = await self.approvals.wait(approval_id, pending_version=version)
            obs.approval_event(approval)
        if approval.state is not ApprovalState.APPROVED:
            return Asked(approval, GuardrailResult.blocked(rules.block_reason(approval)))
        # An approval grants one action: delivered to exactly one call (the waiting one, or the first
        # re-attach after a lost answer); every later identical request is told it was used.
        # A consumption whose commit's answer was lost is found again by the retry (mark_consumed).
        approval_id = approval.approval_id
        if not await retry_storage(lambda: asyncio.to_thread(self.approvals.mark_consumed, approval_id)):
            used = replace(approval, consume_time=approval.consume_time or self.clock.utcnow())
            return Asked(used, GuardrailResult.blocked(rules.block_reason(used)))
        approval = replace(approval, consume_time=self.clock.utcnow())
        if approval.edited_context is not None:
            edited = rules.merge_masked(approval.edited_context, call.context, MASK)
            if approval_digest(call.action, edited) != digest:
                approved_edits.add(approval_digest(call.action, edited))
                return Asked(approval, edited=edited)
        return Asked(approval, GuardrailResult.allow(f"Approved by {approval.decided_by}"))


class _Checking:
    """CheckAction's walk of the chain (walk.py): enforcing guardrails check and take what they take (rate
    counts, permits), a matching hitl guardrail asks a human, shadow guardrails run `shadow_check`; each
    evaluation gets a span when the call is traced; a large context runs on the chain pool."""

    __slots__ = ("approved_edits", "call", "heavy", "out", "request_id", "service", "trace_id", "traced", "wait")

    def __init__(
        self,
        service: CheckActionService,
        call: ActionCall,
        request_id: str,
        trace_id: str,
        wait: bool,
        approved_edits: set[str],
        heavy: bool,
    ) -> None:
        self.service = service
        self.call = call
        self.request_id, self.trace_id, self.wait = request_id, trace_id, wait
        self.approved_edits = approved_edits
        self.heavy = heavy
        self.traced = obs.recording()
        self.out = _Outcome(ChainRun())

    def skips(self, guardrail: Guardrail) -> bool:
        return False

    async def condition(self, guardrail: Guardrail, call: ActionCall) -> GuardrailResult | None:
        if self.heavy:  # a large context is given to CEL on the chain pool
            return cast(GuardrailResult | None, await self.service.offload(gate, guardrail, call))
        return gate(guardrail, call)

    def begin(self, guardrail: Guardrail) -> Span | None:
        return obs.start_guardrail(self.service.tracer, guardrail) if self.traced else None

    async def ask(
        self, hitl: Hitl, call: ActionCall, run: ChainRun, token: Span | None
    ) -> tuple[GuardrailResult | None, bool]:
        if token is None:  # untraced: no span, and no context manager held by every waiting call
            asked = await self.service.ask_human(
                hitl, call, self.request_id, self.trace_id, self.wait, self.approved_edits, run
            )
        else:
            with obs.approval_wait(self.service.tracer, token):
                asked = await self.service.ask_human(
                    hitl, call, self.request_id, self.trace_id, self.wait, self.approved_edits, run
                )
        out = self.out
        out.approval = asked.approval or out.approval
        if asked.result is None:  # pending (non-blocking) or re-run on an edited context
            out.verdict, out.edited = asked.pending, asked.edited
            return None, True
        return asked.result, False

    async def answer(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        service = self.service
        shadow = guardrail.shadow
        if guardrail.needs_isolation:
            fn = guardrail.shadow_check if shadow else guardrail.check
            return await isolated(service.plugin_executor, fn, guardrail, call, now)
        if shadow:
            return (
                await service.offload(guardrail.shadow_check, call, now)
                if self.heavy
                else guardrail.shadow_check(call, now)
            )
        if guardrail.is_async:
            return await guardrail.check_async(call, now)
        if self.heavy:
            return cast(GuardrailResult, await service.offload(guardrail.check, call, now))
        return guardrail.check(call, now)

    def end(
        self, token: Span | None, guardrail: Guardrail, result: GuardrailResult | None, error: str, asks: bool
    ) -> None:
        if result is None:  # the walk ends at a pending request or an edit to re-run
            obs.end_guardrail(token, pending=self.out.edited is None)
            return
        if error:
            obs.end_guardrail(token, error=error)
            what = "shadow guardrail raised" if guardrail.shadow else "guardrail raised"
            log.warning(what, extra={"guardrail": guardrail.name, "error": error})
            return
        if token is not None:
            obs.end_guardrail(token, result)
        if guardrail.shadow:
            return
        if result.permit_id:
            self.out.permit_ids.append(result.permit_id)
        if result.severity is Severity.WARNING:
            call = self.call
            log.info(
                "guardrail warning",
                extra={
                    "guardrail": guardrail.name,
                    "agent_id": call.agent_id,
                    "action": call.action,
                    "reason": result.reason,
                },
            )

    def cancelled(self, token: Span | None) -> None:
        obs.end_guardrail(token, cancelled=True)

    def passed_over(self, guardrail: Guardrail) -> None:
        pass


def _give_back(held: dict[str, int], agent_id: str) -> None:
    """One of the agent's counted slots back; the entry goes at zero (the dicts stay as small as the
    number of agents with something open)."""
    left = held.get(agent_id, 1) - 1
    if left > 0:
        held[agent_id] = left
    else:
        held.pop(agent_id, None)
