"""Protobuf <-> domain values of the SafeguardService (breakers, budgets, episodes, leases, reversibility)."""

from __future__ import annotations

from typing import Any

from google.protobuf import struct_pb2

from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from server.domain.safeguards.breakers import Admission, Breaker, BreakerChange, BreakerConfig, Degradation, Settlement
from server.domain.safeguards.budgets import Allocation, BudgetSignal, GlobalBudget, Reservation
from server.domain.safeguards.episodes import Episode
from server.domain.safeguards.leases import Lease
from server.domain.safeguards.plans import Violation
from server.domain.safeguards.reversibility import Assessment, CompensatingAction, Rule
from server.rpc.convert import dict_to_struct, duration, timestamp


def value(v: Any) -> struct_pb2.Value:
    s = struct_pb2.Struct()
    s.update({"v": v})
    out = struct_pb2.Value()
    out.CopyFrom(s.fields["v"])
    return out


# ---- breakers -------------------------------------------------------------------------------------


def config_pb(c: BreakerConfig) -> sg.BreakerConfig:
    return sg.BreakerConfig(
        failure_threshold=c.failure_threshold,
        recovery_timeout=duration(c.recovery_timeout),
        half_open_max_calls=c.half_open_max_calls,
        strategy=int(c.strategy),  # type: ignore[arg-type]
        permit_ttl=duration(c.permit_ttl),
    )


def config_override(c: sg.BreakerConfig) -> dict[str, Any]:
    """The fields a request sets (zero / unset: the default). Negative values are passed on to be refused."""
    out: dict[str, Any] = {}
    if c.failure_threshold:
        out["failure_threshold"] = c.failure_threshold
    if c.half_open_max_calls:
        out["half_open_max_calls"] = c.half_open_max_calls
    if c.strategy:
        out["strategy"] = sg.DegradationStrategy.Name(c.strategy).removeprefix("DEGRADATION_STRATEGY_")
    for name in ("recovery_timeout", "permit_ttl"):
        if c.HasField(name):
            out[name] = getattr(c, name).ToNanoseconds() / 1e9
    return out


def breaker_pb(b: Breaker) -> sg.Breaker:
    return sg.Breaker(
        key=b.key,
        state=int(b.state),  # type: ignore[arg-type]
        failure_count=b.failure_count,
        generation=b.generation,
        config=config_pb(b.config),
        forced=b.forced,
        in_flight_permits=b.in_flight,
        has_cached_result=b.has_cached,
        open_time=timestamp(b.open_time),
        half_open_time=timestamp(b.half_open_time),
        last_failure_time=timestamp(b.last_failure_time),
        last_success_time=timestamp(b.last_success_time),
        create_time=timestamp(b.create_time),
        update_time=timestamp(b.update_time),
    )


def breaker_change_pb(c: BreakerChange) -> sg.BreakerStateChange:
    """For the event stream (RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE)."""
    return sg.BreakerStateChange(
        key=c.key,
        from_state=int(c.from_state),  # type: ignore[arg-type]
        to_state=int(c.to_state),  # type: ignore[arg-type]
        generation=c.generation,
        failure_count=c.failure_count,
        reason=c.reason,
        change_time=timestamp(c.change_time),
    )


def degradation_pb(d: Degradation | None) -> sg.Degradation | None:
    if d is None:
        return None
    return sg.Degradation(
        strategy=int(d.strategy),  # type: ignore[arg-type]
        degraded_value=value(d.value) if d.has_value else None,
        retry_after=duration(d.retry_after),
    )


def admission_pb(a: Admission) -> pb.AcquirePermitResponse:
    p = a.permit
    return pb.AcquirePermitResponse(
        permitted=a.permitted,
        state=int(a.state),  # type: ignore[arg-type]
        permit_id=p.permit_id if p else "",
        generation=a.generation,
        failure_count=a.failure_count,
        expire_time=timestamp(p.expire_time) if p else None,
        directive=int(a.directive),  # type: ignore[arg-type]
        failure_directive=int(a.failure_directive),  # type: ignore[arg-type]
        degradation=degradation_pb(a.degradation),
    )


def settlement_pb(s: Settlement) -> pb.ReportOutcomeResponse:
    return pb.ReportOutcomeResponse(
        directive=int(s.directive),  # type: ignore[arg-type]
        degradation=degradation_pb(s.degradation),
        state=int(s.state),  # type: ignore[arg-type]
        failure_count=s.failure_count,
        generation=s.generation,
        counted=s.counted,
    )


# ---- budgets --------------------------------------------------------------------------------------


def allocation_pb(a: Allocation) -> sg.Allocation:
    return sg.Allocation(
        agent_id=a.agent_id,
        allocated=a.allocated,
        used=a.used,
        reserved=a.reserved,
        remaining=a.remaining,
        usage_percent=a.usage_percent,
        priority=int(a.priority),  # type: ignore[arg-type]
        warned=a.warned,
        stopped=a.stopped,
        allocate_time=timestamp(a.allocate_time),
        update_time=timestamp(a.update_time),
    )


def global_pb(g: GlobalBudget) -> sg.GlobalBudget:
    return sg.GlobalBudget(
        total=g.total,
        used=g.used,
        reserved=g.reserved,
        remaining=g.remaining,
        usage_percent=g.usage_percent,
        update_time=timestamp(g.update_time),
    )


def reservation_pb(r: Reservation) -> sg.Reservation:
    return sg.Reservation(
        reservation_id=r.reservation_id,
        agent_id=r.agent_id,
        tokens=r.tokens,
        create_time=timestamp(r.create_time),
        expire_time=timestamp(r.expire_time),
    )


def signal_pb(s: BudgetSignal) -> sg.BudgetSignal:
    return sg.BudgetSignal(
        agent_id=s.agent_id,
        type=int(s.type),  # type: ignore[arg-type]
        **{"global": s.is_global},
        used=s.used,
        allocated=s.allocated,
        usage_percent=s.usage_percent,
        signal_time=timestamp(s.signal_time),
    )


# ---- episodes and leases --------------------------------------------------------------------------


def episode_pb(e: Episode) -> sg.Episode:
    return sg.Episode(
        episode_id=e.episode_id,
        task_id=e.task_id,
        agent_id=e.agent_id,
        task_type=e.task_type,
        outcome=e.outcome,
        metadata=dict_to_struct(e.metadata),
        episode_time=timestamp(e.episode_time),
    )


def lease_pb(le: Lease) -> sg.Lease:
    return sg.Lease(
        lease_id=le.lease_id,
        key=sg.IsolationKey(scope=int(le.key.scope), id=le.key.id),  # type: ignore[arg-type]
        agent_id=le.agent_id,
        fencing_token=le.fencing_token,
        state=int(le.state),  # type: ignore[arg-type]
        ttl=duration(le.ttl),
        acquire_time=timestamp(le.acquire_time),
        expire_time=timestamp(le.expire_time),
        end_time=timestamp(le.end_time),
    )


# ---- reversibility and plans -----------------------------------------------------------------------


def compensating_pb(c: CompensatingAction) -> sg.CompensatingAction:
    return sg.CompensatingAction(
        description=c.description,
        action=c.action,
        parameters=dict_to_struct(c.parameters),
        effectiveness=int(c.effectiveness),  # type: ignore[arg-type]
        time_window=duration(c.time_window),
    )


def assessment_pb(a: Assessment) -> sg.ReversibilityAssessment:
    return sg.ReversibilityAssessment(
        action=a.action,
        level=int(a.level),  # type: ignore[arg-type]
        reason=a.reason,
        compensating_actions=[compensating_pb(c) for c in a.compensating],
        requires_extra_approval=a.requires_extra_approval,
        assess_time=timestamp(a.assess_time),
        source=a.source,
    )


def rule_pb(r: Rule) -> sg.ReversibilityRule:
    return sg.ReversibilityRule(
        action=r.action,
        level=int(r.level),  # type: ignore[arg-type]
        reason=r.reason,
        compensating_actions=[compensating_pb(c) for c in r.compensating],
        requires_extra_approval=r.requires_extra_approval,
        source=r.source,
    )


def violation_pb(v: Violation) -> sg.PlanViolation:
    return sg.PlanViolation(
        type=int(v.type),  # type: ignore[arg-type]
        step_index=v.step_index,
        step_id=v.step_id,
        message=v.message,
        related=list(v.related),
    )
