"""SupervisorService over gRPC: translate, delegate to the services, translate back."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind

from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc
from server.domain.agents import Containment, Standing
from server.domain.approvals.requests import Approval, ApprovalFilter, ApprovalState, Reviewer
from server.domain.errors import InvalidArgument, OutriderError, PermissionDenied
from server.domain.guardrails.decisions import DecisionFilter
from server.rpc import convert
from server.rpc.auth import current_principal
from server.rpc.check_stream import answer_stream
from server.rpc.errors import status_code, translate_errors
from server.services.approvals.requests import ApprovalService
from server.services.deadlines import call_deadline
from server.services.idempotency import answer_with
from server.services.observability import NO_TRACER, current_trace_id
from server.services.recovery.agents import AgentService
from server.services.supervisor.chain import ChainStore
from server.services.supervisor.check import CheckActionService
from server.services.supervisor.decision_log import DecisionLog
from server.services.supervisor.explain import ExplainService, Explanation

# grpc ships no type stubs: the servicer context is untyped.
Ctx: TypeAlias = Any
# How often an idle CheckActions stream of an agent looks whether the agent was killed (in memory).
KILL_CHECK_SECONDS = 0.25
# A killed agent's stream answers its requests in flight for at most this long before it ends.
KILL_DRAIN_SECONDS = 10.0


@translate_errors
class SupervisorServicer(pb_grpc.SupervisorServiceServicer):
    def __init__(
        self,
        chain: ChainStore,
        checks: CheckActionService,
        agents: AgentService,
        decisions: DecisionLog,
        approvals: ApprovalService,
        reviewer_for: Callable[[str], Reviewer],
        explain: ExplainService,
        limits: convert.EdgeLimits = convert.DEFAULT_LIMITS,
        reload_policy: Callable[[str], tuple[int, str]] | None = None,
        charge: Callable[[Ctx], None] = lambda context: None,
        fresh: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.limits = limits
        # Before each request of a stream: the caches within their staleness bound (the interceptor does it
        # for a call's start; a stream opened before a pause reads them long after).
        self.fresh = fresh
        # One request of a stream against the caller's rate limit (AuthInterceptor.charge).
        self.charge = charge
        self.chain = chain
        # ReloadPolicy: the fleet's one policy applies the file fleet-wide (server/services/fleet/policy.py).
        self.reload_policy = reload_policy or chain.reload
        self.checks = checks
        self.agents = agents
        self.decisions = decisions
        self.approvals = approvals
        # Who an operator is as a reviewer (a console user of that name lends roles and groups).
        self.reviewer_for = reviewer_for
        self.explain = explain

    # ---- agents ----------------------------------------------------------------------------

    async def RegisterAgent(self, request: pb.RegisterAgentRequest, context: Ctx) -> pb.RegisterAgentResponse:
        a, p = request.agent, current_principal()
        # The idempotency record is written in the record's transaction, with this answer.
        answer_with(
            lambda out: pb.RegisterAgentResponse(agent=convert.agent_to_pb(out[0]), created=out[1]).SerializeToString()
        )
        agent, created = await asyncio.to_thread(
            functools.partial(
                self.agents.register,
                a.agent_id,
                a.group,
                list(a.capabilities),
                dict(a.labels),
                by_agent=not p.is_operator,
                actor=p.label,
            )
        )
        return pb.RegisterAgentResponse(agent=convert.agent_to_pb(agent), created=created)

    async def DeregisterAgent(self, request: pb.DeregisterAgentRequest, context: Ctx) -> pb.DeregisterAgentResponse:
        answer_with(lambda _: pb.DeregisterAgentResponse().SerializeToString())  # written with the removal
        await asyncio.to_thread(self.agents.deregister, request.agent_id, current_principal().label)
        return pb.DeregisterAgentResponse()

    async def GetAgent(self, request: pb.GetAgentRequest, context: Ctx) -> pb.GetAgentResponse:
        agent = await asyncio.to_thread(self.agents.get, request.agent_id)
        return pb.GetAgentResponse(agent=convert.agent_to_pb(agent))

    async def ListAgents(self, request: pb.ListAgentsRequest, context: Ctx) -> pb.ListAgentsResponse:
        page = await asyncio.to_thread(self.agents.list, request.group, request.page_size, request.page_token)
        return pb.ListAgentsResponse(
            agents=[convert.agent_to_pb(a) for a in page.items], next_page_token=page.next_page_token
        )

    # ---- the chain -------------------------------------------------------------------------

    async def CheckAction(self, request: pb.CheckActionRequest, context: Ctx) -> pb.CheckActionResponse:
        answer = pb.CheckActionResponse()
        with call_deadline(context.time_remaining()):  # how long an approval may wait for storage
            await self._decide(request, answer)
        return answer

    async def CheckActions(
        self, request_iterator: AsyncIterator[pb.CheckActionsRequest], context: Ctx
    ) -> AsyncIterator[pb.CheckActionsResponse]:
        deciding = [0]  # requests of this stream in flight

        async def decide(message: pb.CheckActionsRequest, answer: pb.CheckActionResponse) -> None:
            deciding[0] += 1
            with self._decision_span(message) as span:
                try:
                    if self.fresh is not None:
                        await self.fresh()
                    self.charge(context)  # every request counts against the credential's rate limit
                    with call_deadline(context.time_remaining()):  # the stream's deadline, if any
                        await self._decide(message.check, answer)
                except OutriderError as exc:
                    if span.is_recording():
                        span.set_attributes(
                            {"rpc.grpc.status_code": status_code(exc).value[0], "outrider.error.reason": exc.reason}
                        )
                    raise
                finally:
                    deciding[0] -= 1

        p = current_principal()
        agent = "" if p.is_operator else p.subject
        if agent:  # operators' streams are not capped (as their unary calls are not)
            self.checks.admit_stream(agent)
        try:
            # An agent's own stream ends when the agent is killed (its answers so far delivered).
            opened = self.agents.containment_of(agent) if agent else None
            loop = asyncio.get_running_loop()
            answered = [loop.time()]  # when the last answer went out
            answers = answer_stream(
                request_iterator,
                decide,
                self.checks.max_inflight_per_agent,
                functools.partial(self._until_killed, agent, opened, lambda: deciding[0] > 0, answered)
                if agent
                else None,
            )
            async for answer in answers:
                yield answer
                answered[0] = loop.time()
        finally:
            if agent:
                self.checks.release_stream(agent)

    async def _until_killed(
        self, agent_id: str, opened: Containment | None, busy: Callable[[], bool], answered: list[float]
    ) -> None:
        """Raises once `agent_id` is killed after the stream opened (on any sidecar: the standing follows the
        `agents` topic), looking (in memory) whenever no answer went out for KILL_CHECK_SECONDS. The requests
        in flight are answered first (the kill cancels their approvals: BLOCK), for at most
        KILL_DRAIN_SECONDS; then the stream ends PERMISSION_DENIED AGENT_TERMINATED. A stream opened by an
        agent already killed keeps answering BLOCK. A task beside the stream, not a timed wait per answer:
        that cost more than the rest of the stream's own work per answer."""
        loop = asyncio.get_running_loop()
        killed_at: float | None = None
        looked = 0.0
        while True:
            # Next look: KILL_CHECK_SECONDS after the last answer or the last look, whichever is later.
            await asyncio.sleep(max(0.0, max(answered[0], looked) + KILL_CHECK_SECONDS - loop.time()))
            if loop.time() - max(answered[0], looked) < KILL_CHECK_SECONDS:
                continue  # an answer went out meanwhile
            looked = loop.time()
            now = self.agents.containment_of(agent_id)
            if now is None or now == opened or now.standing is not Standing.TERMINATED:
                continue
            killed_at = loop.time() if killed_at is None else killed_at
            if not busy() or loop.time() - killed_at >= KILL_DRAIN_SECONDS:
                raise PermissionDenied(
                    f"agent {agent_id!r} was killed ({now.kill_id}); its credentials are refused until "
                    "an operator reinstates it",
                    reason="AGENT_TERMINATED",
                )

    def _decision_span(self, message: pb.CheckActionsRequest) -> Any:
        """One span per decision: a child of the request's own `traceparent` when it carries a valid one,
        else of the stream's span. Without tracing and without a traceparent, that no-op span would be the
        current one unchanged: it is not made (a few µs per decision)."""
        if self.checks.tracer is NO_TRACER and not message.traceparent:
            return contextlib.nullcontext(trace.get_current_span())
        parent = propagate.extract({"traceparent": message.traceparent}) if message.traceparent else None
        if parent is not None and not trace.get_current_span(parent).get_span_context().is_valid:
            parent = None
        return self.checks.tracer.start_as_current_span(
            "outrider.v1.SupervisorService/CheckActions.decision",
            context=parent,
            kind=SpanKind.SERVER if parent is not None else SpanKind.INTERNAL,
            attributes={
                "rpc.system": "grpc",
                "rpc.service": "outrider.v1.SupervisorService",
                "rpc.method": "CheckActions",
                "outrider.stream.request_id": message.id,
            },
            record_exception=False,
            set_status_on_exception=False,
        )

    def _accept(self, request: pb.CheckActionRequest | pb.ExplainActionRequest) -> tuple[str, dict[str, bytes], int]:
        """The one validation and canonicalisation step of CheckAction, CheckActions and ExplainAction, under
        the configured limits: the canonical action (`actions.*`), the binary context and the size of both
        contexts, checked before converting so an oversized context costs no parsing (`context` and
        `binary_context` count together against one limit)."""
        binary = dict(request.binary_context)
        size = request.context.ByteSize() + sum(len(k) + len(v) for k, v in binary.items())
        action = self.limits.canonical_action(request.action)
        self.checks.validate_check(request.agent_id, action, size)
        return action, binary, size

    async def _context(self, request: pb.CheckActionRequest | pb.ExplainActionRequest, size: int) -> dict[str, Any]:
        """The context as a dict under `server.max_context_depth` and `server.max_string_length`; a large
        one converts off the event loop."""
        if self.checks.heavy(size):
            ctx: dict[str, Any] = await self.checks.offload(
                convert.struct_to_dict, request.context, "context", self.limits
            )
            return ctx
        return convert.struct_to_dict(request.context, "context", self.limits)

    async def _decide(self, request: pb.CheckActionRequest, answer: pb.CheckActionResponse) -> None:
        """Decides `request` and writes the answer into `answer` (an empty response; a stream's own, so the
        answer is not copied into the stream's message)."""
        action, binary, size = self._accept(request)
        self.checks.admit(request.agent_id)
        try:
            ctx = await self._context(request, size)
            checked = await self.checks.check_action(
                request.agent_id,
                action,
                ctx,
                binary,
                request.request_id,
                trace_id=current_trace_id(),  # the agent's trace when it sent a traceparent (stored with the decision)
                wait=request.wait_mode != pb.WAIT_MODE_NON_BLOCKING,
                context_bytes=size,
            )
        finally:
            self.checks.release(request.agent_id)
        v = checked.verdict
        answer.allowed = v.allowed
        answer.reason = v.reason
        answer.severity = int(v.severity)  # type: ignore[assignment]
        answer.guardrail = v.guardrail
        answer.decision_id = checked.decision_id
        if v.warnings:
            answer.warnings.extend(convert.warnings_to_pb(v.warnings))
        if checked.approval:
            answer.approval.CopyFrom(convert.approval_to_pb(checked.approval))
        if checked.effective_context is not None:
            answer.effective_context.CopyFrom(convert.dict_to_struct(checked.effective_context))
        else:
            answer.effective_context.CopyFrom(request.context)
        answer.permit_id = checked.permit_id

    async def ExplainAction(self, request: pb.ExplainActionRequest, context: Ctx) -> pb.ExplainActionResponse:
        p = current_principal()
        self.explain.admit(by_agent=not p.is_operator)
        action, binary, size = self._accept(request)  # exactly what CheckAction accepts
        ctx = await self._context(request, size)
        explained = await self.explain.explain(request.agent_id, action, ctx, binary, context_bytes=size)
        if not p.is_operator:
            await asyncio.to_thread(self.explain.record, p.label, request.agent_id, action, explained)
        return explanation_to_pb(explained)

    async def AddGuardrail(self, request: pb.AddGuardrailRequest, context: Ctx) -> pb.AddGuardrailResponse:
        g = request.guardrail
        # The idempotency record is written with the chain, with this answer (a retry adds nothing).
        answer_with(
            lambda out: pb.AddGuardrailResponse(
                guardrail=convert.guardrail_to_pb(out[0]), position=out[1]
            ).SerializeToString()
        )
        spec, position = await asyncio.to_thread(
            self.chain.add_guardrail,
            g.name,
            g.kind,
            convert.struct_to_dict(g.options, "guardrail.options", self.limits),
            current_principal().label,
        )
        return pb.AddGuardrailResponse(guardrail=convert.guardrail_to_pb(spec), position=position)

    async def RemoveGuardrail(self, request: pb.RemoveGuardrailRequest, context: Ctx) -> pb.RemoveGuardrailResponse:
        answer_with(lambda n: pb.RemoveGuardrailResponse(removed_count=n).SerializeToString())
        removed = await asyncio.to_thread(self.chain.remove_guardrail, request.name, current_principal().label)
        return pb.RemoveGuardrailResponse(removed_count=removed)

    async def ListGuardrails(self, request: pb.ListGuardrailsRequest, context: Ctx) -> pb.ListGuardrailsResponse:
        return pb.ListGuardrailsResponse(guardrails=[convert.guardrail_to_pb(s) for s in self.chain.list_guardrails()])

    async def ReloadPolicy(self, request: pb.ReloadPolicyRequest, context: Ctx) -> pb.ReloadPolicyResponse:
        count, source = await asyncio.to_thread(self.reload_policy, current_principal().label)
        return pb.ReloadPolicyResponse(guardrail_count=count, source=source)

    async def ListDecisions(self, request: pb.ListDecisionsRequest, context: Ctx) -> pb.ListDecisionsResponse:
        flt = DecisionFilter(
            agent_id=request.agent_id,
            action=request.action,
            outcome=request.outcome,
            guardrail=request.guardrail,
            start_time=convert.from_timestamp(request.start_time, request.HasField("start_time")),
            end_time=convert.from_timestamp(request.end_time, request.HasField("end_time")),
            shadow_outcome=request.shadow_outcome,
            shadow_guardrail=request.shadow_guardrail,
        )
        page = await asyncio.to_thread(self.decisions.list, flt, request.page_size, request.page_token)
        return pb.ListDecisionsResponse(
            decisions=[convert.decision_to_pb(d) for d in page.items], next_page_token=page.next_page_token
        )

    # ---- approvals --------------------------------------------------------------------------

    def _owned(self, approval: Approval) -> Approval:
        p = current_principal()
        if not p.is_operator and approval.agent_id != p.subject:
            raise PermissionDenied(f"approval {approval.approval_id} belongs to another agent", reason="NOT_YOUR_AGENT")
        return approval

    async def GetApproval(self, request: pb.GetApprovalRequest, context: Ctx) -> pb.GetApprovalResponse:
        approval = self._owned(await asyncio.to_thread(self.approvals.get, request.approval_id))
        return pb.GetApprovalResponse(approval=convert.approval_to_pb(approval))

    async def WatchApproval(
        self, request: pb.WatchApprovalRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchApprovalResponse]:
        approval = self._owned(await asyncio.to_thread(self.approvals.get, request.approval_id))
        yield pb.WatchApprovalResponse(approval=convert.approval_to_pb(approval))
        while not approval.closed:
            approval = await self.approvals.wait_change(approval.approval_id, approval.version)
            yield pb.WatchApprovalResponse(approval=convert.approval_to_pb(approval))

    async def ListApprovals(self, request: pb.ListApprovalsRequest, context: Ctx) -> pb.ListApprovalsResponse:
        try:
            state = ApprovalState(request.state) if request.state else None
        except ValueError:
            raise InvalidArgument(f"unknown approval state {request.state}", field="state") from None
        flt = ApprovalFilter(
            agent_id=request.agent_id,
            action=request.action,
            state=state,
            reviewer=request.reviewer,
            start_time=convert.from_timestamp(request.start_time, request.HasField("start_time")),
            end_time=convert.from_timestamp(request.end_time, request.HasField("end_time")),
        )
        page = await asyncio.to_thread(self.approvals.list, flt, request.page_size, request.page_token)
        return pb.ListApprovalsResponse(
            approvals=[convert.approval_to_pb(a) for a in page.items], next_page_token=page.next_page_token
        )

    async def DecideApproval(self, request: pb.DecideApprovalRequest, context: Ctx) -> pb.DecideApprovalResponse:
        p = current_principal()  # an operator: the access rule refuses agents
        reviewer = self.reviewer_for(p.subject)
        edited = (
            convert.struct_to_dict(request.edited_context, "edited_context", self.limits)
            if request.HasField("edited_context")
            else None
        )
        # The idempotency record is written in the transaction of the decision, with this answer.
        answer_with(lambda a: pb.DecideApprovalResponse(approval=convert.approval_to_pb(a)).SerializeToString())
        approval = await asyncio.to_thread(
            self.approvals.decide, request.approval_id, reviewer, request.approve, request.comment, edited
        )
        return pb.DecideApprovalResponse(approval=convert.approval_to_pb(approval))

    async def CancelApproval(self, request: pb.CancelApprovalRequest, context: Ctx) -> pb.CancelApprovalResponse:
        self._owned(await asyncio.to_thread(self.approvals.get, request.approval_id))
        answer_with(lambda a: pb.CancelApprovalResponse(approval=convert.approval_to_pb(a)).SerializeToString())
        approval = await asyncio.to_thread(
            self.approvals.cancel, request.approval_id, current_principal().label, request.reason
        )
        return pb.CancelApprovalResponse(approval=convert.approval_to_pb(approval))

    async def AddApprovalPattern(
        self, request: pb.AddApprovalPatternRequest, context: Ctx
    ) -> pb.AddApprovalPatternResponse:
        answer_with(lambda ps: pb.AddApprovalPatternResponse(patterns=ps).SerializeToString())
        patterns = await asyncio.to_thread(
            self.chain.change_approval_pattern,
            request.guardrail,
            request.pattern,
            True,
            current_principal().label,
        )
        return pb.AddApprovalPatternResponse(patterns=patterns)

    async def RemoveApprovalPattern(
        self, request: pb.RemoveApprovalPatternRequest, context: Ctx
    ) -> pb.RemoveApprovalPatternResponse:
        answer_with(lambda ps: pb.RemoveApprovalPatternResponse(patterns=ps).SerializeToString())
        patterns = await asyncio.to_thread(
            self.chain.change_approval_pattern,
            request.guardrail,
            request.pattern,
            False,
            current_principal().label,
        )
        return pb.RemoveApprovalPatternResponse(patterns=patterns)


def explanation_to_pb(e: Explanation) -> pb.ExplainActionResponse:
    v = e.verdict
    steps = []
    for s in e.steps:
        step = pb.GuardrailExplanation(
            guardrail=s.guardrail,
            kind=s.kind,
            evaluated=s.evaluated,
            decided=s.decided,
            needs_approval=s.needs_approval,
            error=s.error,
            shadow=s.shadow,
        )
        if s.result is not None:
            step.allowed = s.result.allowed
            step.severity = int(s.result.severity)  # type: ignore[assignment]
            step.reason = s.result.reason
            step.duration.FromMicroseconds(s.duration_us)
        steps.append(step)
    return pb.ExplainActionResponse(
        allowed=v.allowed,
        reason=v.reason,
        severity=int(v.severity),  # type: ignore[arg-type]
        guardrail=v.guardrail,
        warnings=convert.warnings_to_pb(v.warnings),
        guardrails=steps,
        needs_approval=e.needs_approval,
        shadow=convert.shadow_to_pb(v.shadow),
    )
