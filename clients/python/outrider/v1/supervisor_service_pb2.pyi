import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import common_pb2 as _common_pb2
from outrider.v1 import supervisor_pb2 as _supervisor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WaitMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAIT_MODE_UNSPECIFIED: _ClassVar[WaitMode]
    WAIT_MODE_BLOCKING: _ClassVar[WaitMode]
    WAIT_MODE_NON_BLOCKING: _ClassVar[WaitMode]
WAIT_MODE_UNSPECIFIED: WaitMode
WAIT_MODE_BLOCKING: WaitMode
WAIT_MODE_NON_BLOCKING: WaitMode

class RegisterAgentRequest(_message.Message):
    __slots__ = ("agent", "request_id")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent: _common_pb2.Agent
    request_id: str
    def __init__(self, agent: _Optional[_Union[_common_pb2.Agent, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class RegisterAgentResponse(_message.Message):
    __slots__ = ("agent", "created")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    agent: _common_pb2.Agent
    created: bool
    def __init__(self, agent: _Optional[_Union[_common_pb2.Agent, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class DeregisterAgentRequest(_message.Message):
    __slots__ = ("agent_id", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class DeregisterAgentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetAgentRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetAgentResponse(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: _common_pb2.Agent
    def __init__(self, agent: _Optional[_Union[_common_pb2.Agent, _Mapping]] = ...) -> None: ...

class ListAgentsRequest(_message.Message):
    __slots__ = ("group", "page_size", "page_token")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    group: str
    page_size: int
    page_token: str
    def __init__(self, group: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAgentsResponse(_message.Message):
    __slots__ = ("agents", "next_page_token")
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[_common_pb2.Agent]
    next_page_token: str
    def __init__(self, agents: _Optional[_Iterable[_Union[_common_pb2.Agent, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CheckActionRequest(_message.Message):
    __slots__ = ("agent_id", "action", "context", "request_id", "binary_context", "wait_mode")
    class BinaryContextEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    BINARY_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    WAIT_MODE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    action: str
    context: _struct_pb2.Struct
    request_id: str
    binary_context: _containers.ScalarMap[str, bytes]
    wait_mode: WaitMode
    def __init__(self, agent_id: _Optional[str] = ..., action: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., request_id: _Optional[str] = ..., binary_context: _Optional[_Mapping[str, bytes]] = ..., wait_mode: _Optional[_Union[WaitMode, str]] = ...) -> None: ...

class CheckActionResponse(_message.Message):
    __slots__ = ("allowed", "reason", "severity", "guardrail", "decision_id", "warnings", "approval", "effective_context", "permit_id")
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    PERMIT_ID_FIELD_NUMBER: _ClassVar[int]
    allowed: bool
    reason: str
    severity: _common_pb2.Severity
    guardrail: str
    decision_id: str
    warnings: _containers.RepeatedCompositeFieldContainer[_supervisor_pb2.GuardrailWarning]
    approval: _supervisor_pb2.Approval
    effective_context: _struct_pb2.Struct
    permit_id: str
    def __init__(self, allowed: _Optional[bool] = ..., reason: _Optional[str] = ..., severity: _Optional[_Union[_common_pb2.Severity, str]] = ..., guardrail: _Optional[str] = ..., decision_id: _Optional[str] = ..., warnings: _Optional[_Iterable[_Union[_supervisor_pb2.GuardrailWarning, _Mapping]]] = ..., approval: _Optional[_Union[_supervisor_pb2.Approval, _Mapping]] = ..., effective_context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., permit_id: _Optional[str] = ...) -> None: ...

class CheckActionsRequest(_message.Message):
    __slots__ = ("id", "check", "traceparent")
    ID_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    TRACEPARENT_FIELD_NUMBER: _ClassVar[int]
    id: int
    check: CheckActionRequest
    traceparent: str
    def __init__(self, id: _Optional[int] = ..., check: _Optional[_Union[CheckActionRequest, _Mapping]] = ..., traceparent: _Optional[str] = ...) -> None: ...

class CheckActionsResponse(_message.Message):
    __slots__ = ("id", "response", "error")
    ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    id: int
    response: CheckActionResponse
    error: CheckActionsError
    def __init__(self, id: _Optional[int] = ..., response: _Optional[_Union[CheckActionResponse, _Mapping]] = ..., error: _Optional[_Union[CheckActionsError, _Mapping]] = ...) -> None: ...

class CheckActionsError(_message.Message):
    __slots__ = ("code", "message", "reason", "field")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    reason: str
    field: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., field: _Optional[str] = ...) -> None: ...

class ExplainActionRequest(_message.Message):
    __slots__ = ("agent_id", "action", "context", "binary_context")
    class BinaryContextEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    BINARY_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    action: str
    context: _struct_pb2.Struct
    binary_context: _containers.ScalarMap[str, bytes]
    def __init__(self, agent_id: _Optional[str] = ..., action: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., binary_context: _Optional[_Mapping[str, bytes]] = ...) -> None: ...

class GuardrailExplanation(_message.Message):
    __slots__ = ("guardrail", "kind", "evaluated", "allowed", "severity", "reason", "duration", "decided", "needs_approval", "error", "shadow")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    DECIDED_FIELD_NUMBER: _ClassVar[int]
    NEEDS_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SHADOW_FIELD_NUMBER: _ClassVar[int]
    guardrail: str
    kind: str
    evaluated: bool
    allowed: bool
    severity: _common_pb2.Severity
    reason: str
    duration: _duration_pb2.Duration
    decided: bool
    needs_approval: bool
    error: str
    shadow: bool
    def __init__(self, guardrail: _Optional[str] = ..., kind: _Optional[str] = ..., evaluated: _Optional[bool] = ..., allowed: _Optional[bool] = ..., severity: _Optional[_Union[_common_pb2.Severity, str]] = ..., reason: _Optional[str] = ..., duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., decided: _Optional[bool] = ..., needs_approval: _Optional[bool] = ..., error: _Optional[str] = ..., shadow: _Optional[bool] = ...) -> None: ...

class ExplainActionResponse(_message.Message):
    __slots__ = ("allowed", "reason", "severity", "guardrail", "warnings", "guardrails", "needs_approval", "shadow")
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    GUARDRAILS_FIELD_NUMBER: _ClassVar[int]
    NEEDS_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SHADOW_FIELD_NUMBER: _ClassVar[int]
    allowed: bool
    reason: str
    severity: _common_pb2.Severity
    guardrail: str
    warnings: _containers.RepeatedCompositeFieldContainer[_supervisor_pb2.GuardrailWarning]
    guardrails: _containers.RepeatedCompositeFieldContainer[GuardrailExplanation]
    needs_approval: bool
    shadow: _supervisor_pb2.ShadowOutcome
    def __init__(self, allowed: _Optional[bool] = ..., reason: _Optional[str] = ..., severity: _Optional[_Union[_common_pb2.Severity, str]] = ..., guardrail: _Optional[str] = ..., warnings: _Optional[_Iterable[_Union[_supervisor_pb2.GuardrailWarning, _Mapping]]] = ..., guardrails: _Optional[_Iterable[_Union[GuardrailExplanation, _Mapping]]] = ..., needs_approval: _Optional[bool] = ..., shadow: _Optional[_Union[_supervisor_pb2.ShadowOutcome, _Mapping]] = ...) -> None: ...

class AddGuardrailRequest(_message.Message):
    __slots__ = ("guardrail", "request_id")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    guardrail: _supervisor_pb2.Guardrail
    request_id: str
    def __init__(self, guardrail: _Optional[_Union[_supervisor_pb2.Guardrail, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AddGuardrailResponse(_message.Message):
    __slots__ = ("guardrail", "position")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    guardrail: _supervisor_pb2.Guardrail
    position: int
    def __init__(self, guardrail: _Optional[_Union[_supervisor_pb2.Guardrail, _Mapping]] = ..., position: _Optional[int] = ...) -> None: ...

class RemoveGuardrailRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RemoveGuardrailResponse(_message.Message):
    __slots__ = ("removed_count",)
    REMOVED_COUNT_FIELD_NUMBER: _ClassVar[int]
    removed_count: int
    def __init__(self, removed_count: _Optional[int] = ...) -> None: ...

class ListGuardrailsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGuardrailsResponse(_message.Message):
    __slots__ = ("guardrails",)
    GUARDRAILS_FIELD_NUMBER: _ClassVar[int]
    guardrails: _containers.RepeatedCompositeFieldContainer[_supervisor_pb2.Guardrail]
    def __init__(self, guardrails: _Optional[_Iterable[_Union[_supervisor_pb2.Guardrail, _Mapping]]] = ...) -> None: ...

class ReloadPolicyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReloadPolicyResponse(_message.Message):
    __slots__ = ("guardrail_count", "source")
    GUARDRAIL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    guardrail_count: int
    source: str
    def __init__(self, guardrail_count: _Optional[int] = ..., source: _Optional[str] = ...) -> None: ...

class ListDecisionsRequest(_message.Message):
    __slots__ = ("agent_id", "action", "outcome", "guardrail", "start_time", "end_time", "page_size", "page_token", "shadow_outcome", "shadow_guardrail")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SHADOW_OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SHADOW_GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    action: str
    outcome: str
    guardrail: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    shadow_outcome: str
    shadow_guardrail: str
    def __init__(self, agent_id: _Optional[str] = ..., action: _Optional[str] = ..., outcome: _Optional[str] = ..., guardrail: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., shadow_outcome: _Optional[str] = ..., shadow_guardrail: _Optional[str] = ...) -> None: ...

class ListDecisionsResponse(_message.Message):
    __slots__ = ("decisions", "next_page_token")
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    decisions: _containers.RepeatedCompositeFieldContainer[_supervisor_pb2.Decision]
    next_page_token: str
    def __init__(self, decisions: _Optional[_Iterable[_Union[_supervisor_pb2.Decision, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetApprovalRequest(_message.Message):
    __slots__ = ("approval_id",)
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    def __init__(self, approval_id: _Optional[str] = ...) -> None: ...

class GetApprovalResponse(_message.Message):
    __slots__ = ("approval",)
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    approval: _supervisor_pb2.Approval
    def __init__(self, approval: _Optional[_Union[_supervisor_pb2.Approval, _Mapping]] = ...) -> None: ...

class WatchApprovalRequest(_message.Message):
    __slots__ = ("approval_id",)
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    def __init__(self, approval_id: _Optional[str] = ...) -> None: ...

class WatchApprovalResponse(_message.Message):
    __slots__ = ("approval",)
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    approval: _supervisor_pb2.Approval
    def __init__(self, approval: _Optional[_Union[_supervisor_pb2.Approval, _Mapping]] = ...) -> None: ...

class ListApprovalsRequest(_message.Message):
    __slots__ = ("agent_id", "action", "state", "reviewer", "start_time", "end_time", "page_size", "page_token")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    action: str
    state: _supervisor_pb2.ApprovalState
    reviewer: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, agent_id: _Optional[str] = ..., action: _Optional[str] = ..., state: _Optional[_Union[_supervisor_pb2.ApprovalState, str]] = ..., reviewer: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListApprovalsResponse(_message.Message):
    __slots__ = ("approvals", "next_page_token")
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    approvals: _containers.RepeatedCompositeFieldContainer[_supervisor_pb2.Approval]
    next_page_token: str
    def __init__(self, approvals: _Optional[_Iterable[_Union[_supervisor_pb2.Approval, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class DecideApprovalRequest(_message.Message):
    __slots__ = ("approval_id", "approve", "comment", "edited_context", "request_id")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    EDITED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    approve: bool
    comment: str
    edited_context: _struct_pb2.Struct
    request_id: str
    def __init__(self, approval_id: _Optional[str] = ..., approve: _Optional[bool] = ..., comment: _Optional[str] = ..., edited_context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class DecideApprovalResponse(_message.Message):
    __slots__ = ("approval",)
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    approval: _supervisor_pb2.Approval
    def __init__(self, approval: _Optional[_Union[_supervisor_pb2.Approval, _Mapping]] = ...) -> None: ...

class CancelApprovalRequest(_message.Message):
    __slots__ = ("approval_id", "reason", "request_id")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    reason: str
    request_id: str
    def __init__(self, approval_id: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CancelApprovalResponse(_message.Message):
    __slots__ = ("approval",)
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    approval: _supervisor_pb2.Approval
    def __init__(self, approval: _Optional[_Union[_supervisor_pb2.Approval, _Mapping]] = ...) -> None: ...

class AddApprovalPatternRequest(_message.Message):
    __slots__ = ("guardrail", "pattern", "request_id")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    guardrail: str
    pattern: str
    request_id: str
    def __init__(self, guardrail: _Optional[str] = ..., pattern: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class AddApprovalPatternResponse(_message.Message):
    __slots__ = ("patterns",)
    PATTERNS_FIELD_NUMBER: _ClassVar[int]
    patterns: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, patterns: _Optional[_Iterable[str]] = ...) -> None: ...

class RemoveApprovalPatternRequest(_message.Message):
    __slots__ = ("guardrail", "pattern", "request_id")
    GUARDRAIL_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    guardrail: str
    pattern: str
    request_id: str
    def __init__(self, guardrail: _Optional[str] = ..., pattern: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RemoveApprovalPatternResponse(_message.Message):
    __slots__ = ("patterns",)
    PATTERNS_FIELD_NUMBER: _ClassVar[int]
    patterns: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, patterns: _Optional[_Iterable[str]] = ...) -> None: ...
