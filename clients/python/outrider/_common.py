"""Connection settings, results and conversions the sync and asyncio clients share (no I/O)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import duration_pb2, json_format, struct_pb2

from .enums import ApprovalState, Severity, from_proto
from .v1 import common_pb2, supervisor_pb2, supervisor_service_pb2

DEFAULT_TARGET = "127.0.0.1:50051"
DEFAULT_TIMEOUT = 10.0
# A blocking CheckAction is re-sent with the same request id every this many seconds while a person decides,
# so no single call outlives load balancers' idle timeouts and a sidecar restart costs one retry.
DEFAULT_ATTACH_INTERVAL = 30.0
CLIENT_NAME = "outrider-python/0.1.0"


@dataclass(frozen=True)
class TLS:
    """Server CA, and a client certificate for mTLS (its CN: `agent:ID` or `operator:NAME`)."""

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        def read(p: str | None) -> bytes | None:
            return Path(p).read_bytes() if p else None

        return grpc.ssl_channel_credentials(read(self.ca_file), read(self.key_file), read(self.cert_file))


@dataclass(frozen=True)
class Settings:
    target: str = DEFAULT_TARGET
    token: str | None = None
    tls: TLS | None = None
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def from_env(cls, target: str | None, token: str | None, tls: TLS | None, timeout: float | None) -> Settings:
        return cls(
            target=target or os.environ.get("OUTRIDER_TARGET", DEFAULT_TARGET),
            token=token if token is not None else os.environ.get("OUTRIDER_TOKEN"),
            tls=tls,
            timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        )

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()


@dataclass(frozen=True)
class Warning_:
    guardrail: str
    reason: str


@dataclass(frozen=True)
class CheckResult:
    """The answer to "may I?". `approval_state` is set when a person was asked."""

    allowed: bool
    reason: str
    severity: Severity  # INFO, WARNING or BLOCK (equal to the strings "INFO" ... too)
    guardrail: str
    decision_id: str
    warnings: tuple[Warning_, ...] = ()
    approval_id: str = ""
    approval_state: ApprovalState = ApprovalState.NONE  # PENDING, APPROVED, ...; NONE ("") if no person was asked
    effective_context: dict[str, Any] = field(default_factory=dict)
    permit_id: str = ""

    @property
    def pending(self) -> bool:
        return self.approval_state is ApprovalState.PENDING


def to_struct(value: Mapping[str, Any] | None) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    if value:
        s.update(dict(value))
    return s


def from_struct(s: struct_pb2.Struct) -> dict[str, Any]:
    """A Struct as JSON would parse it: 3 comes back as 3, not 3.0 (see `from_value`)."""
    return {k: from_value(v) for k, v in s.fields.items()}


def check_request(
    agent_id: str,
    action: str,
    context: Mapping[str, Any] | None,
    request_id: str,
    wait: bool,
    binary_context: Mapping[str, bytes] | None,
) -> supervisor_service_pb2.CheckActionRequest:
    return supervisor_service_pb2.CheckActionRequest(
        agent_id=agent_id,
        action=action,
        context=to_struct(context),
        request_id=request_id,
        binary_context=dict(binary_context or {}),
        wait_mode=supervisor_service_pb2.WAIT_MODE_BLOCKING if wait else supervisor_service_pb2.WAIT_MODE_NON_BLOCKING,
    )


def check_result(r: supervisor_service_pb2.CheckActionResponse) -> CheckResult:
    has_approval = r.HasField("approval")
    return CheckResult(
        allowed=r.allowed,
        reason=r.reason,
        severity=from_proto(Severity, common_pb2.Severity, r.severity),
        guardrail=r.guardrail,
        decision_id=r.decision_id,
        warnings=tuple(Warning_(w.guardrail, w.reason) for w in r.warnings),
        approval_id=r.approval.approval_id if has_approval else "",
        approval_state=from_proto(ApprovalState, supervisor_pb2.ApprovalState, r.approval.state)
        if has_approval
        else ApprovalState.NONE,
        effective_context=from_struct(r.effective_context),
        permit_id=r.permit_id,
    )


def duration(seconds: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(round(seconds * 1e9))
    return d


def seconds(message: Any, name: str) -> float | None:
    """A Duration field in seconds; None when unset."""
    if not message.HasField(name):
        return None
    return float(getattr(message, name).ToNanoseconds() / 1e9)


def to_value(value: Any) -> struct_pb2.Value | None:
    """`value` as a protobuf Value, or None when it is not JSON data (an object, bytes, NaN...)."""
    v = struct_pb2.Value()
    try:
        json.dumps(value, allow_nan=False)  # JSON proper: no NaN or infinities, which Value would carry
        json_format.ParseDict(value, v)
    except (json_format.ParseError, TypeError, ValueError):
        return None
    return v


def from_value(v: struct_pb2.Value) -> Any:
    """A Value as JSON would parse it: whole numbers come back as int (Value stores every number as a double)."""
    kind = v.WhichOneof("kind")
    if kind == "number_value":
        n = v.number_value
        return int(n) if n.is_integer() and abs(n) < 2**53 else n
    if kind == "string_value":
        return v.string_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return {k: from_value(x) for k, x in v.struct_value.fields.items()}
    if kind == "list_value":
        return [from_value(x) for x in v.list_value.values]
    return None
