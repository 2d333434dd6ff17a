import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import recovery_pb2 as _recovery_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AttachRequest(_message.Message):
    __slots__ = ("hello", "ack", "heartbeat")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACK_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    hello: _recovery_pb2.AttachHello
    ack: _recovery_pb2.CommandAck
    heartbeat: _recovery_pb2.AttachHeartbeat
    def __init__(self, hello: _Optional[_Union[_recovery_pb2.AttachHello, _Mapping]] = ..., ack: _Optional[_Union[_recovery_pb2.CommandAck, _Mapping]] = ..., heartbeat: _Optional[_Union[_recovery_pb2.AttachHeartbeat, _Mapping]] = ...) -> None: ...

class AttachResponse(_message.Message):
    __slots__ = ("accepted", "command")
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    accepted: _recovery_pb2.AttachAccepted
    command: _recovery_pb2.ControlCommand
    def __init__(self, accepted: _Optional[_Union[_recovery_pb2.AttachAccepted, _Mapping]] = ..., command: _Optional[_Union[_recovery_pb2.ControlCommand, _Mapping]] = ...) -> None: ...

class HeartbeatRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class HeartbeatResponse(_message.Message):
    __slots__ = ("receive_time", "heartbeat_interval")
    RECEIVE_TIME_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    receive_time: _timestamp_pb2.Timestamp
    heartbeat_interval: _duration_pb2.Duration
    def __init__(self, receive_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., heartbeat_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class AddHealthCheckRequest(_message.Message):
    __slots__ = ("agent_id", "check", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    check: _recovery_pb2.HealthCheck
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., check: _Optional[_Union[_recovery_pb2.HealthCheck, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AddHealthCheckResponse(_message.Message):
    __slots__ = ("agent_id", "check", "replaced")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    REPLACED_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    check: _recovery_pb2.HealthCheck
    replaced: bool
    def __init__(self, agent_id: _Optional[str] = ..., check: _Optional[_Union[_recovery_pb2.HealthCheck, _Mapping]] = ..., replaced: _Optional[bool] = ...) -> None: ...

class RemoveHealthCheckRequest(_message.Message):
    __slots__ = ("agent_id", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RemoveHealthCheckResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartMonitoringRequest(_message.Message):
    __slots__ = ("interval", "request_id")
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    interval: _duration_pb2.Duration
    request_id: str
    def __init__(self, interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class StartMonitoringResponse(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: _recovery_pb2.MonitoringState
    def __init__(self, state: _Optional[_Union[_recovery_pb2.MonitoringState, _Mapping]] = ...) -> None: ...

class StopMonitoringRequest(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class StopMonitoringResponse(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: _recovery_pb2.MonitoringState
    def __init__(self, state: _Optional[_Union[_recovery_pb2.MonitoringState, _Mapping]] = ...) -> None: ...

class GetMonitoringStateRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetMonitoringStateResponse(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: _recovery_pb2.MonitoringState
    def __init__(self, state: _Optional[_Union[_recovery_pb2.MonitoringState, _Mapping]] = ...) -> None: ...

class RunHealthChecksRequest(_message.Message):
    __slots__ = ("group", "request_id")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    group: str
    request_id: str
    def __init__(self, group: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RunHealthChecksResponse(_message.Message):
    __slots__ = ("statuses", "recoveries")
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    RECOVERIES_FIELD_NUMBER: _ClassVar[int]
    statuses: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.HealthStatus]
    recoveries: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.RecoveryResult]
    def __init__(self, statuses: _Optional[_Iterable[_Union[_recovery_pb2.HealthStatus, _Mapping]]] = ..., recoveries: _Optional[_Iterable[_Union[_recovery_pb2.RecoveryResult, _Mapping]]] = ...) -> None: ...

class GetAgentRecoveryStatusRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetAgentRecoveryStatusResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: _recovery_pb2.AgentRecoveryStatus
    def __init__(self, status: _Optional[_Union[_recovery_pb2.AgentRecoveryStatus, _Mapping]] = ...) -> None: ...

class ListAgentRecoveryStatusesRequest(_message.Message):
    __slots__ = ("group", "page_size", "page_token")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    group: str
    page_size: int
    page_token: str
    def __init__(self, group: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAgentRecoveryStatusesResponse(_message.Message):
    __slots__ = ("statuses", "next_page_token")
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    statuses: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.AgentRecoveryStatus]
    next_page_token: str
    def __init__(self, statuses: _Optional[_Iterable[_Union[_recovery_pb2.AgentRecoveryStatus, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class TriggerRecoveryRequest(_message.Message):
    __slots__ = ("agent_id", "reason", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    reason: str
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class TriggerRecoveryResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: _recovery_pb2.RecoveryResult
    def __init__(self, result: _Optional[_Union[_recovery_pb2.RecoveryResult, _Mapping]] = ...) -> None: ...

class SetRecoveryPolicyRequest(_message.Message):
    __slots__ = ("policy", "request_id")
    POLICY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    policy: _recovery_pb2.RecoveryPolicy
    request_id: str
    def __init__(self, policy: _Optional[_Union[_recovery_pb2.RecoveryPolicy, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetRecoveryPolicyResponse(_message.Message):
    __slots__ = ("policy",)
    POLICY_FIELD_NUMBER: _ClassVar[int]
    policy: _recovery_pb2.RecoveryPolicy
    def __init__(self, policy: _Optional[_Union[_recovery_pb2.RecoveryPolicy, _Mapping]] = ...) -> None: ...

class GetRecoveryPolicyRequest(_message.Message):
    __slots__ = ("group",)
    GROUP_FIELD_NUMBER: _ClassVar[int]
    group: str
    def __init__(self, group: _Optional[str] = ...) -> None: ...

class GetRecoveryPolicyResponse(_message.Message):
    __slots__ = ("policy",)
    POLICY_FIELD_NUMBER: _ClassVar[int]
    policy: _recovery_pb2.RecoveryPolicy
    def __init__(self, policy: _Optional[_Union[_recovery_pb2.RecoveryPolicy, _Mapping]] = ...) -> None: ...

class ListRecoveryPoliciesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListRecoveryPoliciesResponse(_message.Message):
    __slots__ = ("policies", "next_page_token")
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    policies: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.RecoveryPolicy]
    next_page_token: str
    def __init__(self, policies: _Optional[_Iterable[_Union[_recovery_pb2.RecoveryPolicy, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResetRetryCounterRequest(_message.Message):
    __slots__ = ("agent_id", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResetRetryCounterResponse(_message.Message):
    __slots__ = ("previous_retry_count",)
    PREVIOUS_RETRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    previous_retry_count: int
    def __init__(self, previous_retry_count: _Optional[int] = ...) -> None: ...

class GetRecoveryHistoryRequest(_message.Message):
    __slots__ = ("agent_id", "group", "action_taken", "trigger", "start_time", "end_time", "page_size", "page_token")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ACTION_TAKEN_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    group: str
    action_taken: _recovery_pb2.RecoveryAction
    trigger: _recovery_pb2.RecoveryTrigger
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, agent_id: _Optional[str] = ..., group: _Optional[str] = ..., action_taken: _Optional[_Union[_recovery_pb2.RecoveryAction, str]] = ..., trigger: _Optional[_Union[_recovery_pb2.RecoveryTrigger, str]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetRecoveryHistoryResponse(_message.Message):
    __slots__ = ("results", "next_page_token")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.RecoveryResult]
    next_page_token: str
    def __init__(self, results: _Optional[_Iterable[_Union[_recovery_pb2.RecoveryResult, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetRetryCountRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetRetryCountResponse(_message.Message):
    __slots__ = ("retry_count",)
    RETRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    retry_count: int
    def __init__(self, retry_count: _Optional[int] = ...) -> None: ...

class KillRequest(_message.Message):
    __slots__ = ("agent_id", "session_id", "reason", "in_flight_steps", "details", "callback_timeout", "handoff_timeout", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    IN_FLIGHT_STEPS_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    CALLBACK_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    HANDOFF_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    session_id: str
    reason: _recovery_pb2.KillReason
    in_flight_steps: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.SagaStep]
    details: str
    callback_timeout: _duration_pb2.Duration
    handoff_timeout: _duration_pb2.Duration
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., session_id: _Optional[str] = ..., reason: _Optional[_Union[_recovery_pb2.KillReason, str]] = ..., in_flight_steps: _Optional[_Iterable[_Union[_recovery_pb2.SagaStep, _Mapping]]] = ..., details: _Optional[str] = ..., callback_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., handoff_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class KillResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: _recovery_pb2.KillResult
    def __init__(self, result: _Optional[_Union[_recovery_pb2.KillResult, _Mapping]] = ...) -> None: ...

class ReinstateAgentRequest(_message.Message):
    __slots__ = ("agent_id", "reason", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    reason: str
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReinstateAgentResponse(_message.Message):
    __slots__ = ("agent_id", "previous_standing", "kill_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_STANDING_FIELD_NUMBER: _ClassVar[int]
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    previous_standing: str
    kill_id: str
    def __init__(self, agent_id: _Optional[str] = ..., previous_standing: _Optional[str] = ..., kill_id: _Optional[str] = ...) -> None: ...

class GetKillRequest(_message.Message):
    __slots__ = ("kill_id",)
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    kill_id: str
    def __init__(self, kill_id: _Optional[str] = ...) -> None: ...

class GetKillResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: _recovery_pb2.KillResult
    def __init__(self, result: _Optional[_Union[_recovery_pb2.KillResult, _Mapping]] = ...) -> None: ...

class ListKillsRequest(_message.Message):
    __slots__ = ("agent_id", "session_id", "reason", "start_time", "end_time", "page_size", "page_token")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    session_id: str
    reason: _recovery_pb2.KillReason
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, agent_id: _Optional[str] = ..., session_id: _Optional[str] = ..., reason: _Optional[_Union[_recovery_pb2.KillReason, str]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListKillsResponse(_message.Message):
    __slots__ = ("kills", "next_page_token")
    KILLS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kills: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.KillResult]
    next_page_token: str
    def __init__(self, kills: _Optional[_Iterable[_Union[_recovery_pb2.KillResult, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RegisterSubstituteRequest(_message.Message):
    __slots__ = ("session_id", "group", "agent_id", "request_id")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    group: str
    agent_id: str
    request_id: str
    def __init__(self, session_id: _Optional[str] = ..., group: _Optional[str] = ..., agent_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RegisterSubstituteResponse(_message.Message):
    __slots__ = ("substitute",)
    SUBSTITUTE_FIELD_NUMBER: _ClassVar[int]
    substitute: _recovery_pb2.Substitute
    def __init__(self, substitute: _Optional[_Union[_recovery_pb2.Substitute, _Mapping]] = ...) -> None: ...

class DeregisterSubstituteRequest(_message.Message):
    __slots__ = ("session_id", "group", "agent_id", "request_id")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    group: str
    agent_id: str
    request_id: str
    def __init__(self, session_id: _Optional[str] = ..., group: _Optional[str] = ..., agent_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class DeregisterSubstituteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListSubstitutesRequest(_message.Message):
    __slots__ = ("session_id", "group", "page_size", "page_token")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    group: str
    page_size: int
    page_token: str
    def __init__(self, session_id: _Optional[str] = ..., group: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSubstitutesResponse(_message.Message):
    __slots__ = ("substitutes", "next_page_token")
    SUBSTITUTES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    substitutes: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.Substitute]
    next_page_token: str
    def __init__(self, substitutes: _Optional[_Iterable[_Union[_recovery_pb2.Substitute, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ReportFailureRequest(_message.Message):
    __slots__ = ("from_agent", "to_agent", "detail", "request_id")
    FROM_AGENT_FIELD_NUMBER: _ClassVar[int]
    TO_AGENT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    from_agent: str
    to_agent: str
    detail: str
    request_id: str
    def __init__(self, from_agent: _Optional[str] = ..., to_agent: _Optional[str] = ..., detail: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReportFailureResponse(_message.Message):
    __slots__ = ("failure", "cascade")
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    CASCADE_FIELD_NUMBER: _ClassVar[int]
    failure: _recovery_pb2.AgentFailure
    cascade: _recovery_pb2.Cascade
    def __init__(self, failure: _Optional[_Union[_recovery_pb2.AgentFailure, _Mapping]] = ..., cascade: _Optional[_Union[_recovery_pb2.Cascade, _Mapping]] = ...) -> None: ...

class GetCascadePolicyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCascadePolicyResponse(_message.Message):
    __slots__ = ("policy",)
    POLICY_FIELD_NUMBER: _ClassVar[int]
    policy: _recovery_pb2.CascadePolicy
    def __init__(self, policy: _Optional[_Union[_recovery_pb2.CascadePolicy, _Mapping]] = ...) -> None: ...

class SetCascadePolicyRequest(_message.Message):
    __slots__ = ("policy", "request_id")
    POLICY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    policy: _recovery_pb2.CascadePolicy
    request_id: str
    def __init__(self, policy: _Optional[_Union[_recovery_pb2.CascadePolicy, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetCascadePolicyResponse(_message.Message):
    __slots__ = ("policy",)
    POLICY_FIELD_NUMBER: _ClassVar[int]
    policy: _recovery_pb2.CascadePolicy
    def __init__(self, policy: _Optional[_Union[_recovery_pb2.CascadePolicy, _Mapping]] = ...) -> None: ...

class WatchRecoveryEventsRequest(_message.Message):
    __slots__ = ("start_cursor", "types", "agent_id")
    START_CURSOR_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    start_cursor: int
    types: _containers.RepeatedScalarFieldContainer[_recovery_pb2.RecoveryEventType]
    agent_id: str
    def __init__(self, start_cursor: _Optional[int] = ..., types: _Optional[_Iterable[_Union[_recovery_pb2.RecoveryEventType, str]]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class WatchRecoveryEventsResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _recovery_pb2.RecoveryEvent
    def __init__(self, event: _Optional[_Union[_recovery_pb2.RecoveryEvent, _Mapping]] = ...) -> None: ...

class ListRecoveryEventsRequest(_message.Message):
    __slots__ = ("types", "agent_id", "start_time", "end_time", "page_size", "page_token")
    TYPES_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedScalarFieldContainer[_recovery_pb2.RecoveryEventType]
    agent_id: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, types: _Optional[_Iterable[_Union[_recovery_pb2.RecoveryEventType, str]]] = ..., agent_id: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListRecoveryEventsResponse(_message.Message):
    __slots__ = ("events", "next_page_token", "latest_sequence")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LATEST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_recovery_pb2.RecoveryEvent]
    next_page_token: str
    latest_sequence: int
    def __init__(self, events: _Optional[_Iterable[_Union[_recovery_pb2.RecoveryEvent, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., latest_sequence: _Optional[int] = ...) -> None: ...
