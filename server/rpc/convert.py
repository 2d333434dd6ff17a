"""Protobuf <-> Python values: Struct to plain dicts (hot path), timestamps, durations.

`struct_to_dict` and `value_to_py` are the one converter for every Struct or Value the sidecar accepts
(contexts, guardrail options, edited contexts, episode metadata, breaker results, saga payloads): they
refuse what JSON and the rules cannot hold (NaN and infinities, nesting deeper than
`server.max_context_depth`, strings longer than `server.max_string_length`) with INVALID_ARGUMENT naming
the path (`context.steps[2].cost`). The path is built only when a value is refused, so the common case
costs one walk.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2

from outrider.v1 import common_pb2, supervisor_pb2
from server.domain.actions import canonical_action
from server.domain.agents import Agent
from server.domain.approvals.requests import Approval
from server.domain.errors import InvalidArgument
from server.domain.guardrails import GuardrailSpec, ShadowOutcome
from server.domain.guardrails.decisions import Decision

DEFAULT_MAX_DEPTH = 32
DEFAULT_MAX_STRING = 1 << 20


@dataclass(frozen=True, slots=True)
class EdgeLimits:
    """What one Struct or Value may hold (`server.max_context_depth`, `server.max_string_length`), and the
    character set of action names."""

    max_depth: int = DEFAULT_MAX_DEPTH
    max_string: int = DEFAULT_MAX_STRING
    action_charset: str = "printable"  # `actions.charset` (server/domain/actions.py)
    allowed_scripts: frozenset[str] = frozenset()  # `actions.allowed_scripts`

    def canonical_action(self, action: str, field: str = "action") -> str:
        """`action` in its canonical form under `actions.*`, or INVALID_ARGUMENT naming `field`."""
        return canonical_action(action, self.action_charset, field, self.allowed_scripts)


DEFAULT_LIMITS = EdgeLimits()


class _Refused(Exception):
    """Raised deep in the walk; each level adds its path segment while the exception unwinds."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.trail: list[str] = []


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def _key_segment(key: str) -> str:
    if _PLAIN_KEY.match(key):
        return f".{key}"
    shown = key if len(key) <= 40 else key[:40] + "..."
    return f"[{shown!r}]"


def _refusal(field: str, exc: _Refused) -> InvalidArgument:
    path = field + "".join(reversed(exc.trail))
    return InvalidArgument(f"{path}: {exc.problem}", field=path)


def _py(v: struct_pb2.Value, depth: int, lim: EdgeLimits) -> Any:
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        s = v.string_value
        if len(s) > lim.max_string:
            raise _Refused(f"a string of {len(s)} characters is over the limit of {lim.max_string}")
        return s
    if kind == "number_value":
        n = v.number_value
        if not math.isfinite(n):
            raise _Refused(f"{n} is not a finite number (NaN and infinities are refused)")
        return n
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return _dict(v.struct_value, depth + 1, lim)
    if kind == "list_value":
        if depth + 1 > lim.max_depth:
            raise _Refused(f"nested deeper than {lim.max_depth} levels")
        out = []
        for i, item in enumerate(v.list_value.values):
            try:
                out.append(_py(item, depth + 1, lim))
            except _Refused as exc:
                exc.trail.append(f"[{i}]")
                raise
        return out
    return None


def _dict(s: struct_pb2.Struct, depth: int, lim: EdgeLimits) -> dict[str, Any]:
    if depth > lim.max_depth:
        raise _Refused(f"nested deeper than {lim.max_depth} levels")
    out: dict[str, Any] = {}
    for key, item in s.fields.items():
        try:
            if len(key) > lim.max_string:
                raise _Refused(f"a key of {len(key)} characters is over the limit of {lim.max_string}")
            out[key] = _py(item, depth, lim)
        except _Refused as exc:
            exc.trail.append(_key_segment(key))
            raise
    return out


def value_to_py(v: struct_pb2.Value, field: str = "value", limits: EdgeLimits = DEFAULT_LIMITS) -> Any:
    """A Value as plain Python; INVALID_ARGUMENT naming `field` and the path inside it when refused."""
    try:
        return _py(v, 0, limits)
    except _Refused as exc:
        raise _refusal(field, exc) from None


def struct_to_dict(s: struct_pb2.Struct, field: str = "context", limits: EdgeLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """A Struct as a plain dict (the Struct itself is level 1); refusals name `field` and the path."""
    try:
        return _dict(s, 1, limits)
    except _Refused as exc:
        raise _refusal(field, exc) from None


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
        shadow=shadow_to_pb(d.shadow),
    )


def shadow_to_pb(shadow: ShadowOutcome | None) -> supervisor_pb2.ShadowOutcome | None:
    if shadow is None:
        return None
    return supervisor_pb2.ShadowOutcome(
        guardrail=shadow.guardrail,
        reason=shadow.reason,
        severity=int(shadow.severity),  # type: ignore[arg-type]
        needs_approval=shadow.needs_approval,
        summary=shadow.describe(),
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
        consume_time=timestamp(a.consume_time),
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
