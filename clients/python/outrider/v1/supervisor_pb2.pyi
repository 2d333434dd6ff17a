import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ApprovalState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APPROVAL_STATE_UNSPECIFIED: _ClassVar[ApprovalState]
    APPROVAL_STATE_PENDING: _ClassVar[ApprovalState]
    APPROVAL_STATE_APPROVED: _ClassVar[ApprovalState]
    APPROVAL_STATE_REJECTED: _ClassVar[ApprovalState]
    APPROVAL_STATE_EXPIRED: _ClassVar[ApprovalState]
    APPROVAL_STATE_CANCELLED: _ClassVar[ApprovalState]
APPROVAL_STATE_UNSPECIFIED: ApprovalState
APPROVAL_STATE_PENDING: ApprovalState
APPROVAL_STATE_APPROVED: ApprovalState
APPROVAL_STATE_REJECTED: ApprovalState
APPROVAL_STATE_EXPIRED: ApprovalState
APPROVAL_STATE_CANCELLED: ApprovalState

class Guardrail(_message.Message):
    __slots__ = ("name", "kind", "options", "source")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    options: _struct_pb2.Struct
    source: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., source: _Optional[str] = ...) -> None: ...

class GuardrailWarning(_message.Message):
    __slots__ = ("guardrail", "reason")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    guardrail: str
    reason: str
    def __init__(self, guardrail: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ApprovalVote(_message.Message):
    __slots__ = ("reviewer", "approve", "comment", "decide_time")
    REVIEWER_FIELD_NUMBER: _ClassVar[int]
    APPROVE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    DECIDE_TIME_FIELD_NUMBER: _ClassVar[int]
    reviewer: str
    approve: bool
    comment: str
    decide_time: _timestamp_pb2.Timestamp
    def __init__(self, reviewer: _Optional[str] = ..., approve: _Optional[bool] = ..., comment: _Optional[str] = ..., decide_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Approval(_message.Message):
    __slots__ = ("approval_id", "agent_id", "action", "context", "guardrail", "request_id", "trace_id", "digest", "state", "create_time", "expire_time", "decide_time", "decided_by", "comment", "votes", "warnings", "edited_context", "consume_time")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    DECIDE_TIME_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    EDITED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CONSUME_TIME_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    agent_id: str
    action: str
    context: _struct_pb2.Struct
    guardrail: str
    request_id: str
    trace_id: str
    digest: str
    state: ApprovalState
    create_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    decide_time: _timestamp_pb2.Timestamp
    decided_by: str
    comment: str
    votes: _containers.RepeatedCompositeFieldContainer[ApprovalVote]
    warnings: _containers.RepeatedCompositeFieldContainer[GuardrailWarning]
    edited_context: _struct_pb2.Struct
    consume_time: _timestamp_pb2.Timestamp
    def __init__(self, approval_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., action: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., guardrail: _Optional[str] = ..., request_id: _Optional[str] = ..., trace_id: _Optional[str] = ..., digest: _Optional[str] = ..., state: _Optional[_Union[ApprovalState, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., decide_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., decided_by: _Optional[str] = ..., comment: _Optional[str] = ..., votes: _Optional[_Iterable[_Union[ApprovalVote, _Mapping]]] = ..., warnings: _Optional[_Iterable[_Union[GuardrailWarning, _Mapping]]] = ..., edited_context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., consume_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "agent_id", "action", "context_digest", "allowed", "reason", "severity", "guardrail", "warnings", "latency", "create_time", "request_id", "trace_id", "shadow")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_DIGEST_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    SHADOW_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    agent_id: str
    action: str
    context_digest: str
    allowed: bool
    reason: str
    severity: _common_pb2.Severity
    guardrail: str
    warnings: _containers.RepeatedCompositeFieldContainer[GuardrailWarning]
    latency: _duration_pb2.Duration
    create_time: _timestamp_pb2.Timestamp
    request_id: str
    trace_id: str
    shadow: ShadowOutcome
    def __init__(self, decision_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., action: _Optional[str] = ..., context_digest: _Optional[str] = ..., allowed: _Optional[bool] = ..., reason: _Optional[str] = ..., severity: _Optional[_Union[_common_pb2.Severity, str]] = ..., guardrail: _Optional[str] = ..., warnings: _Optional[_Iterable[_Union[GuardrailWarning, _Mapping]]] = ..., latency: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ..., trace_id: _Optional[str] = ..., shadow: _Optional[_Union[ShadowOutcome, _Mapping]] = ...) -> None: ...

class ShadowOutcome(_message.Message):
    __slots__ = ("guardrail", "reason", "severity", "needs_approval", "summary")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    NEEDS_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    guardrail: str
    reason: str
    severity: _common_pb2.Severity
    needs_approval: bool
    summary: str
    def __init__(self, guardrail: _Optional[str] = ..., reason: _Optional[str] = ..., severity: _Optional[_Union[_common_pb2.Severity, str]] = ..., needs_approval: _Optional[bool] = ..., summary: _Optional[str] = ...) -> None: ...
