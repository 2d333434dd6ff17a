"""Protobuf <-> domain values of the recovery feature."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from google.protobuf import json_format

from outrider.v1 import recovery_pb2 as pb
from outrider.v1 import safeguard_pb2
from server.domain.errors import InvalidArgument
from server.domain.recovery.cascade import AgentFailure, Cascade, CascadePolicy
from server.domain.recovery.control import ControlCommand
from server.domain.recovery.events import RecoveryEvent, RecoveryEventType
from server.domain.recovery.health import CheckKind, HealthCheckSpec, HealthStatus, MonitoringState, new_check
from server.domain.recovery.kill import (
    CompensatingAction,
    HandoffAttempt,
    HandoffPayload,
    KillPayload,
    KillResult,
    SagaStep,
    StepHandoff,
    Substitute,
    SubstituteScope,
)
from server.domain.recovery.ladder import AgentRecoveryStatus, Escalation, RecoveryPolicy, RecoveryResult
from server.rpc.convert import (
    DEFAULT_LIMITS,
    EdgeLimits,
    agent_to_pb,
    dict_to_struct,
    duration,
    from_timestamp,
    seconds,
    struct_to_dict,
    timestamp,
)

# ---- health checks --------------------------------------------------------------------------------


def check_from_pb(c: pb.HealthCheck) -> HealthCheckSpec:
    kind = c.WhichOneof("kind")
    if kind == "ping":
        return new_check(CheckKind.PING, timeout=seconds(c.ping, "timeout"))
    if kind == "heartbeat":
        return new_check(CheckKind.HEARTBEAT, silence_threshold=seconds(c.heartbeat, "silence_threshold"))
    if kind == "grpc":
        return new_check(
            CheckKind.GRPC, timeout=seconds(c.grpc, "timeout"), target=c.grpc.target, service=c.grpc.service
        )
    if kind == "http":
        return new_check(CheckKind.HTTP, timeout=seconds(c.http, "timeout"), url=c.http.url)
    raise InvalidArgument("check: set exactly one of ping, heartbeat, grpc, http", field="check")


def check_to_pb(s: HealthCheckSpec) -> pb.HealthCheck:
    if s.kind is CheckKind.PING:
        return pb.HealthCheck(ping=pb.PingCheck(timeout=duration(s.timeout)))
    if s.kind is CheckKind.HEARTBEAT:
        return pb.HealthCheck(heartbeat=pb.HeartbeatCheck(silence_threshold=duration(s.silence_threshold)))
    if s.kind is CheckKind.GRPC:
        return pb.HealthCheck(grpc=pb.GrpcCheck(target=s.target, service=s.service, timeout=duration(s.timeout)))
    return pb.HealthCheck(http=pb.HttpCheck(url=s.url, timeout=duration(s.timeout)))


def status_to_pb(s: HealthStatus) -> pb.HealthStatus:
    return pb.HealthStatus(
        agent_id=s.agent_id,
        healthy=s.healthy,
        reason=s.reason,
        check_time=timestamp(s.check_time),
        latency=duration(s.latency),
    )


def monitoring_to_pb(m: MonitoringState) -> pb.MonitoringState:
    return pb.MonitoringState(
        running=m.running,
        interval=duration(m.interval),
        start_time=timestamp(m.start_time),
        last_run_time=timestamp(m.last_run_time),
        next_run_time=timestamp(m.next_run_time),
    )


# ---- recovery -------------------------------------------------------------------------------------


def policy_to_pb(p: RecoveryPolicy) -> pb.RecoveryPolicy:
    return pb.RecoveryPolicy(
        group=p.group,
        max_retries=p.max_retries,
        escalate_after=p.escalate_after,
        cooldown=duration(p.cooldown),
        default_action=int(p.default_action),  # type: ignore[arg-type]
        source=p.source,
        update_time=timestamp(p.update_time),
    )


def result_to_pb(r: RecoveryResult) -> pb.RecoveryResult:
    return pb.RecoveryResult(
        recovery_id=r.recovery_id,
        agent_id=r.agent_id,
        group=r.group,
        action_taken=int(r.action_taken or 0),  # type: ignore[arg-type]
        success=r.success,
        detail=r.detail,
        reason=r.reason,
        trigger=int(r.trigger),  # type: ignore[arg-type]
        retry_count=r.retry_count,
        in_cooldown=r.in_cooldown,
        replacement_agent_id=r.replacement_agent_id,
        command_id=r.command_id,
        attempt_time=timestamp(r.attempt_time),
    )


def escalation_to_pb(e: Escalation) -> pb.Escalation:
    return pb.Escalation(
        agent_id=e.agent_id,
        group=e.group,
        failed_attempts=e.failed_attempts,
        reason=e.reason,
        recovery_id=e.recovery_id,
        escalate_time=timestamp(e.escalate_time),
    )


def agent_status_to_pb(s: AgentRecoveryStatus) -> pb.AgentRecoveryStatus:
    return pb.AgentRecoveryStatus(
        agent=agent_to_pb(s.agent),
        health_check=check_to_pb(s.health_check) if s.health_check else None,
        last_status=status_to_pb(s.last_status) if s.last_status else None,
        retry_count=s.retry_count,
        connected=s.connected,
        connect_time=timestamp(s.connect_time),
        last_seen_time=timestamp(s.last_seen_time),
        last_recovery=result_to_pb(s.last_recovery) if s.last_recovery else None,
        escalated=s.escalated,
    )


# ---- kills ----------------------------------------------------------------------------------------


def compensation_from_pb(
    c: safeguard_pb2.CompensatingAction, field: str = "compensation", limits: EdgeLimits = DEFAULT_LIMITS
) -> CompensatingAction:
    return CompensatingAction(
        description=c.description,
        action=c.action,
        parameters=struct_to_dict(c.parameters, f"{field}.parameters", limits),
        effectiveness=int(c.effectiveness),
        time_window=seconds(c, "time_window"),
    )


def compensation_to_pb(c: CompensatingAction) -> safeguard_pb2.CompensatingAction:
    return safeguard_pb2.CompensatingAction(
        description=c.description,
        action=c.action,
        parameters=dict_to_struct(c.parameters),
        effectiveness=c.effectiveness,  # type: ignore[arg-type]
        time_window=duration(c.time_window),
    )


def step_from_pb(s: pb.SagaStep, field: str = "step", limits: EdgeLimits = DEFAULT_LIMITS) -> SagaStep:
    return SagaStep(
        saga_id=s.saga_id,
        step_id=s.step_id,
        action=s.action,
        payload=struct_to_dict(s.payload, f"{field}.payload", limits),
        compensation=tuple(
            compensation_from_pb(c, f"{field}.compensation[{i}]", limits) for i, c in enumerate(s.compensation)
        ),
    )


def step_to_pb(s: SagaStep) -> pb.SagaStep:
    return pb.SagaStep(
        saga_id=s.saga_id,
        step_id=s.step_id,
        action=s.action,
        payload=dict_to_struct(s.payload),
        compensation=[compensation_to_pb(c) for c in s.compensation],
    )


def attempt_to_pb(a: HandoffAttempt) -> pb.HandoffAttempt:
    return pb.HandoffAttempt(
        to_agent=a.to_agent,
        command_id=a.command_id,
        status=int(a.status),  # type: ignore[arg-type]
        detail=a.detail,
        send_time=timestamp(a.send_time),
        settle_time=timestamp(a.settle_time),
    )


def handoff_to_pb(h: StepHandoff) -> pb.StepHandoff:
    return pb.StepHandoff(
        saga_id=h.step.saga_id,
        step_id=h.step.step_id,
        action=h.step.action,
        from_agent=h.from_agent,
        to_agent=h.to_agent,
        status=int(h.status),  # type: ignore[arg-type]
        attempts=[attempt_to_pb(a) for a in h.attempts],
        compensating_actions=[compensation_to_pb(c) for c in h.compensating_actions],
        kill_id=h.kill_id,
        session_id=h.session_id,
        update_time=timestamp(h.update_time),
    )


def kill_to_pb(k: KillResult) -> pb.KillResult:
    return pb.KillResult(
        kill_id=k.kill_id,
        agent_id=k.agent_id,
        session_id=k.session_id,
        reason=int(k.reason),  # type: ignore[arg-type]
        handoffs=[handoff_to_pb(h) for h in k.handoffs],
        handoff_success_count=k.handoff_success_count,
        compensation_triggered=k.compensation_triggered,
        terminated=k.terminated,
        detail=k.detail,
        request_details=k.request_details,
        requested_by=k.requested_by,
        cancelled_approval_count=k.cancelled_approval_count,
        revoked_lease_count=k.revoked_lease_count,
        kill_time=timestamp(k.kill_time),
        complete_time=timestamp(k.complete_time),
        request_id=k.request_id,
    )


def scope_from_pb(message: Any) -> tuple[SubstituteScope, str]:
    which = message.WhichOneof("scope")
    if which == "session_id":
        return SubstituteScope.SESSION, message.session_id
    if which == "group":
        return SubstituteScope.GROUP, message.group
    raise InvalidArgument("set session_id or group", field="scope")


def substitute_to_pb(s: Substitute) -> pb.Substitute:
    sub = pb.Substitute(agent_id=s.agent_id, position=s.position, register_time=timestamp(s.register_time))
    if s.scope is SubstituteScope.SESSION:
        sub.session_id = s.scope_id
    else:
        sub.group = s.scope_id
    return sub


# ---- cascades -------------------------------------------------------------------------------------


def failure_to_pb(f: AgentFailure) -> pb.AgentFailure:
    return pb.AgentFailure(
        from_agent=f.from_agent,
        to_agent=f.to_agent,
        detail=f.detail,
        source=f.source,
        failure_time=timestamp(f.failure_time),
        reporter=f.reporter,
    )


def cascade_to_pb(c: Cascade) -> pb.Cascade:
    return pb.Cascade(
        cascade_id=c.cascade_id,
        failures=[failure_to_pb(f) for f in c.failures],
        agent_ids=list(c.agent_ids),
        root_agent=c.root_agent,
        action=int(c.action),  # type: ignore[arg-type]
        kill_id=c.kill_id,
        opened_breakers=list(c.opened_breakers),
        detect_time=timestamp(c.detect_time),
        corroborated=c.corroborated,
    )


def cascade_policy_to_pb(p: CascadePolicy) -> pb.CascadePolicy:
    return pb.CascadePolicy(
        window=duration(p.window),
        threshold=p.threshold,
        action=int(p.action),  # type: ignore[arg-type]
        kill_reason=int(p.kill_reason),  # type: ignore[arg-type]
        source=p.source,
        update_time=timestamp(p.update_time),
    )


# ---- the control channel and events ----------------------------------------------------------------


def command_to_pb(c: ControlCommand) -> pb.ControlCommand:
    out = pb.ControlCommand(
        command_id=c.command_id,
        type=int(c.type),  # type: ignore[arg-type]
        reason=c.reason,
        send_time=timestamp(c.send_time),
        expire_time=timestamp(c.expire_time),
    )
    p = c.payload
    if isinstance(p, KillPayload):
        out.kill.CopyFrom(pb.KillCommand(kill_id=p.kill_id, reason=int(p.reason), details=p.details))  # type: ignore[arg-type]
    elif isinstance(p, HandoffPayload):
        out.handoff.CopyFrom(
            pb.HandoffCommand(
                kill_id=p.kill_id, session_id=p.session_id, from_agent=p.from_agent, step=step_to_pb(p.step)
            )
        )
    elif isinstance(p, Mapping):
        json_format.ParseDict(dict(p), out.budget_signal)
    return out


def event_to_pb(e: RecoveryEvent) -> pb.RecoveryEvent:
    out = pb.RecoveryEvent(
        sequence=e.sequence,
        type=int(e.type),  # type: ignore[arg-type]
        agent_id=e.agent_id,
        event_time=timestamp(e.event_time),
    )
    p = e.payload
    t = RecoveryEventType
    if e.type is t.HEALTH_CHECK_FAILED:
        out.health_status.CopyFrom(status_to_pb(p))
    elif e.type is t.RECOVERY_ATTEMPT:
        out.recovery_result.CopyFrom(result_to_pb(p))
    elif e.type is t.ESCALATION:
        out.escalation.CopyFrom(escalation_to_pb(p))
    elif e.type is t.KILL:
        out.kill.CopyFrom(kill_to_pb(p))
    elif e.type is t.HANDOFF:
        out.handoff.CopyFrom(handoff_to_pb(p))
    elif e.type is t.CASCADE:
        out.cascade.CopyFrom(cascade_to_pb(p))
    elif e.type is t.BREAKER_STATE_CHANGE:
        json_format.ParseDict(dict(p), out.breaker_state_change, ignore_unknown_fields=True)
    elif e.type is t.BUDGET_SIGNAL:
        json_format.ParseDict(dict(p), out.budget_signal, ignore_unknown_fields=True)
    return out


def event_types(values: Iterable[int]) -> frozenset[RecoveryEventType]:
    out = set()
    for v in values:
        try:
            out.add(RecoveryEventType(v))
        except ValueError:
            raise InvalidArgument(f"unknown event type {v}", field="types") from None
    return frozenset(out)


def time_or_none(message: Any, name: str) -> datetime | None:
    return from_timestamp(getattr(message, name), message.HasField(name))
