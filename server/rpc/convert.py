"""Protobuf <-> Python values: Struct to plain dicts (hot path), timestamps, durations."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2

from outrider.v1 import common_pb2, supervisor_pb2
from server.domain.agents import Agent
from server.domain.approvals.requests import Approval
from server.domain.guardrails import GuardrailSpec
from server.domain.guardrails.decisions import Decision


def value_to_py(v: struct_pb2.Value) -> Any:
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        return v.string_value
    if kind == "number_value":
        return v.number_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return struct_to_dict(v.struct_value)
    if kind == "list_value":
        return [value_to_py(x) for x in v.list_value.values]
    return None


def struct_to_dict(s: struct_pb2.Struct) -> dict[str, Any]:
    return {k: value_to_py(v) for k, v in s.fields.items()}


def dict_to_struct(d: Mapping[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(_jsonable(d))
    return s


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def timestamp(value: datetime | None) -> timestamp_pb2.Timestamp | None:
    if value is None:
        return None
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(value.astimezone(UTC))
    return ts


def from_timestamp(ts: timestamp_pb2.Timestamp, present: bool) -> datetime | None:
    return ts.ToDatetime(tzinfo=UTC) if present else None


def agent_to_pb(a: Agent) -> common_pb2.Agent:
    return common_pb2.Agent(
        agent_id=a.agent_id,
        group=a.group,
        capabilities=list(a.capabilities),
        labels=dict(a.labels),
        create_time=timestamp(a.create_time),
        update_time=timestamp(a.update_time),
    )


def guardrail_to_pb(spec: GuardrailSpec) -> supervisor_pb2.Guardrail:
    return supervisor_pb2.Guardrail(
        name=spec.name, kind=spec.kind, options=dict_to_struct(spec.options), source=spec.source
    )


def warnings_to_pb(warnings: tuple[tuple[str, str], ...]) -> list[supervisor_pb2.GuardrailWarning]:
    return [supervisor_pb2.GuardrailWarning(guardrail=g, reason=r) for g, r in warnings]


def decision_to_pb(d: Decision) -> supervisor_pb2.Decision:
    latency = duration_pb2.Duration()
    latency.FromMicroseconds(d.latency_us)
    return supervisor_pb2.Decision(
        decision_id=d.decision_id,
        agent_id=d.agent_id,
        action=d.action,
        context_digest=d.context_digest,
        allowed=d.allowed,
        reason=d.reason,
        severity=int(d.severity),  # type: ignore[arg-type]
        guardrail=d.guardrail,
        warnings=warnings_to_pb(d.warnings),
        latency=latency,
        create_time=timestamp(d.create_time),
        request_id=d.request_id,
        trace_id=d.trace_id,
    )


def approval_to_pb(a: Approval) -> supervisor_pb2.Approval:
    return supervisor_pb2.Approval(
        approval_id=a.approval_id,
        agent_id=a.agent_id,
        action=a.action,
        context=dict_to_struct(a.context),
        guardrail=a.guardrail,
        request_id=a.request_id,
        trace_id=a.trace_id,
        digest=a.digest,
        state=int(a.state),  # type: ignore[arg-type]
        create_time=timestamp(a.create_time),
        expire_time=timestamp(a.expire_time),
        decide_time=timestamp(a.decide_time),
        decided_by=a.decided_by,
        comment=a.comment,
        votes=[
            supervisor_pb2.ApprovalVote(
                reviewer=v.reviewer, approve=v.approve, comment=v.comment, decide_time=timestamp(v.decide_time)
            )
            for v in a.votes
        ],
        warnings=warnings_to_pb(a.warnings),
        edited_context=dict_to_struct(a.edited_context) if a.edited_context is not None else None,
    )


def duration(seconds: float | None) -> duration_pb2.Duration | None:
    """Seconds as a Duration; None stays unset."""
    if seconds is None:
        return None
    d = duration_pb2.Duration()
    d.FromNanoseconds(round(seconds * 1e9))
    return d


def seconds(message: Any, name: str) -> float | None:
    """The Duration field `name` of `message` in seconds; None when unset."""
    if not message.HasField(name):
        return None
    d: duration_pb2.Duration = getattr(message, name)
    return d.ToNanoseconds() / 1e9
