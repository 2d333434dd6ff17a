import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import common_pb2 as _common_pb2
from outrider.v1 import safeguard_pb2 as _safeguard_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RecoveryAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECOVERY_ACTION_UNSPECIFIED: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_EJECT: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_REPLACE: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_RESTART: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_RESTART_CLEAN: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_ESCALATE: _ClassVar[RecoveryAction]

class RecoveryTrigger(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECOVERY_TRIGGER_UNSPECIFIED: _ClassVar[RecoveryTrigger]
    RECOVERY_TRIGGER_HEALTH_CHECK: _ClassVar[RecoveryTrigger]
    RECOVERY_TRIGGER_MANUAL: _ClassVar[RecoveryTrigger]

class KillReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KILL_REASON_UNSPECIFIED: _ClassVar[KillReason]
    KILL_REASON_BEHAVIORAL_DRIFT: _ClassVar[KillReason]
    KILL_REASON_RATE_LIMIT: _ClassVar[KillReason]
    KILL_REASON_RING_BREACH: _ClassVar[KillReason]
    KILL_REASON_MANUAL: _ClassVar[KillReason]
    KILL_REASON_QUARANTINE_TIMEOUT: _ClassVar[KillReason]
    KILL_REASON_SESSION_TIMEOUT: _ClassVar[KillReason]

class HandoffStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HANDOFF_STATUS_UNSPECIFIED: _ClassVar[HandoffStatus]
    HANDOFF_STATUS_PENDING: _ClassVar[HandoffStatus]
    HANDOFF_STATUS_HANDED_OFF: _ClassVar[HandoffStatus]
    HANDOFF_STATUS_FAILED: _ClassVar[HandoffStatus]
    HANDOFF_STATUS_COMPENSATED: _ClassVar[HandoffStatus]

class CascadeAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CASCADE_ACTION_UNSPECIFIED: _ClassVar[CascadeAction]
    CASCADE_ACTION_NONE: _ClassVar[CascadeAction]
    CASCADE_ACTION_OPEN_BREAKERS: _ClassVar[CascadeAction]
    CASCADE_ACTION_KILL_ROOT: _ClassVar[CascadeAction]

class ControlCommandType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTROL_COMMAND_TYPE_UNSPECIFIED: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_PING: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_RESTART: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_RESTART_CLEAN: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_KILL: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_HANDOFF: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_SIGWARN: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_SIGSTOP: _ClassVar[ControlCommandType]
    CONTROL_COMMAND_TYPE_SIGRESUME: _ClassVar[ControlCommandType]

class CommandOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMMAND_OUTCOME_UNSPECIFIED: _ClassVar[CommandOutcome]
    COMMAND_OUTCOME_SUCCESS: _ClassVar[CommandOutcome]
    COMMAND_OUTCOME_FAILURE: _ClassVar[CommandOutcome]
    COMMAND_OUTCOME_REJECTED: _ClassVar[CommandOutcome]

class RecoveryEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECOVERY_EVENT_TYPE_UNSPECIFIED: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_HEALTH_CHECK_FAILED: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_RECOVERY_ATTEMPT: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_ESCALATION: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_KILL: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_HANDOFF: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_CASCADE: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE: _ClassVar[RecoveryEventType]
    RECOVERY_EVENT_TYPE_BUDGET_SIGNAL: _ClassVar[RecoveryEventType]
RECOVERY_ACTION_UNSPECIFIED: RecoveryAction
RECOVERY_ACTION_EJECT: RecoveryAction
RECOVERY_ACTION_REPLACE: RecoveryAction
RECOVERY_ACTION_RESTART: RecoveryAction
RECOVERY_ACTION_RESTART_CLEAN: RecoveryAction
RECOVERY_ACTION_ESCALATE: RecoveryAction
RECOVERY_TRIGGER_UNSPECIFIED: RecoveryTrigger
RECOVERY_TRIGGER_HEALTH_CHECK: RecoveryTrigger
RECOVERY_TRIGGER_MANUAL: RecoveryTrigger
KILL_REASON_UNSPECIFIED: KillReason
KILL_REASON_BEHAVIORAL_DRIFT: KillReason
KILL_REASON_RATE_LIMIT: KillReason
KILL_REASON_RING_BREACH: KillReason
KILL_REASON_MANUAL: KillReason
KILL_REASON_QUARANTINE_TIMEOUT: KillReason
KILL_REASON_SESSION_TIMEOUT: KillReason
HANDOFF_STATUS_UNSPECIFIED: HandoffStatus
HANDOFF_STATUS_PENDING: HandoffStatus
HANDOFF_STATUS_HANDED_OFF: HandoffStatus
HANDOFF_STATUS_FAILED: HandoffStatus
HANDOFF_STATUS_COMPENSATED: HandoffStatus
CASCADE_ACTION_UNSPECIFIED: CascadeAction
CASCADE_ACTION_NONE: CascadeAction
CASCADE_ACTION_OPEN_BREAKERS: CascadeAction
CASCADE_ACTION_KILL_ROOT: CascadeAction
CONTROL_COMMAND_TYPE_UNSPECIFIED: ControlCommandType
CONTROL_COMMAND_TYPE_PING: ControlCommandType
CONTROL_COMMAND_TYPE_RESTART: ControlCommandType
CONTROL_COMMAND_TYPE_RESTART_CLEAN: ControlCommandType
CONTROL_COMMAND_TYPE_KILL: ControlCommandType
CONTROL_COMMAND_TYPE_HANDOFF: ControlCommandType
CONTROL_COMMAND_TYPE_SIGWARN: ControlCommandType
CONTROL_COMMAND_TYPE_SIGSTOP: ControlCommandType
CONTROL_COMMAND_TYPE_SIGRESUME: ControlCommandType
COMMAND_OUTCOME_UNSPECIFIED: CommandOutcome
COMMAND_OUTCOME_SUCCESS: CommandOutcome
COMMAND_OUTCOME_FAILURE: CommandOutcome
COMMAND_OUTCOME_REJECTED: CommandOutcome
RECOVERY_EVENT_TYPE_UNSPECIFIED: RecoveryEventType
RECOVERY_EVENT_TYPE_HEALTH_CHECK_FAILED: RecoveryEventType
RECOVERY_EVENT_TYPE_RECOVERY_ATTEMPT: RecoveryEventType
RECOVERY_EVENT_TYPE_ESCALATION: RecoveryEventType
RECOVERY_EVENT_TYPE_KILL: RecoveryEventType
RECOVERY_EVENT_TYPE_HANDOFF: RecoveryEventType
RECOVERY_EVENT_TYPE_CASCADE: RecoveryEventType
RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE: RecoveryEventType
RECOVERY_EVENT_TYPE_BUDGET_SIGNAL: RecoveryEventType

class PingCheck(_message.Message):
    __slots__ = ("timeout",)
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    timeout: _duration_pb2.Duration
    def __init__(self, timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class HeartbeatCheck(_message.Message):
    __slots__ = ("silence_threshold",)
    SILENCE_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    silence_threshold: _duration_pb2.Duration
    def __init__(self, silence_threshold: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class GrpcCheck(_message.Message):
    __slots__ = ("target", "service", "timeout")
    TARGET_FIELD_NUMBER: _ClassVar[int]
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    target: str
    service: str
    timeout: _duration_pb2.Duration
    def __init__(self, target: _Optional[str] = ..., service: _Optional[str] = ..., timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class HttpCheck(_message.Message):
    __slots__ = ("url", "timeout")
    URL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    url: str
    timeout: _duration_pb2.Duration
    def __init__(self, url: _Optional[str] = ..., timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class HealthCheck(_message.Message):
    __slots__ = ("ping", "heartbeat", "grpc", "http")
    PING_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    GRPC_FIELD_NUMBER: _ClassVar[int]
    HTTP_FIELD_NUMBER: _ClassVar[int]
    ping: PingCheck
    heartbeat: HeartbeatCheck
    grpc: GrpcCheck
    http: HttpCheck
    def __init__(self, ping: _Optional[_Union[PingCheck, _Mapping]] = ..., heartbeat: _Optional[_Union[HeartbeatCheck, _Mapping]] = ..., grpc: _Optional[_Union[GrpcCheck, _Mapping]] = ..., http: _Optional[_Union[HttpCheck, _Mapping]] = ...) -> None: ...

class HealthStatus(_message.Message):
    __slots__ = ("agent_id", "healthy", "reason", "check_time", "latency")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHECK_TIME_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    healthy: bool
    reason: str
    check_time: _timestamp_pb2.Timestamp
    latency: _duration_pb2.Duration
    def __init__(self, agent_id: _Optional[str] = ..., healthy: _Optional[bool] = ..., reason: _Optional[str] = ..., check_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., latency: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class MonitoringState(_message.Message):
    __slots__ = ("running", "interval", "start_time", "last_run_time", "next_run_time")
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_TIME_FIELD_NUMBER: _ClassVar[int]
    NEXT_RUN_TIME_FIELD_NUMBER: _ClassVar[int]
    running: bool
    interval: _duration_pb2.Duration
    start_time: _timestamp_pb2.Timestamp
    last_run_time: _timestamp_pb2.Timestamp
    next_run_time: _timestamp_pb2.Timestamp
    def __init__(self, running: _Optional[bool] = ..., interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_run_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_run_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RecoveryPolicy(_message.Message):
    __slots__ = ("group", "max_retries", "escalate_after", "cooldown", "default_action", "source", "update_time")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    MAX_RETRIES_FIELD_NUMBER: _ClassVar[int]
    ESCALATE_AFTER_FIELD_NUMBER: _ClassVar[int]
    COOLDOWN_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_ACTION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    group: str
    max_retries: int
    escalate_after: int
    cooldown: _duration_pb2.Duration
    default_action: RecoveryAction
    source: str
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, group: _Optional[str] = ..., max_retries: _Optional[int] = ..., escalate_after: _Optional[int] = ..., cooldown: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., default_action: _Optional[_Union[RecoveryAction, str]] = ..., source: _Optional[str] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RecoveryResult(_message.Message):
    __slots__ = ("recovery_id", "agent_id", "group", "action_taken", "success", "detail", "reason", "trigger", "retry_count", "in_cooldown", "replacement_agent_id", "command_id", "attempt_time")
    RECOVERY_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ACTION_TAKEN_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    RETRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    IN_COOLDOWN_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    recovery_id: str
    agent_id: str
    group: str
    action_taken: RecoveryAction
    success: bool
    detail: str
    reason: str
    trigger: RecoveryTrigger
    retry_count: int
    in_cooldown: bool
    replacement_agent_id: str
    command_id: str
    attempt_time: _timestamp_pb2.Timestamp
    def __init__(self, recovery_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., group: _Optional[str] = ..., action_taken: _Optional[_Union[RecoveryAction, str]] = ..., success: _Optional[bool] = ..., detail: _Optional[str] = ..., reason: _Optional[str] = ..., trigger: _Optional[_Union[RecoveryTrigger, str]] = ..., retry_count: _Optional[int] = ..., in_cooldown: _Optional[bool] = ..., replacement_agent_id: _Optional[str] = ..., command_id: _Optional[str] = ..., attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Escalation(_message.Message):
    __slots__ = ("agent_id", "group", "failed_attempts", "reason", "recovery_id", "escalate_time")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    FAILED_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RECOVERY_ID_FIELD_NUMBER: _ClassVar[int]
    ESCALATE_TIME_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    group: str
    failed_attempts: int
    reason: str
    recovery_id: str
    escalate_time: _timestamp_pb2.Timestamp
    def __init__(self, agent_id: _Optional[str] = ..., group: _Optional[str] = ..., failed_attempts: _Optional[int] = ..., reason: _Optional[str] = ..., recovery_id: _Optional[str] = ..., escalate_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class AgentRecoveryStatus(_message.Message):
    __slots__ = ("agent", "health_check", "last_status", "retry_count", "connected", "connect_time", "last_seen_time", "last_recovery", "escalated")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    HEALTH_CHECK_FIELD_NUMBER: _ClassVar[int]
    LAST_STATUS_FIELD_NUMBER: _ClassVar[int]
    RETRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    CONNECT_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_RECOVERY_FIELD_NUMBER: _ClassVar[int]
    ESCALATED_FIELD_NUMBER: _ClassVar[int]
    agent: _common_pb2.Agent
    health_check: HealthCheck
    last_status: HealthStatus
    retry_count: int
    connected: bool
    connect_time: _timestamp_pb2.Timestamp
    last_seen_time: _timestamp_pb2.Timestamp
    last_recovery: RecoveryResult
    escalated: bool
    def __init__(self, agent: _Optional[_Union[_common_pb2.Agent, _Mapping]] = ..., health_check: _Optional[_Union[HealthCheck, _Mapping]] = ..., last_status: _Optional[_Union[HealthStatus, _Mapping]] = ..., retry_count: _Optional[int] = ..., connected: _Optional[bool] = ..., connect_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_seen_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_recovery: _Optional[_Union[RecoveryResult, _Mapping]] = ..., escalated: _Optional[bool] = ...) -> None: ...

class SagaStep(_message.Message):
    __slots__ = ("saga_id", "step_id", "action", "payload", "compensation")
    SAGA_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    COMPENSATION_FIELD_NUMBER: _ClassVar[int]
    saga_id: str
    step_id: str
    action: str
    payload: _struct_pb2.Struct
    compensation: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.CompensatingAction]
    def __init__(self, saga_id: _Optional[str] = ..., step_id: _Optional[str] = ..., action: _Optional[str] = ..., payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., compensation: _Optional[_Iterable[_Union[_safeguard_pb2.CompensatingAction, _Mapping]]] = ...) -> None: ...

class HandoffAttempt(_message.Message):
    __slots__ = ("to_agent", "command_id", "status", "detail", "send_time", "settle_time")
    TO_AGENT_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SEND_TIME_FIELD_NUMBER: _ClassVar[int]
    SETTLE_TIME_FIELD_NUMBER: _ClassVar[int]
    to_agent: str
    command_id: str
    status: HandoffStatus
    detail: str
    send_time: _timestamp_pb2.Timestamp
    settle_time: _timestamp_pb2.Timestamp
    def __init__(self, to_agent: _Optional[str] = ..., command_id: _Optional[str] = ..., status: _Optional[_Union[HandoffStatus, str]] = ..., detail: _Optional[str] = ..., send_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., settle_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StepHandoff(_message.Message):
    __slots__ = ("saga_id", "step_id", "action", "from_agent", "to_agent", "status", "attempts", "compensating_actions", "kill_id", "session_id", "update_time")
    SAGA_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FROM_AGENT_FIELD_NUMBER: _ClassVar[int]
    TO_AGENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    COMPENSATING_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    saga_id: str
    step_id: str
    action: str
    from_agent: str
    to_agent: str
    status: HandoffStatus
    attempts: _containers.RepeatedCompositeFieldContainer[HandoffAttempt]
    compensating_actions: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.CompensatingAction]
    kill_id: str
    session_id: str
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, saga_id: _Optional[str] = ..., step_id: _Optional[str] = ..., action: _Optional[str] = ..., from_agent: _Optional[str] = ..., to_agent: _Optional[str] = ..., status: _Optional[_Union[HandoffStatus, str]] = ..., attempts: _Optional[_Iterable[_Union[HandoffAttempt, _Mapping]]] = ..., compensating_actions: _Optional[_Iterable[_Union[_safeguard_pb2.CompensatingAction, _Mapping]]] = ..., kill_id: _Optional[str] = ..., session_id: _Optional[str] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class KillResult(_message.Message):
    __slots__ = ("kill_id", "agent_id", "session_id", "reason", "handoffs", "handoff_success_count", "compensation_triggered", "terminated", "detail", "request_details", "requested_by", "cancelled_approval_count", "revoked_lease_count", "kill_time", "complete_time", "request_id")
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    HANDOFFS_FIELD_NUMBER: _ClassVar[int]
    HANDOFF_SUCCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    COMPENSATION_TRIGGERED_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_DETAILS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_APPROVAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    REVOKED_LEASE_COUNT_FIELD_NUMBER: _ClassVar[int]
    KILL_TIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_TIME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    kill_id: str
    agent_id: str
    session_id: str
    reason: KillReason
    handoffs: _containers.RepeatedCompositeFieldContainer[StepHandoff]
    handoff_success_count: int
    compensation_triggered: bool
    terminated: bool
    detail: str
    request_details: str
    requested_by: str
    cancelled_approval_count: int
    revoked_lease_count: int
    kill_time: _timestamp_pb2.Timestamp
    complete_time: _timestamp_pb2.Timestamp
    request_id: str
    def __init__(self, kill_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., session_id: _Optional[str] = ..., reason: _Optional[_Union[KillReason, str]] = ..., handoffs: _Optional[_Iterable[_Union[StepHandoff, _Mapping]]] = ..., handoff_success_count: _Optional[int] = ..., compensation_triggered: _Optional[bool] = ..., terminated: _Optional[bool] = ..., detail: _Optional[str] = ..., request_details: _Optional[str] = ..., requested_by: _Optional[str] = ..., cancelled_approval_count: _Optional[int] = ..., revoked_lease_count: _Optional[int] = ..., kill_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., complete_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class Substitute(_message.Message):
    __slots__ = ("session_id", "group", "agent_id", "position", "register_time")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    REGISTER_TIME_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    group: str
    agent_id: str
    position: int
    register_time: _timestamp_pb2.Timestamp
    def __init__(self, session_id: _Optional[str] = ..., group: _Optional[str] = ..., agent_id: _Optional[str] = ..., position: _Optional[int] = ..., register_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CascadePolicy(_message.Message):
    __slots__ = ("window", "threshold", "action", "kill_reason", "source", "update_time")
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    KILL_REASON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    window: _duration_pb2.Duration
    threshold: int
    action: CascadeAction
    kill_reason: KillReason
    source: str
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, window: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., threshold: _Optional[int] = ..., action: _Optional[_Union[CascadeAction, str]] = ..., kill_reason: _Optional[_Union[KillReason, str]] = ..., source: _Optional[str] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class AgentFailure(_message.Message):
    __slots__ = ("from_agent", "to_agent", "detail", "source", "failure_time", "reporter")
    FROM_AGENT_FIELD_NUMBER: _ClassVar[int]
    TO_AGENT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_TIME_FIELD_NUMBER: _ClassVar[int]
    REPORTER_FIELD_NUMBER: _ClassVar[int]
    from_agent: str
    to_agent: str
    detail: str
    source: str
    failure_time: _timestamp_pb2.Timestamp
    reporter: str
    def __init__(self, from_agent: _Optional[str] = ..., to_agent: _Optional[str] = ..., detail: _Optional[str] = ..., source: _Optional[str] = ..., failure_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reporter: _Optional[str] = ...) -> None: ...

class Cascade(_message.Message):
    __slots__ = ("cascade_id", "failures", "agent_ids", "root_agent", "action", "kill_id", "opened_breakers", "detect_time", "corroborated")
    CASCADE_ID_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    AGENT_IDS_FIELD_NUMBER: _ClassVar[int]
    ROOT_AGENT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    OPENED_BREAKERS_FIELD_NUMBER: _ClassVar[int]
    DETECT_TIME_FIELD_NUMBER: _ClassVar[int]
    CORROBORATED_FIELD_NUMBER: _ClassVar[int]
    cascade_id: str
    failures: _containers.RepeatedCompositeFieldContainer[AgentFailure]
    agent_ids: _containers.RepeatedScalarFieldContainer[str]
    root_agent: str
    action: CascadeAction
    kill_id: str
    opened_breakers: _containers.RepeatedScalarFieldContainer[str]
    detect_time: _timestamp_pb2.Timestamp
    corroborated: bool
    def __init__(self, cascade_id: _Optional[str] = ..., failures: _Optional[_Iterable[_Union[AgentFailure, _Mapping]]] = ..., agent_ids: _Optional[_Iterable[str]] = ..., root_agent: _Optional[str] = ..., action: _Optional[_Union[CascadeAction, str]] = ..., kill_id: _Optional[str] = ..., opened_breakers: _Optional[_Iterable[str]] = ..., detect_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., corroborated: _Optional[bool] = ...) -> None: ...

class KillCommand(_message.Message):
    __slots__ = ("kill_id", "reason", "details")
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    kill_id: str
    reason: KillReason
    details: str
    def __init__(self, kill_id: _Optional[str] = ..., reason: _Optional[_Union[KillReason, str]] = ..., details: _Optional[str] = ...) -> None: ...

class HandoffCommand(_message.Message):
    __slots__ = ("kill_id", "session_id", "from_agent", "step")
    KILL_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_AGENT_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    kill_id: str
    session_id: str
    from_agent: str
    step: SagaStep
    def __init__(self, kill_id: _Optional[str] = ..., session_id: _Optional[str] = ..., from_agent: _Optional[str] = ..., step: _Optional[_Union[SagaStep, _Mapping]] = ...) -> None: ...

class ControlCommand(_message.Message):
    __slots__ = ("command_id", "type", "reason", "send_time", "expire_time", "kill", "handoff", "budget_signal")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEND_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    KILL_FIELD_NUMBER: _ClassVar[int]
    HANDOFF_FIELD_NUMBER: _ClassVar[int]
    BUDGET_SIGNAL_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    type: ControlCommandType
    reason: str
    send_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    kill: KillCommand
    handoff: HandoffCommand
    budget_signal: _safeguard_pb2.BudgetSignal
    def __init__(self, command_id: _Optional[str] = ..., type: _Optional[_Union[ControlCommandType, str]] = ..., reason: _Optional[str] = ..., send_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kill: _Optional[_Union[KillCommand, _Mapping]] = ..., handoff: _Optional[_Union[HandoffCommand, _Mapping]] = ..., budget_signal: _Optional[_Union[_safeguard_pb2.BudgetSignal, _Mapping]] = ...) -> None: ...

class AttachHello(_message.Message):
    __slots__ = ("agent_id", "instance_id", "client")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    instance_id: str
    client: str
    def __init__(self, agent_id: _Optional[str] = ..., instance_id: _Optional[str] = ..., client: _Optional[str] = ...) -> None: ...

class CommandAck(_message.Message):
    __slots__ = ("command_id", "outcome", "detail")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    outcome: CommandOutcome
    detail: str
    def __init__(self, command_id: _Optional[str] = ..., outcome: _Optional[_Union[CommandOutcome, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class AttachHeartbeat(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AttachAccepted(_message.Message):
    __slots__ = ("agent_id", "heartbeat_interval", "server_time")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    heartbeat_interval: _duration_pb2.Duration
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, agent_id: _Optional[str] = ..., heartbeat_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RecoveryEvent(_message.Message):
    __slots__ = ("sequence", "type", "agent_id", "event_time", "health_status", "recovery_result", "escalation", "kill", "handoff", "cascade", "breaker_state_change", "budget_signal")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    HEALTH_STATUS_FIELD_NUMBER: _ClassVar[int]
    RECOVERY_RESULT_FIELD_NUMBER: _ClassVar[int]
    ESCALATION_FIELD_NUMBER: _ClassVar[int]
    KILL_FIELD_NUMBER: _ClassVar[int]
    HANDOFF_FIELD_NUMBER: _ClassVar[int]
    CASCADE_FIELD_NUMBER: _ClassVar[int]
    BREAKER_STATE_CHANGE_FIELD_NUMBER: _ClassVar[int]
    BUDGET_SIGNAL_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    type: RecoveryEventType
    agent_id: str
    event_time: _timestamp_pb2.Timestamp
    health_status: HealthStatus
    recovery_result: RecoveryResult
    escalation: Escalation
    kill: KillResult
    handoff: StepHandoff
    cascade: Cascade
    breaker_state_change: _safeguard_pb2.BreakerStateChange
    budget_signal: _safeguard_pb2.BudgetSignal
    def __init__(self, sequence: _Optional[int] = ..., type: _Optional[_Union[RecoveryEventType, str]] = ..., agent_id: _Optional[str] = ..., event_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., health_status: _Optional[_Union[HealthStatus, _Mapping]] = ..., recovery_result: _Optional[_Union[RecoveryResult, _Mapping]] = ..., escalation: _Optional[_Union[Escalation, _Mapping]] = ..., kill: _Optional[_Union[KillResult, _Mapping]] = ..., handoff: _Optional[_Union[StepHandoff, _Mapping]] = ..., cascade: _Optional[_Union[Cascade, _Mapping]] = ..., breaker_state_change: _Optional[_Union[_safeguard_pb2.BreakerStateChange, _Mapping]] = ..., budget_signal: _Optional[_Union[_safeguard_pb2.BudgetSignal, _Mapping]] = ...) -> None: ...
