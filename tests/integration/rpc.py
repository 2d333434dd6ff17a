"""Small helpers to build requests and read errors in integration tests."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import struct_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb


def struct(d: dict[str, Any] | None = None) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(d or {})
    return s


def guardrail(name: str, kind: str, **options: Any) -> pb.AddGuardrailRequest:
    return pb.AddGuardrailRequest(guardrail=supervisor_pb2.Guardrail(name=name, kind=kind, options=struct(options)))


def check(
    agent_id: str = "agent-1", action: str = "act", context: dict[str, Any] | None = None, **kw: Any
) -> pb.CheckActionRequest:
    return pb.CheckActionRequest(agent_id=agent_id, action=action, context=struct(context), **kw)


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, "the error carries no google.rpc.Status details"
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    raise AssertionError("no ErrorInfo in the status details")
