"""What every integration shares: one tool call checked by CheckAction, answered in four outcomes.

allowed (with the arguments to run: an approver's edit replaces the model's), blocked (with the reason
the model should read), pending (a person decides; ask again with the same request id), and the
approval's verdict once it is decided (approved arguments, or the reviewer's comment).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from outrider import AsyncClient, CheckResult, Client
from outrider.errors import DeadlineExceededError

Outcome = Literal["allowed", "blocked", "pending"]


@dataclass(frozen=True)
class ToolDecision:
    """CheckAction's answer for one tool call, in the terms a framework needs."""

    outcome: Outcome
    reason: str
    arguments: dict[str, Any]  # what to run: the model's arguments, or the approver's edit
    edited: bool = False
    guardrail: str = ""
    decision_id: str = ""
    approval_id: str = ""
    approval_state: str = ""  # PENDING, APPROVED, REJECTED, EXPIRED, CANCELLED or ""
    warnings: tuple[tuple[str, str], ...] = ()
    request_id: str = ""

    @property
    def allowed(self) -> bool:
        return self.outcome == "allowed"

    @property
    def pending(self) -> bool:
        return self.outcome == "pending"

    @property
    def rejected(self) -> bool:
        """A person said no (the reason carries the reviewer's comment)."""
        return self.outcome == "blocked" and self.approval_state in ("REJECTED", "EXPIRED", "CANCELLED")

    def message(self) -> str:
        """The text the model reads when the tool does not run."""
        if self.pending:
            return f"waiting for human approval {self.approval_id}; call again to continue"
        if self.rejected:
            return self.reason
        who = f" ({self.guardrail})" if self.guardrail else ""
        return f"Blocked by Outrider{who}: {self.reason}"

    def meta(self) -> dict[str, Any]:
        """Outrider's view of the call, for a result's metadata."""
        out: dict[str, Any] = {"decision_id": self.decision_id, "outcome": self.outcome}
        if self.approval_id:
            out["approval_id"] = self.approval_id
            out["approval_state"] = self.approval_state
        if self.warnings:
            out["warnings"] = [{"guardrail": g, "reason": r} for g, r in self.warnings]
        if self.edited:
            out["edited"] = True
        return out


def normalize(value: Any) -> Any:
    """A JSON value as the sidecar hands it back (protobuf Struct numbers are doubles): whole numbers as int."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, int):
        return value
    if isinstance(value, Mapping):
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize(v) for v in value]
    return json.loads(json.dumps(value, default=str))


ContextBuilder = Callable[[str, Mapping[str, Any]], dict[str, Any]]


def arguments_context(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The default checked context: the tool's arguments as they are."""
    return dict(arguments)


_GRANTED_KEPT = 1024


class _Base:
    def __init__(
        self,
        agent_id: str,
        *,
        action: Callable[[str], str] | None = None,
        context: ContextBuilder | None = None,
        reserved: tuple[str, ...] = (),
    ) -> None:
        self.agent_id = agent_id
        self.action = action or (lambda tool: tool)
        self.context = context or arguments_context
        # Keys the context builder adds; stripped from an approver's edit before it becomes arguments.
        self.reserved = reserved
        # An approval grants one action and the sidecar answers "allowed" for it once: a framework that
        # checks the same tool call twice (a pause hook, then an input guardrail) gets that answer again
        # from here instead of "already used". Keyed by request id and context; bounded.
        self._granted: OrderedDict[tuple[str, str], ToolDecision] = OrderedDict()

    def _key(self, request_id: str, context: Mapping[str, Any]) -> tuple[str, str]:
        return request_id, json.dumps(normalize(dict(context)), sort_keys=True, default=str)

    def _recall(self, request_id: str, context: Mapping[str, Any]) -> ToolDecision | None:
        return self._granted.get(self._key(request_id, context)) if request_id else None

    def _remember(self, d: ToolDecision, context: Mapping[str, Any]) -> ToolDecision:
        if d.allowed and d.approval_id and d.request_id:
            self._granted[self._key(d.request_id, context)] = d
            while len(self._granted) > _GRANTED_KEPT:
                self._granted.popitem(last=False)
        return d

    def decision(
        self, r: CheckResult, arguments: Mapping[str, Any], context: Mapping[str, Any], rid: str
    ) -> ToolDecision:
        effective = normalize(r.effective_context) if r.effective_context else normalize(dict(context))
        edited = effective != normalize(dict(context))
        run = {k: v for k, v in effective.items() if k not in self.reserved} if edited else dict(arguments)
        if r.allowed:
            outcome: Outcome = "allowed"
        elif r.pending:
            outcome = "pending"
        else:
            outcome = "blocked"
        return ToolDecision(
            outcome=outcome,
            reason=r.reason,
            arguments=run,
            edited=edited and r.allowed,
            guardrail=r.guardrail,
            decision_id=r.decision_id,
            approval_id=r.approval_id,
            approval_state=str(r.approval_state),
            warnings=tuple((w.guardrail, w.reason) for w in r.warnings),
            request_id=rid,
        )


class AsyncToolGuard(_Base):
    """Checks tool calls for one agent over an `AsyncClient`.

    `check(tool, args, request_id)` never holds the call while a person decides unless `wait` (seconds)
    is given; the same `request_id` later re-attaches to the same approval request.
    """

    def __init__(self, client: AsyncClient, agent_id: str, **kw: Any) -> None:
        super().__init__(agent_id, **kw)
        self.client = client

    async def check(
        self, tool: str, arguments: Mapping[str, Any] | None, request_id: str, *, wait: float = 0.0
    ) -> ToolDecision:
        args = dict(arguments or {})
        context = self.context(tool, args)
        if (granted := self._recall(request_id, context)) is not None:
            return granted
        action = self.action(tool)
        r = await self.client.check_action(self.agent_id, action, context, request_id=request_id, wait=False)
        if r.pending and wait > 0:
            with contextlib.suppress(DeadlineExceededError):  # still pending: the caller answers "call again"
                r = await self.client.check_action(
                    self.agent_id, action, context, request_id=request_id, wait=True, approval_timeout=wait
                )
        return self._remember(self.decision(r, args, context, request_id), context)

    async def wait(
        self, tool: str, arguments: Mapping[str, Any] | None, request_id: str, timeout: float | None = None
    ) -> ToolDecision:
        """Until the approval behind `request_id` is decided (re-attaching, never asking twice)."""
        args = dict(arguments or {})
        context = self.context(tool, args)
        if (granted := self._recall(request_id, context)) is not None:
            return granted
        r = await self.client.check_action(
            self.agent_id, self.action(tool), context, request_id=request_id, wait=True, approval_timeout=timeout
        )
        return self._remember(self.decision(r, args, context, request_id), context)


class ToolGuard(_Base):
    """The synchronous twin of `AsyncToolGuard`, over a `Client`."""

    def __init__(self, client: Client, agent_id: str, **kw: Any) -> None:
        super().__init__(agent_id, **kw)
        self.client = client

    def check(
        self, tool: str, arguments: Mapping[str, Any] | None, request_id: str, *, wait: float = 0.0
    ) -> ToolDecision:
        args = dict(arguments or {})
        context = self.context(tool, args)
        if (granted := self._recall(request_id, context)) is not None:
            return granted
        action = self.action(tool)
        r = self.client.check_action(self.agent_id, action, context, request_id=request_id, wait=False)
        if r.pending and wait > 0:
            with contextlib.suppress(DeadlineExceededError):
                r = self.client.check_action(
                    self.agent_id, action, context, request_id=request_id, wait=True, approval_timeout=wait
                )
        return self._remember(self.decision(r, args, context, request_id), context)

    def wait(
        self, tool: str, arguments: Mapping[str, Any] | None, request_id: str, timeout: float | None = None
    ) -> ToolDecision:
        args = dict(arguments or {})
        context = self.context(tool, args)
        if (granted := self._recall(request_id, context)) is not None:
            return granted
        r = self.client.check_action(
            self.agent_id, self.action(tool), context, request_id=request_id, wait=True, approval_timeout=timeout
        )
        return self._remember(self.decision(r, args, context, request_id), context)


__all__ = ["AsyncToolGuard", "ToolDecision", "ToolGuard", "arguments_context", "normalize"]
