"""SafeguardService over gRPC: translate, delegate to the safeguard services, translate back.

The per-action calls (AcquirePermit, ReportOutcome(s), ReleasePermit, CanConsume, ...) run on the event
loop and reach storage only when their change needs it; the rest run their storage work in threads.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeAlias

from google.protobuf import struct_pb2

from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import safeguard_service_pb2_grpc as pb_grpc
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from server.domain.safeguards import plans
from server.domain.safeguards.episodes import Episode
from server.domain.safeguards.leases import Scope, validate_key
from server.rpc import convert
from server.rpc import safeguard_convert as cv
from server.rpc.auth import current_principal
from server.rpc.convert import seconds
from server.rpc.errors import translate_errors
from server.services.idempotency import answer_with
from server.services.safeguards.breakers import BreakerService
from server.services.safeguards.budgets import Allocated, BudgetService, Consumed, Reserved
from server.services.safeguards.episodes import EpisodeService
from server.services.safeguards.leases import LeaseService
from server.services.safeguards.reversibility import ReversibilityService

# grpc ships no type stubs: the servicer context is untyped.
Ctx: TypeAlias = Any


def _caller() -> str | None:
    """The agent id of an agent credential; None for operators (who may act on anything)."""
    p = current_principal()
    return None if p.is_operator else p.subject


def _finite(message: struct_pb2.Value | struct_pb2.Struct, field: str) -> None:
    """Stored JSON must be JSON: NaN and infinities are refused (PostgreSQL's JSON type cannot hold them,
    and one of them would fail every later write of the same journal)."""
    stack: list[Any] = [message]
    while stack:
        m = stack.pop()
        if isinstance(m, struct_pb2.Struct):
            stack.extend(m.fields.values())
        elif m.WhichOneof("kind") == "number_value" and not math.isfinite(m.number_value):
            raise InvalidArgument(f"{field} must hold finite numbers only (no NaN or infinity)", field=field)
        elif m.WhichOneof("kind") == "struct_value":
            stack.append(m.struct_value)
        elif m.WhichOneof("kind") == "list_value":
            stack.extend(m.list_value.values)


def _positive_duration(message: Any, field: str) -> float | None:
    value = seconds(message, field)
    if value is not None and value <= 0:
        raise InvalidArgument(f"{field} must be a positive duration", field=field)
    return value


CONSUME_THREADS = 64  # one Consume group's most calls (server/storage/grouped_calls.py max_batch)


@translate_errors
class SafeguardServicer(pb_grpc.SafeguardServiceServicer):
    def __init__(
        self,
        breakers: BreakerService,
        budgets: BudgetService,
        episodes: EpisodeService,
        leases: LeaseService,
        reversibility: ReversibilityService,
        max_value_bytes: int,
        limits: convert.EdgeLimits = convert.DEFAULT_LIMITS,
    ) -> None:
        self.limits = limits
        self.breakers = breakers
        self.budgets = budgets
        self.episodes = episodes
        self.leases = leases
        self.reversibility = reversibility
        self.max_value_bytes = max_value_bytes
        # Consume calls wait in the ledger for the group that carries them (server/storage/grouped_calls.py):
        # threads of their own, so a group can hold every call that arrived meanwhile (the event loop's
        # default executor has cpu_count + 4 threads, shared with every other blocking call).
        self._consume_threads = ThreadPoolExecutor(max_workers=CONSUME_THREADS, thread_name_prefix="consume")

    def _limit(self, size: int, field: str) -> None:
        if size > self.max_value_bytes:
            raise InvalidArgument(f"{field} is {size} bytes, over the limit of {self.max_value_bytes}", field=field)

    # ---- circuit breakers ------------------------------------------------------------------

    async def AcquirePermit(self, request: pb.AcquirePermitRequest, context: Ctx) -> pb.AcquirePermitResponse:
        admission = await self.breakers.acquire_async(request.key, request.request_id)
        return cv.admission_pb(admission)

    async def ReportOutcome(self, request: pb.ReportOutcomeRequest, context: Ctx) -> pb.ReportOutcomeResponse:
        self._limit(request.result.ByteSize(), "result")
        _finite(request.result, "result")
        answer, _ = await self.breakers.report_async(
            request.permit_id,
            request.outcome,
            convert.value_to_py(request.result, "result", self.limits),
            request.HasField("result"),
            _caller(),
        )
        return cv.settlement_pb(answer)

    async def ReportOutcomes(self, request_iterator: Any, context: Ctx) -> pb.ReportOutcomesResponse:
        received = counted = ignored = not_found = 0
        caller = _caller()
        async for m in request_iterator:
            received += 1
            if not m.permit_id:
                raise InvalidArgument(f"message {received}: permit_id is required", field="permit_id")
            if not m.outcome:
                raise InvalidArgument(f"message {received}: outcome must be SUCCESS or FAILURE", field="outcome")
            self._limit(m.result.ByteSize(), "result")
            _finite(m.result, "result")
            try:
                answer, repeated = await self.breakers.report_async(
                    m.permit_id,
                    m.outcome,
                    convert.value_to_py(m.result, "result", self.limits),
                    m.HasField("result"),
                    caller,
                )
            except NotFound:
                not_found += 1
                continue
            except FailedPrecondition:  # reported before with the other outcome
                ignored += 1
                continue
            if answer.counted and not repeated:
                counted += 1
            else:
                ignored += 1
        return pb.ReportOutcomesResponse(
            received_count=received, counted_count=counted, ignored_count=ignored, not_found_count=not_found
        )

    async def ReleasePermit(self, request: pb.ReleasePermitRequest, context: Ctx) -> pb.ReleasePermitResponse:
        released, state = await self.breakers.release_async(request.permit_id, _caller())
        return pb.ReleasePermitResponse(released=released, state=int(state))  # type: ignore[arg-type]

    async def GetBreaker(self, request: pb.GetBreakerRequest, context: Ctx) -> pb.GetBreakerResponse:
        b = await asyncio.to_thread(self.breakers.get, request.key)
        return pb.GetBreakerResponse(
            breaker=cv.breaker_pb(b), degradation=cv.degradation_pb(self.breakers.degradation(b))
        )

    async def ListBreakers(self, request: pb.ListBreakersRequest, context: Ctx) -> pb.ListBreakersResponse:
        page = await asyncio.to_thread(
            self.breakers.list, request.state, request.key_prefix, request.page_size, request.page_token
        )
        return pb.ListBreakersResponse(
            breakers=[cv.breaker_pb(b) for b in page.items], next_page_token=page.next_page_token
        )

    async def ResetBreaker(self, request: pb.ResetBreakerRequest, context: Ctx) -> pb.ResetBreakerResponse:
        answer_with(lambda b: pb.ResetBreakerResponse(breaker=cv.breaker_pb(b)).SerializeToString())
        b = await asyncio.to_thread(self.breakers.reset, request.key, current_principal().label)
        return pb.ResetBreakerResponse(breaker=cv.breaker_pb(b))

    async def ForceOpen(self, request: pb.ForceOpenRequest, context: Ctx) -> pb.ForceOpenResponse:
        answer_with(lambda b: pb.ForceOpenResponse(breaker=cv.breaker_pb(b)).SerializeToString())
        b = await asyncio.to_thread(self.breakers.force_open, request.key, request.reason, current_principal().label)
        return pb.ForceOpenResponse(breaker=cv.breaker_pb(b))

    async def ForceClose(self, request: pb.ForceCloseRequest, context: Ctx) -> pb.ForceCloseResponse:
        answer_with(lambda b: pb.ForceCloseResponse(breaker=cv.breaker_pb(b)).SerializeToString())
        b = await asyncio.to_thread(self.breakers.force_close, request.key, request.reason, current_principal().label)
        return pb.ForceCloseResponse(breaker=cv.breaker_pb(b))

    async def SetBreakerConfig(self, request: pb.SetBreakerConfigRequest, context: Ctx) -> pb.SetBreakerConfigResponse:
        override = cv.config_override(request.config)
        # The idempotency record is written in the transaction of the new settings, with this answer.
        answer_with(
            lambda b: pb.SetBreakerConfigResponse(breaker=cv.breaker_pb(self.breakers.as_served(b))).SerializeToString()
        )
        b = await asyncio.to_thread(self.breakers.set_config, request.key, override, current_principal().label)
        return pb.SetBreakerConfigResponse(breaker=cv.breaker_pb(b))

    # ---- token budgets ---------------------------------------------------------------------

    async def Allocate(self, request: pb.AllocateRequest, context: Ctx) -> pb.AllocateResponse:
        # The idempotency record is written in the ledger's transaction, with this answer.
        answer_with(lambda change: _allocate_pb(BudgetService.allocated_from(change)).SerializeToString())
        done = await asyncio.to_thread(
            self.budgets.allocate,
            request.agent_id,
            request.tokens,
            request.priority,
            current_principal().label,
            request.request_id,
        )
        return _allocate_pb(done)

    async def Consume(self, request: pb.ConsumeRequest, context: Ctx) -> pb.ConsumeResponse:
        # The idempotency record is written in the ledger's transaction, with this answer.
        answer_with(lambda change: _consume_pb(BudgetService.consumed_from(change)).SerializeToString())
        call = functools.partial(self.budgets.consume, request.agent_id, request.tokens, request.request_id)
        # As asyncio.to_thread: the call's context (its idempotency guard, its span) goes with it.
        done = await asyncio.get_running_loop().run_in_executor(
            self._consume_threads, contextvars.copy_context().run, call
        )
        return _consume_pb(done)

    async def CanConsume(self, request: pb.CanConsumeRequest, context: Ctx) -> pb.CanConsumeResponse:
        fit = await asyncio.to_thread(self.budgets.can_consume, request.agent_id, request.tokens, True)
        return pb.CanConsumeResponse(
            allowed=fit.allowed,
            reason=fit.reason,
            agent_remaining=fit.agent_remaining,
            global_remaining=fit.global_remaining,
            priority_floor_applied=fit.priority_floor_applied,
        )

    async def Remaining(self, request: pb.RemainingRequest, context: Ctx) -> pb.RemainingResponse:
        return pb.RemainingResponse(remaining=await asyncio.to_thread(self.budgets.remaining, request.agent_id))

    async def GlobalRemaining(self, request: pb.GlobalRemainingRequest, context: Ctx) -> pb.GlobalRemainingResponse:
        return pb.GlobalRemainingResponse(remaining=await asyncio.to_thread(self.budgets.global_remaining))

    async def UsagePercent(self, request: pb.UsagePercentRequest, context: Ctx) -> pb.UsagePercentResponse:
        percent = await asyncio.to_thread(self.budgets.usage_percent, request.agent_id)
        return pb.UsagePercentResponse(usage_percent=percent)

    async def GlobalUsagePercent(
        self, request: pb.GlobalUsagePercentRequest, context: Ctx
    ) -> pb.GlobalUsagePercentResponse:
        percent = await asyncio.to_thread(self.budgets.global_usage_percent)
        return pb.GlobalUsagePercentResponse(usage_percent=percent)

    async def GetAllocation(self, request: pb.GetAllocationRequest, context: Ctx) -> pb.GetAllocationResponse:
        allocation = await asyncio.to_thread(self.budgets.get, request.agent_id)
        return pb.GetAllocationResponse(allocation=cv.allocation_pb(allocation))

    async def ListAllocations(self, request: pb.ListAllocationsRequest, context: Ctx) -> pb.ListAllocationsResponse:
        page, glob = await asyncio.to_thread(self.budgets.list, request.page_size, request.page_token)
        return pb.ListAllocationsResponse(
            allocations=[cv.allocation_pb(a) for a in page.items],
            next_page_token=page.next_page_token,
            global_budget=cv.global_pb(glob),
        )

    async def SetGlobalBudget(self, request: pb.SetGlobalBudgetRequest, context: Ctx) -> pb.SetGlobalBudgetResponse:
        # The idempotency record is written in the ledger's transaction, with this answer.
        answer_with(
            lambda change: pb.SetGlobalBudgetResponse(
                global_budget=cv.global_pb(change.global_budget)
            ).SerializeToString()
        )
        glob, _signals = await asyncio.to_thread(self.budgets.set_global, request.tokens, current_principal().label)
        return pb.SetGlobalBudgetResponse(global_budget=cv.global_pb(glob))

    async def Reserve(self, request: pb.ReserveRequest, context: Ctx) -> pb.ReserveResponse:
        ttl = _positive_duration(request, "ttl")
        # A granted reservation's idempotency record is written in its transaction, with this answer.
        answer_with(lambda out: _reserve_pb(BudgetService.reserved_from(out)).SerializeToString())
        done = await asyncio.to_thread(
            self.budgets.reserve, request.agent_id, request.estimate, ttl, request.request_id
        )
        return _reserve_pb(done)

    async def Settle(self, request: pb.SettleRequest, context: Ctx) -> pb.SettleResponse:
        # The idempotency record is written in the ledger's transaction, with this answer.
        answer_with(lambda change: _settle_pb(BudgetService.consumed_from(change)).SerializeToString())
        done = await asyncio.to_thread(self.budgets.settle, request.reservation_id, request.actual, _caller())
        return _settle_pb(done)

    # ---- episodic memory -------------------------------------------------------------------

    async def RecordEpisode(self, request: pb.RecordEpisodeRequest, context: Ctx) -> pb.RecordEpisodeResponse:
        e = request.episode
        self._limit(e.metadata.ByteSize(), "episode.metadata")
        _finite(e.metadata, "episode.metadata")
        # The idempotency record is written in the episode's (group) transaction, with this answer.
        answer_with(lambda out: _episode_pb(*out).SerializeToString())
        episode, evicted = await asyncio.to_thread(
            self.episodes.record,
            e.task_id,
            e.agent_id,
            e.task_type,
            e.outcome,
            convert.struct_to_dict(e.metadata, "episode.metadata", self.limits),
            convert.from_timestamp(e.episode_time, e.HasField("episode_time")),
            request.request_id,
        )
        return _episode_pb(episode, evicted)

    async def QuerySimilar(self, request: pb.QuerySimilarRequest, context: Ctx) -> pb.QuerySimilarResponse:
        found = self.episodes.similar(request.task_type, request.limit, _caller())
        return pb.QuerySimilarResponse(episodes=[cv.episode_pb(e) for e in found])

    async def QueryByAgent(self, request: pb.QueryByAgentRequest, context: Ctx) -> pb.QueryByAgentResponse:
        found = self.episodes.by_agent(request.agent_id, request.limit)
        return pb.QueryByAgentResponse(episodes=[cv.episode_pb(e) for e in found])

    async def QueryByOutcome(self, request: pb.QueryByOutcomeRequest, context: Ctx) -> pb.QueryByOutcomeResponse:
        found = self.episodes.by_outcome(request.outcome, request.limit, _caller())
        return pb.QueryByOutcomeResponse(episodes=[cv.episode_pb(e) for e in found])

    # ---- execution leases ------------------------------------------------------------------

    async def AcquireLease(self, request: pb.AcquireLeaseRequest, context: Ctx) -> pb.AcquireLeaseResponse:
        key = validate_key(request.isolation_key.scope, request.isolation_key.id)
        caller = _caller()
        if caller is not None and key.scope is Scope.AGENT and key.id != caller:
            # Taking another agent's AGENT-scope key would block that agent.
            raise PermissionDenied(
                f"agent credential {caller!r} may only take its own AGENT-scope key: isolation_key.id is {key.id!r}",
                reason="NOT_YOUR_AGENT",
                field="isolation_key.id",
            )
        ttl = _positive_duration(request, "ttl")
        # Waiting ends with the caller's deadline or cancellation: gRPC cancels this coroutine.
        lease, waited = await self.leases.acquire(key, request.agent_id, ttl, request.request_id)
        return pb.AcquireLeaseResponse(lease=cv.lease_pb(lease), wait_duration=convert.duration(waited))

    async def RenewLease(self, request: pb.RenewLeaseRequest, context: Ctx) -> pb.RenewLeaseResponse:
        ttl = _positive_duration(request, "ttl")
        # The idempotency record is written in the renewal's transaction, with this answer.
        answer_with(lambda le: pb.RenewLeaseResponse(lease=cv.lease_pb(le)).SerializeToString())
        lease = await asyncio.to_thread(self.leases.renew, request.lease_id, ttl, _caller())
        return pb.RenewLeaseResponse(lease=cv.lease_pb(lease))

    async def ReleaseLease(self, request: pb.ReleaseLeaseRequest, context: Ctx) -> pb.ReleaseLeaseResponse:
        answer_with(lambda le: pb.ReleaseLeaseResponse(lease=cv.lease_pb(le)).SerializeToString())
        lease = await self.leases.release_async(request.lease_id, _caller())
        return pb.ReleaseLeaseResponse(lease=cv.lease_pb(lease))

    async def GetLease(self, request: pb.GetLeaseRequest, context: Ctx) -> pb.GetLeaseResponse:
        lease = await asyncio.to_thread(self.leases.get, request.lease_id, _caller())
        return pb.GetLeaseResponse(lease=cv.lease_pb(lease))

    async def ListLeases(self, request: pb.ListLeasesRequest, context: Ctx) -> pb.ListLeasesResponse:
        k = request.isolation_key
        page = await asyncio.to_thread(
            self.leases.list, k.scope, k.id, request.agent_id, request.state, request.page_size, request.page_token
        )
        return pb.ListLeasesResponse(
            leases=[cv.lease_pb(le) for le in page.items], next_page_token=page.next_page_token
        )

    # ---- reversibility and plans -----------------------------------------------------------

    async def AssessReversibility(
        self, request: pb.AssessReversibilityRequest, context: Ctx
    ) -> pb.AssessReversibilityResponse:
        self._limit(request.parameters.ByteSize(), "parameters")
        found = self.reversibility.assess(
            self.limits.canonical_action(request.action),
            convert.struct_to_dict(request.parameters, "parameters", self.limits),
        )
        return pb.AssessReversibilityResponse(assessment=cv.assessment_pb(found))

    async def ListReversibilityRules(
        self, request: pb.ListReversibilityRulesRequest, context: Ctx
    ) -> pb.ListReversibilityRulesResponse:
        page = self.reversibility.list_rules(request.page_size, request.page_token)
        return pb.ListReversibilityRulesResponse(
            rules=[cv.rule_pb(r) for r in page.items], next_page_token=page.next_page_token
        )

    async def ValidatePlan(self, request: pb.ValidatePlanRequest, context: Ctx) -> pb.ValidatePlanResponse:
        self._limit(request.plan.ByteSize(), "plan")
        # A step with no action is the plan's own violation (MISSING_ACTION); a look-alike is bad input.
        steps = [
            plans.Step(
                s.step_id,
                self.limits.canonical_action(s.action, f"plan.steps[{i}].action") if s.action else "",
                tuple(s.depends_on),
            )
            for i, s in enumerate(request.plan.steps)
        ]
        found = await asyncio.to_thread(
            self.reversibility.validate_plan, steps, list(request.capabilities), request.agent_id
        )
        return pb.ValidatePlanResponse(valid=not found, violations=[cv.violation_pb(v) for v in found])


def _episode_pb(episode: Episode, evicted: int) -> pb.RecordEpisodeResponse:
    return pb.RecordEpisodeResponse(episode=cv.episode_pb(episode), evicted_count=evicted)


def _settle_pb(done: Consumed) -> pb.SettleResponse:
    return pb.SettleResponse(
        allocation=cv.allocation_pb(done.allocation),
        global_budget=cv.global_pb(done.global_budget),
        over_budget=done.usage.over_budget,
        warnings=list(done.usage.warnings),
        signals=[cv.signal_pb(s) for s in done.usage.signals],
    )


def _consume_pb(done: Consumed) -> pb.ConsumeResponse:
    return pb.ConsumeResponse(
        allocation=cv.allocation_pb(done.allocation),
        global_budget=cv.global_pb(done.global_budget),
        over_budget=done.usage.over_budget,
        warnings=list(done.usage.warnings),
        signals=[cv.signal_pb(s) for s in done.usage.signals],
    )


def _allocate_pb(done: Allocated) -> pb.AllocateResponse:
    return pb.AllocateResponse(
        allocation=cv.allocation_pb(done.allocation), signals=[cv.signal_pb(s) for s in done.signals]
    )


def _reserve_pb(done: Reserved) -> pb.ReserveResponse:
    return pb.ReserveResponse(
        granted=done.granted,
        reservation=cv.reservation_pb(done.reservation) if done.reservation else None,
        reason=done.reason,
        allocation=cv.allocation_pb(done.allocation),
        priority_floor_applied=done.priority_floor_applied,
        signals=[cv.signal_pb(s) for s in done.signals],
    )
