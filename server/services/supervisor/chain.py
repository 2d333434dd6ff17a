"""SupervisorService use cases: the guardrail chain (check, add, remove, list, reload)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, cast

from server.domain.agents import validate_id
from server.domain.approvals import requests as rules
from server.domain.approvals.requests import Approval, ApprovalState, approval_digest
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, OutriderError
from server.domain.guardrails import (
    ActionCall,
    ChainRun,
    Guardrail,
    GuardrailResult,
    GuardrailSpec,
    Severity,
    Verdict,
    build_guardrail,
    evaluation_order,
)
from server.domain.guardrails.deps import GuardrailDeps
from server.domain.guardrails.hitl import DEFAULT_NAME as DEFAULT_HITL_NAME
from server.domain.guardrails.hitl import Hitl
from server.domain.guardrails.plugin import PluginLoader
from server.domain.guardrails.policy import build_specs, parse_guardrails
from server.domain.masking import MASK, mask
from server.services import observability as obs
from server.services.approvals.requests import ApprovalService
from server.services.ports import AuditSink, Clock, GuardrailRepository, PolicySource
from server.services.recovery.agents import AgentService
from server.services.supervisor.decision_log import DecisionLog
from server.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

MAX_ACTION = 1024
# An approver's edit re-runs the chain; an edit that needs approval again may re-run it again.
MAX_EDIT_ROUNDS = 4


_ID_PREFIX = secrets.token_hex(8)
_ID_COUNTER = itertools.count(1)


def _new_decision_id() -> str:
    """32 hex characters: a random per-process prefix and a counter, unique without a syscall per call
    (uuid4's os.urandom releases and re-takes the GIL on the hot path)."""
    return f"{_ID_PREFIX}{next(_ID_COUNTER):016x}"


@dataclass(frozen=True, slots=True)
class Checked:
    verdict: Verdict
    decision_id: str
    approval: Approval | None = None
    # The context finally checked, when an approver edited it (None: the agent's own).
    effective_context: Mapping[str, Any] | None = None
    permit_id: str = ""


@dataclass
class _Outcome:
    """One pass over the chain."""

    run: ChainRun
    approval: Approval | None = None
    verdict: Verdict | None = None  # set when the pass ends early with a pending approval
    edited: Mapping[str, Any] | None = None  # set when an approver's edit must re-run the chain
    permit_ids: list[str] = field(default_factory=list)  # circuit-breaker permits the `breaker` kind took


class SupervisorService:
    def __init__(
        self,
        agents: AgentService,
        repo: GuardrailRepository,
        decisions: DecisionLog,
        policy: PolicySource | None,
        clock: Clock,
        load_plugin: PluginLoader,
        plugin_executor: Executor,
        max_context_bytes: int,
        audit: AuditSink,
        sensitive_keys: tuple[str, ...] = (),
        approvals: ApprovalService | None = None,
        assess_level: Callable[[str, dict[str, Any]], str] | None = None,
        guardrail_deps: GuardrailDeps | None = None,
        tracer: obs.Tracer = obs.NO_TRACER,
        metrics: Metrics | None = None,
    ) -> None:
        # Spans per guardrail and for approval waits (when the CheckAction span records), and metrics.
        self.tracer = tracer
        self.metrics = metrics or Metrics()
        # Services the `breaker` and `budget` kinds call at check time.
        self.guardrail_deps = guardrail_deps
        self.audit = audit
        self.sensitive_keys = sensitive_keys
        self.approvals = approvals
        # The reversibility level of an action (SafeguardService), for hitl's `reversibility: true`.
        self.assess_level = assess_level
        self.agents = agents
        self.repo = repo
        self.decisions = decisions
        self.policy = policy
        self.clock = clock
        self.load_plugin = load_plugin
        self.plugin_executor = plugin_executor
        self.max_context_bytes = max_context_bytes
        self._lock = threading.Lock()
        self._stored: list[Guardrail] = []  # chain order, as stored
        self._order: tuple[Guardrail, ...] = ()  # evaluation order, swapped whole
        self._version = -1  # the stored chain version this process runs
        # Other sections of the policy file (recovery, reversibility): each hook parses its section and
        # returns the function that applies it, so a reload is all or nothing.
        self.reload_hooks: list[Callable[[], Callable[[], None]]] = []

    # ---- the chain -------------------------------------------------------------------------

    def load(self) -> None:
        """At start-up: the stored chain, unless the policy file changed since it was applied."""
        specs, stored_digest = self.repo.load()
        if self.policy is not None:
            raw, file_digest = self.policy.read()
            if file_digest != stored_digest:
                chain = self._parse_policy(raw)
                self._swap(chain, policy_digest=file_digest)
                self.audit.record(
                    "system",
                    "policy.apply",
                    self.policy.path,
                    {"digest": file_digest, "guardrails": [g.spec.as_dict() for g in chain]},
                )
                log.info("policy applied from file", extra={"path": self.policy.path, "guardrails": len(chain)})
                return
        with self._lock:
            self._stored = build_specs(specs, self.load_plugin, deps=self.guardrail_deps)
            self._order = evaluation_order(self._stored)
        log.info("guardrail chain loaded from storage", extra={"guardrails": len(specs)})

    def reload(self, actor: str = "system") -> tuple[int, str]:
        """Replace the chain with the policy file's; on any error the old chain stays."""
        if self.policy is None:
            raise FailedPrecondition("no policy file is configured; start the sidecar with --config FILE")
        raw, file_digest = self.policy.read()
        chain = self._parse_policy(raw)
        # Every section is parsed before anything changes: an error anywhere keeps all of the old policy.
        apply_sections = [prepare() for prepare in self.reload_hooks]
        self._swap(chain, policy_digest=file_digest)
        for apply in apply_sections:
            apply()
        self.audit.record(
            actor,
            "policy.reload",
            self.policy.path,
            {"digest": file_digest, "guardrails": [g.spec.as_dict() for g in chain]},
        )
        log.info("policy reloaded", extra={"path": self.policy.path, "guardrails": len(chain)})
        return len(chain), self.policy.path

    def _parse_policy(self, raw: Any) -> list[Guardrail]:
        assert self.policy is not None
        try:
            return parse_guardrails(raw, self.load_plugin, deps=self.guardrail_deps)
        except OutriderError as exc:
            raise type(exc)(f"{self.policy.path}: {exc.message}", reason=exc.reason, field=exc.field) from exc

    def _swap(self, chain: list[Guardrail], policy_digest: str | None = None) -> None:
        with self._lock:
            self._persist(chain, policy_digest)

    def _persist(self, chain: list[Guardrail], policy_digest: str | None) -> None:
        # Caller holds the lock. Storage first: a change is acknowledged only once it is durable.
        path = self.policy.path if self.policy else ""
        self._version = self.repo.replace([g.spec for g in chain], policy_digest, path)
        self._stored = chain
        self._order = evaluation_order(chain)

    def refresh(self) -> bool:
        """Pick up a chain changed by another process (a separate console, another sidecar on the same
        PostgreSQL): one tiny read when nothing changed. True when the chain was reloaded."""
        version = self.repo.version()
        if version == self._version:
            return False
        specs, _ = self.repo.load()
        chain = build_specs(specs, self.load_plugin, deps=self.guardrail_deps)
        with self._lock:
            self._stored, self._order, self._version = chain, evaluation_order(chain), version
        log.info("guardrail chain reloaded from storage", extra={"guardrails": len(chain), "version": version})
        return True

    def add_guardrail(
        self, name: str, kind: str, options: Mapping[str, Any], actor: str = "system"
    ) -> tuple[GuardrailSpec, int]:
        if kind == Hitl.kind and not name:
            name = DEFAULT_HITL_NAME
        guardrail = build_guardrail(
            GuardrailSpec(name, kind, dict(options), "runtime"), self.load_plugin, deps=self.guardrail_deps
        )
        with self._lock:
            self._persist([*self._stored, guardrail], None)
            position = self._order.index(guardrail)
        self.audit.record(actor, "guardrail.add", name, {**guardrail.spec.as_dict(), "position": position})
        return guardrail.spec, position

    def remove_guardrail(self, name: str, actor: str = "system") -> int:
        if not name:
            raise InvalidArgument("name is required", field="name")
        with self._lock:
            matching = [g for g in self._stored if g.name == name]
            if not matching:
                raise NotFound(f"no guardrail is named {name!r}", field="name")
            if any(g.runs_first for g in matching):
                raise FailedPrecondition(
                    f"guardrail {name!r} is a trust_root: it can only be changed in the policy file",
                    reason="TRUST_ROOT_IMMUTABLE",
                )
            self._persist([g for g in self._stored if g.name != name], None)
        self.audit.record(actor, "guardrail.remove", name, {"removed": len(matching)})
        return len(matching)

    def change_approval_pattern(self, guardrail: str, pattern: str, add: bool, actor: str = "system") -> list[str]:
        """Add or remove a pattern of every hitl guardrail named `guardrail` (persisted)."""
        name = guardrail or DEFAULT_HITL_NAME
        if not pattern:
            raise InvalidArgument("pattern is required", field="pattern")
        with self._lock:
            targets = [g for g in self._stored if g.name == name and isinstance(g, Hitl)]
            if not targets:
                raise NotFound(f"no hitl guardrail is named {name!r}", field="guardrail")
            patterns = list(targets[0].patterns)
            if add and pattern not in patterns:
                patterns.append(pattern)
            elif not add:
                if pattern not in patterns:
                    raise NotFound(f"hitl guardrail {name!r} has no pattern {pattern!r}", field="pattern")
                patterns.remove(pattern)
            chain: list[Guardrail] = [g.with_patterns(tuple(patterns)) if g in targets else g for g in self._stored]
            self._persist(chain, None)
        self.audit.record(
            actor,
            "approval_pattern.add" if add else "approval_pattern.remove",
            name,
            {"pattern": pattern, "patterns": patterns},
        )
        return patterns

    def list_guardrails(self) -> list[GuardrailSpec]:
        return [g.spec for g in self._order]

    # ---- the hot path ----------------------------------------------------------------------

    def validate_check(self, agent_id: str, action: str, context_bytes: int) -> None:
        validate_id(agent_id, "agent_id")
        if not action:
            raise InvalidArgument("action is required", field="action")
        if len(action) > MAX_ACTION:
            raise InvalidArgument(f"action must be at most {MAX_ACTION} characters", field="action")
        if context_bytes > self.max_context_bytes:
            raise InvalidArgument(
                f"context is {context_bytes} bytes, over the limit of {self.max_context_bytes}", field="context"
            )

    async def check_action(
        self,
        agent_id: str,
        action: str,
        context: Mapping[str, Any],
        binary_context: Mapping[str, bytes],
        request_id: str,
        trace_id: str = "",
        wait: bool = True,
    ) -> Checked:
        """Run the chain. A hitl guardrail that matches makes this wait for a person (or, with
        `wait=False`, return at once with the request pending); an approver's edit re-runs the whole
        chain on the edited context."""
        started = time.perf_counter()
        group = self.agents.group_of(agent_id)
        effective: Mapping[str, Any] = context
        approved_edits: set[str] = set()
        approval: Approval | None = None
        for _ in range(MAX_EDIT_ROUNDS):
            call = ActionCall(agent_id, action, effective, binary_context, group)
            outcome = await self._run_chain(call, request_id, trace_id, wait, approved_edits)
            approval = outcome.approval or approval
            if outcome.edited is None:
                break
            self._release_permits(outcome.permit_ids)  # the re-run takes its own
            effective = outcome.edited
        else:
            outcome = _Outcome(ChainRun(), approval)
            outcome.run.record(
                approval.guardrail if approval else "",
                GuardrailResult.blocked("too many edit rounds: the approved edits keep needing approval"),
            )
        verdict = outcome.verdict or outcome.run.verdict()
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
        if obs.recording():
            obs.annotate(
                agent_id=agent_id,
                action=action,
                decision_id=decision_id,
                outcome=result,
                allowed=verdict.allowed,
                guardrail=verdict.guardrail,
                severity=verdict.severity.name,
                reason=verdict.reason,
                warnings=len(verdict.warnings),
                approval_id=approval.approval_id if approval else None,
                request_id=request_id,
            )
        return Checked(
            verdict, decision_id, approval, effective if effective is not context else None, permit_id=permit_id
        )

    async def _run_chain(
        self, call: ActionCall, request_id: str, trace_id: str, wait: bool, approved_edits: set[str]
    ) -> _Outcome:
        now = self.clock.monotonic()
        out = _Outcome(ChainRun())
        run = out.run
        traced = obs.recording()
        for guardrail in self._order:
            span = obs.start_guardrail(self.tracer, guardrail) if traced else None
            try:
                if guardrail.needs_approval and self._needs_approval(guardrail, call):
                    with obs.approval_wait(self.tracer, span):
                        result = await self._ask(guardrail, call, request_id, trace_id, wait, approved_edits, out)
                    if result is None:  # pending (non-blocking) or re-run on an edited context
                        obs.end_guardrail(span, pending=out.edited is None)
                        return out
                elif guardrail.needs_isolation:
                    result = await self._isolated(guardrail, call, now)
                else:
                    result = guardrail.check(call, now)
            except Exception as exc:
                message = str(exc) or type(exc).__name__
                obs.end_guardrail(span, error=message)
                log.warning("guardrail raised", extra={"guardrail": guardrail.name, "error": message})
                if run.record_error(guardrail.name, message):
                    break
                continue
            except BaseException:  # cancelled: the agent went away (its span still ends)
                obs.end_guardrail(span, cancelled=True)
                raise
            obs.end_guardrail(span, result)
            if result.severity is Severity.WARNING:
                log.info(
                    "guardrail warning",
                    extra={
                        "guardrail": guardrail.name,
                        "agent_id": call.agent_id,
                        "action": call.action,
                        "reason": result.reason,
                    },
                )
            if result.permit_id:
                out.permit_ids.append(result.permit_id)
            if run.record(guardrail.name, result):
                break
        return out

    def _keep_permit(self, permit_ids: list[str], allowed: bool) -> str:
        """The permit returned with an allowed decision; a blocked call will not run, so its permits go back."""
        keep = permit_ids[-1] if allowed and permit_ids else ""
        self._release_permits([p for p in permit_ids if p != keep])
        return keep

    def _release_permits(self, permit_ids: list[str]) -> None:
        breakers = self.guardrail_deps.breakers if self.guardrail_deps else None
        for permit_id in permit_ids:
            if breakers is not None:
                breakers.release(permit_id)

    def _needs_approval(self, guardrail: Guardrail, call: ActionCall) -> bool:
        hitl = cast(Hitl, guardrail)
        level = self.assess_level(call.action, dict(call.context)) if hitl.reversibility and self.assess_level else None
        return hitl.matches(call.action, level)

    async def _ask(
        self,
        guardrail: Guardrail,
        call: ActionCall,
        request_id: str,
        trace_id: str,
        wait: bool,
        approved_edits: set[str],
        out: _Outcome,
    ) -> GuardrailResult | None:
        hitl = cast(Hitl, guardrail)
        if self.approvals is None:
            raise RuntimeError("human approval is not configured in this process")
        digest = approval_digest(call.action, call.context)
        if digest in approved_edits and not hitl.policy.edits_require_approval:
            return GuardrailResult.allow("Approved as edited by the reviewer")
        approval = await asyncio.to_thread(self.approvals.request, call, hitl, request_id, trace_id, out.run.warnings)
        obs.approval_event(approval, "approval.created")
        if not approval.closed:
            if not wait:
                obs.approval_event(approval, "approval.pending")
                out.approval = approval
                out.verdict = Verdict(False, rules.block_reason(approval), Severity.BLOCK, hitl.name, out.run.warnings)
                return None
            approval = await self.approvals.wait(approval.approval_id)
            obs.approval_event(approval)
        out.approval = approval
        if approval.state is not ApprovalState.APPROVED:
            return GuardrailResult.blocked(rules.block_reason(approval))
        await asyncio.to_thread(self.approvals.mark_consumed, approval.approval_id)
        if approval.edited_context is not None:
            edited = rules.merge_masked(approval.edited_context, call.context, MASK)
            if approval_digest(call.action, edited) != digest:
                approved_edits.add(approval_digest(call.action, edited))
                out.edited = edited
                return None
        return GuardrailResult.allow(f"Approved by {approval.decided_by}")

    async def _isolated(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        """Run user code on a worker thread under the guardrail's time limit."""
        timeout: float = getattr(guardrail, "timeout", 1.0)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.plugin_executor, guardrail.check, call, now)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(f"{guardrail.name} did not answer within {timeout:g}s") from None
