"""SupervisorService use cases: the guardrail chain (check, add, remove, list, reload)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from server.domain.agents import validate_id
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
from server.domain.guardrails.plugin import PluginLoader
from server.domain.masking import mask
from server.domain.policy import build_specs, parse_guardrails

from .agents import AgentService
from .decision_log import DecisionLog
from .ports import AuditSink, Clock, GuardrailRepository, PolicySource

log = logging.getLogger(__name__)

MAX_ACTION = 1024


@dataclass(frozen=True, slots=True)
class Checked:
    verdict: Verdict
    decision_id: str


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
    ) -> None:
        self.audit = audit
        self.sensitive_keys = sensitive_keys
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
            self._stored = build_specs(specs, self.load_plugin)
            self._order = evaluation_order(self._stored)
        log.info("guardrail chain loaded from storage", extra={"guardrails": len(specs)})

    def reload(self, actor: str = "system") -> tuple[int, str]:
        """Replace the chain with the policy file's; on any error the old chain stays."""
        if self.policy is None:
            raise FailedPrecondition("no policy file is configured; start the sidecar with --config FILE")
        raw, file_digest = self.policy.read()
        chain = self._parse_policy(raw)
        self._swap(chain, policy_digest=file_digest)
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
            return parse_guardrails(raw, self.load_plugin)
        except OutriderError as exc:
            raise type(exc)(f"{self.policy.path}: {exc.message}", reason=exc.reason, field=exc.field) from exc

    def _swap(self, chain: list[Guardrail], policy_digest: str | None = None) -> None:
        with self._lock:
            self._persist(chain, policy_digest)

    def _persist(self, chain: list[Guardrail], policy_digest: str | None) -> None:
        # Caller holds the lock. Storage first: a change is acknowledged only once it is durable.
        path = self.policy.path if self.policy else ""
        self.repo.replace([g.spec for g in chain], policy_digest, path)
        self._stored = chain
        self._order = evaluation_order(chain)

    def add_guardrail(
        self, name: str, kind: str, options: Mapping[str, Any], actor: str = "system"
    ) -> tuple[GuardrailSpec, int]:
        guardrail = build_guardrail(GuardrailSpec(name, kind, dict(options), "runtime"), self.load_plugin)
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
    ) -> Checked:
        started = time.perf_counter()
        call = ActionCall(agent_id, action, context, binary_context, self.agents.group_of(agent_id))
        now = self.clock.monotonic()
        run = ChainRun()
        for guardrail in self._order:
            try:
                if guardrail.needs_isolation:
                    result = await self._isolated(guardrail, call, now)
                else:
                    result = guardrail.check(call, now)
            except Exception as exc:
                message = str(exc) or type(exc).__name__
                log.warning("guardrail raised", extra={"guardrail": guardrail.name, "error": message})
                if run.record_error(guardrail.name, message):
                    break
                continue
            if result.severity is Severity.WARNING:
                log.info(
                    "guardrail warning",
                    extra={
                        "guardrail": guardrail.name,
                        "agent_id": agent_id,
                        "action": action,
                        "reason": result.reason,
                    },
                )
            if run.record(guardrail.name, result):
                break
        verdict = run.verdict()
        decision_id = uuid.uuid4().hex
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
                    "context": mask(dict(context), self.sensitive_keys),
                },
            )
        latency_us = int((time.perf_counter() - started) * 1e6)
        self.decisions.submit(decision_id, agent_id, action, context, verdict, latency_us, request_id, trace_id)
        return Checked(verdict, decision_id)

    async def _isolated(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        """Run user code on a worker thread under the guardrail's time limit."""
        timeout: float = getattr(guardrail, "timeout", 1.0)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.plugin_executor, guardrail.check, call, now)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(f"{guardrail.name} did not answer within {timeout:g}s") from None
