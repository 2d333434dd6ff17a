import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BreakerState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BREAKER_STATE_UNSPECIFIED: _ClassVar[BreakerState]
    BREAKER_STATE_CLOSED: _ClassVar[BreakerState]
    BREAKER_STATE_OPEN: _ClassVar[BreakerState]
    BREAKER_STATE_HALF_OPEN: _ClassVar[BreakerState]

class CallOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CALL_OUTCOME_UNSPECIFIED: _ClassVar[CallOutcome]
    CALL_OUTCOME_SUCCESS: _ClassVar[CallOutcome]
    CALL_OUTCOME_FAILURE: _ClassVar[CallOutcome]

class DegradationStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEGRADATION_STRATEGY_UNSPECIFIED: _ClassVar[DegradationStrategy]
    DEGRADATION_STRATEGY_FALLBACK: _ClassVar[DegradationStrategy]
    DEGRADATION_STRATEGY_SKIP: _ClassVar[DegradationStrategy]
    DEGRADATION_STRATEGY_CACHED: _ClassVar[DegradationStrategy]
    DEGRADATION_STRATEGY_FAIL_FAST: _ClassVar[DegradationStrategy]

class BreakerDirective(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BREAKER_DIRECTIVE_UNSPECIFIED: _ClassVar[BreakerDirective]
    BREAKER_DIRECTIVE_RETURN_RESULT: _ClassVar[BreakerDirective]
    BREAKER_DIRECTIVE_RETHROW: _ClassVar[BreakerDirective]
    BREAKER_DIRECTIVE_DEGRADE: _ClassVar[BreakerDirective]
    BREAKER_DIRECTIVE_FAIL_FAST: _ClassVar[BreakerDirective]

class ContextPriority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTEXT_PRIORITY_UNSPECIFIED: _ClassVar[ContextPriority]
    CONTEXT_PRIORITY_LOW: _ClassVar[ContextPriority]
    CONTEXT_PRIORITY_NORMAL: _ClassVar[ContextPriority]
    CONTEXT_PRIORITY_HIGH: _ClassVar[ContextPriority]
    CONTEXT_PRIORITY_CRITICAL: _ClassVar[ContextPriority]

class BudgetSignalType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BUDGET_SIGNAL_TYPE_UNSPECIFIED: _ClassVar[BudgetSignalType]
    BUDGET_SIGNAL_TYPE_SIGWARN: _ClassVar[BudgetSignalType]
    BUDGET_SIGNAL_TYPE_SIGSTOP: _ClassVar[BudgetSignalType]
    BUDGET_SIGNAL_TYPE_SIGRESUME: _ClassVar[BudgetSignalType]

class IsolationScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ISOLATION_SCOPE_UNSPECIFIED: _ClassVar[IsolationScope]
    ISOLATION_SCOPE_USER: _ClassVar[IsolationScope]
    ISOLATION_SCOPE_AGENT: _ClassVar[IsolationScope]
    ISOLATION_SCOPE_SESSION: _ClassVar[IsolationScope]
    ISOLATION_SCOPE_GLOBAL: _ClassVar[IsolationScope]

class LeaseState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEASE_STATE_UNSPECIFIED: _ClassVar[LeaseState]
    LEASE_STATE_ACTIVE: _ClassVar[LeaseState]
    LEASE_STATE_RELEASED: _ClassVar[LeaseState]
    LEASE_STATE_EXPIRED: _ClassVar[LeaseState]
    LEASE_STATE_REVOKED: _ClassVar[LeaseState]

class ReversibilityLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REVERSIBILITY_LEVEL_UNSPECIFIED: _ClassVar[ReversibilityLevel]
    REVERSIBILITY_LEVEL_FULLY_REVERSIBLE: _ClassVar[ReversibilityLevel]
    REVERSIBILITY_LEVEL_PARTIALLY_REVERSIBLE: _ClassVar[ReversibilityLevel]
    REVERSIBILITY_LEVEL_IRREVERSIBLE: _ClassVar[ReversibilityLevel]
    REVERSIBILITY_LEVEL_UNKNOWN: _ClassVar[ReversibilityLevel]

class CompensationEffectiveness(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPENSATION_EFFECTIVENESS_UNSPECIFIED: _ClassVar[CompensationEffectiveness]
    COMPENSATION_EFFECTIVENESS_FULL: _ClassVar[CompensationEffectiveness]
    COMPENSATION_EFFECTIVENESS_PARTIAL: _ClassVar[CompensationEffectiveness]
    COMPENSATION_EFFECTIVENESS_MITIGATION_ONLY: _ClassVar[CompensationEffectiveness]

class PlanViolationType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAN_VIOLATION_TYPE_UNSPECIFIED: _ClassVar[PlanViolationType]
    PLAN_VIOLATION_TYPE_MISSING_STEP_ID: _ClassVar[PlanViolationType]
    PLAN_VIOLATION_TYPE_DUPLICATE_STEP_ID: _ClassVar[PlanViolationType]
    PLAN_VIOLATION_TYPE_MISSING_ACTION: _ClassVar[PlanViolationType]
    PLAN_VIOLATION_TYPE_ACTION_NOT_ALLOWED: _ClassVar[PlanViolationType]
    PLAN_VIOLATION_TYPE_UNKNOWN_DEPENDENCY: _ClassVar[PlanViolationType]
    PLAN_VIOLATION_TYPE_DEPENDENCY_CYCLE: _ClassVar[PlanViolationType]
BREAKER_STATE_UNSPECIFIED: BreakerState
BREAKER_STATE_CLOSED: BreakerState
BREAKER_STATE_OPEN: BreakerState
BREAKER_STATE_HALF_OPEN: BreakerState
CALL_OUTCOME_UNSPECIFIED: CallOutcome
CALL_OUTCOME_SUCCESS: CallOutcome
CALL_OUTCOME_FAILURE: CallOutcome
DEGRADATION_STRATEGY_UNSPECIFIED: DegradationStrategy
DEGRADATION_STRATEGY_FALLBACK: DegradationStrategy
DEGRADATION_STRATEGY_SKIP: DegradationStrategy
DEGRADATION_STRATEGY_CACHED: DegradationStrategy
DEGRADATION_STRATEGY_FAIL_FAST: DegradationStrategy
BREAKER_DIRECTIVE_UNSPECIFIED: BreakerDirective
BREAKER_DIRECTIVE_RETURN_RESULT: BreakerDirective
BREAKER_DIRECTIVE_RETHROW: BreakerDirective
BREAKER_DIRECTIVE_DEGRADE: BreakerDirective
BREAKER_DIRECTIVE_FAIL_FAST: BreakerDirective
CONTEXT_PRIORITY_UNSPECIFIED: ContextPriority
CONTEXT_PRIORITY_LOW: ContextPriority
CONTEXT_PRIORITY_NORMAL: ContextPriority
CONTEXT_PRIORITY_HIGH: ContextPriority
CONTEXT_PRIORITY_CRITICAL: ContextPriority
BUDGET_SIGNAL_TYPE_UNSPECIFIED: BudgetSignalType
BUDGET_SIGNAL_TYPE_SIGWARN: BudgetSignalType
BUDGET_SIGNAL_TYPE_SIGSTOP: BudgetSignalType
BUDGET_SIGNAL_TYPE_SIGRESUME: BudgetSignalType
ISOLATION_SCOPE_UNSPECIFIED: IsolationScope
ISOLATION_SCOPE_USER: IsolationScope
ISOLATION_SCOPE_AGENT: IsolationScope
ISOLATION_SCOPE_SESSION: IsolationScope
ISOLATION_SCOPE_GLOBAL: IsolationScope
LEASE_STATE_UNSPECIFIED: LeaseState
LEASE_STATE_ACTIVE: LeaseState
LEASE_STATE_RELEASED: LeaseState
LEASE_STATE_EXPIRED: LeaseState
LEASE_STATE_REVOKED: LeaseState
REVERSIBILITY_LEVEL_UNSPECIFIED: ReversibilityLevel
REVERSIBILITY_LEVEL_FULLY_REVERSIBLE: ReversibilityLevel
REVERSIBILITY_LEVEL_PARTIALLY_REVERSIBLE: ReversibilityLevel
REVERSIBILITY_LEVEL_IRREVERSIBLE: ReversibilityLevel
REVERSIBILITY_LEVEL_UNKNOWN: ReversibilityLevel
COMPENSATION_EFFECTIVENESS_UNSPECIFIED: CompensationEffectiveness
COMPENSATION_EFFECTIVENESS_FULL: CompensationEffectiveness
COMPENSATION_EFFECTIVENESS_PARTIAL: CompensationEffectiveness
COMPENSATION_EFFECTIVENESS_MITIGATION_ONLY: CompensationEffectiveness
PLAN_VIOLATION_TYPE_UNSPECIFIED: PlanViolationType
PLAN_VIOLATION_TYPE_MISSING_STEP_ID: PlanViolationType
PLAN_VIOLATION_TYPE_DUPLICATE_STEP_ID: PlanViolationType
PLAN_VIOLATION_TYPE_MISSING_ACTION: PlanViolationType
PLAN_VIOLATION_TYPE_ACTION_NOT_ALLOWED: PlanViolationType
PLAN_VIOLATION_TYPE_UNKNOWN_DEPENDENCY: PlanViolationType
PLAN_VIOLATION_TYPE_DEPENDENCY_CYCLE: PlanViolationType

class BreakerConfig(_message.Message):
    __slots__ = ("failure_threshold", "recovery_timeout", "half_open_max_calls", "strategy", "permit_ttl")
    FAILURE_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    RECOVERY_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    HALF_OPEN_MAX_CALLS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    PERMIT_TTL_FIELD_NUMBER: _ClassVar[int]
    failure_threshold: int
    recovery_timeout: _duration_pb2.Duration
    half_open_max_calls: int
    strategy: DegradationStrategy
    permit_ttl: _duration_pb2.Duration
    def __init__(self, failure_threshold: _Optional[int] = ..., recovery_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., half_open_max_calls: _Optional[int] = ..., strategy: _Optional[_Union[DegradationStrategy, str]] = ..., permit_ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Breaker(_message.Message):
    __slots__ = ("key", "state", "failure_count", "generation", "config", "forced", "in_flight_permits", "has_cached_result", "open_time", "half_open_time", "last_failure_time", "last_success_time", "create_time", "update_time")
    KEY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_COUNT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    FORCED_FIELD_NUMBER: _ClassVar[int]
    IN_FLIGHT_PERMITS_FIELD_NUMBER: _ClassVar[int]
    HAS_CACHED_RESULT_FIELD_NUMBER: _ClassVar[int]
    OPEN_TIME_FIELD_NUMBER: _ClassVar[int]
    HALF_OPEN_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_FAILURE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_SUCCESS_TIME_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    key: str
    state: BreakerState
    failure_count: int
    generation: int
    config: BreakerConfig
    forced: bool
    in_flight_permits: int
    has_cached_result: bool
    open_time: _timestamp_pb2.Timestamp
    half_open_time: _timestamp_pb2.Timestamp
    last_failure_time: _timestamp_pb2.Timestamp
    last_success_time: _timestamp_pb2.Timestamp
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, key: _Optional[str] = ..., state: _Optional[_Union[BreakerState, str]] = ..., failure_count: _Optional[int] = ..., generation: _Optional[int] = ..., config: _Optional[_Union[BreakerConfig, _Mapping]] = ..., forced: _Optional[bool] = ..., in_flight_permits: _Optional[int] = ..., has_cached_result: _Optional[bool] = ..., open_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., half_open_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_failure_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_success_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Degradation(_message.Message):
    __slots__ = ("strategy", "degraded_value", "retry_after")
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_VALUE_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_FIELD_NUMBER: _ClassVar[int]
    strategy: DegradationStrategy
    degraded_value: _struct_pb2.Value
    retry_after: _duration_pb2.Duration
    def __init__(self, strategy: _Optional[_Union[DegradationStrategy, str]] = ..., degraded_value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., retry_after: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class BreakerStateChange(_message.Message):
    __slots__ = ("key", "from_state", "to_state", "generation", "failure_count", "reason", "change_time")
    KEY_FIELD_NUMBER: _ClassVar[int]
    FROM_STATE_FIELD_NUMBER: _ClassVar[int]
    TO_STATE_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    FAILURE_COUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHANGE_TIME_FIELD_NUMBER: _ClassVar[int]
    key: str
    from_state: BreakerState
    to_state: BreakerState
    generation: int
    failure_count: int
    reason: str
    change_time: _timestamp_pb2.Timestamp
    def __init__(self, key: _Optional[str] = ..., from_state: _Optional[_Union[BreakerState, str]] = ..., to_state: _Optional[_Union[BreakerState, str]] = ..., generation: _Optional[int] = ..., failure_count: _Optional[int] = ..., reason: _Optional[str] = ..., change_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Allocation(_message.Message):
    __slots__ = ("agent_id", "allocated", "used", "reserved", "remaining", "usage_percent", "priority", "warned", "stopped", "allocate_time", "update_time")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ALLOCATED_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    USAGE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    WARNED_FIELD_NUMBER: _ClassVar[int]
    STOPPED_FIELD_NUMBER: _ClassVar[int]
    ALLOCATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    allocated: int
    used: int
    reserved: int
    remaining: int
    usage_percent: float
    priority: ContextPriority
    warned: bool
    stopped: bool
    allocate_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, agent_id: _Optional[str] = ..., allocated: _Optional[int] = ..., used: _Optional[int] = ..., reserved: _Optional[int] = ..., remaining: _Optional[int] = ..., usage_percent: _Optional[float] = ..., priority: _Optional[_Union[ContextPriority, str]] = ..., warned: _Optional[bool] = ..., stopped: _Optional[bool] = ..., allocate_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GlobalBudget(_message.Message):
    __slots__ = ("total", "used", "reserved", "remaining", "usage_percent", "update_time")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    USAGE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    total: int
    used: int
    reserved: int
    remaining: int
    usage_percent: float
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, total: _Optional[int] = ..., used: _Optional[int] = ..., reserved: _Optional[int] = ..., remaining: _Optional[int] = ..., usage_percent: _Optional[float] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Reservation(_message.Message):
    __slots__ = ("reservation_id", "agent_id", "tokens", "create_time", "expire_time")
    RESERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    reservation_id: str
    agent_id: str
    tokens: int
    create_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, reservation_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., tokens: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BudgetSignal(_message.Message):
    __slots__ = ("agent_id", "type", "used", "allocated", "usage_percent", "signal_time")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    ALLOCATED_FIELD_NUMBER: _ClassVar[int]
    USAGE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_TIME_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    type: BudgetSignalType
    used: int
    allocated: int
    usage_percent: float
    signal_time: _timestamp_pb2.Timestamp
    def __init__(self, agent_id: _Optional[str] = ..., type: _Optional[_Union[BudgetSignalType, str]] = ..., used: _Optional[int] = ..., allocated: _Optional[int] = ..., usage_percent: _Optional[float] = ..., signal_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., **kwargs) -> None: ...

class Episode(_message.Message):
    __slots__ = ("episode_id", "task_id", "agent_id", "task_type", "outcome", "metadata", "episode_time")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_TYPE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    EPISODE_TIME_FIELD_NUMBER: _ClassVar[int]
    episode_id: int
    task_id: str
    agent_id: str
    task_type: str
    outcome: str
    metadata: _struct_pb2.Struct
    episode_time: _timestamp_pb2.Timestamp
    def __init__(self, episode_id: _Optional[int] = ..., task_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., task_type: _Optional[str] = ..., outcome: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., episode_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class IsolationKey(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: IsolationScope
    id: str
    def __init__(self, scope: _Optional[_Union[IsolationScope, str]] = ..., id: _Optional[str] = ...) -> None: ...

class Lease(_message.Message):
    __slots__ = ("lease_id", "key", "agent_id", "fencing_token", "state", "ttl", "acquire_time", "expire_time", "end_time")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    key: IsolationKey
    agent_id: str
    fencing_token: int
    state: LeaseState
    ttl: _duration_pb2.Duration
    acquire_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, lease_id: _Optional[str] = ..., key: _Optional[_Union[IsolationKey, _Mapping]] = ..., agent_id: _Optional[str] = ..., fencing_token: _Optional[int] = ..., state: _Optional[_Union[LeaseState, str]] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., acquire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CompensatingAction(_message.Message):
    __slots__ = ("description", "action", "parameters", "effectiveness", "time_window")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVENESS_FIELD_NUMBER: _ClassVar[int]
    TIME_WINDOW_FIELD_NUMBER: _ClassVar[int]
    description: str
    action: str
    parameters: _struct_pb2.Struct
    effectiveness: CompensationEffectiveness
    time_window: _duration_pb2.Duration
    def __init__(self, description: _Optional[str] = ..., action: _Optional[str] = ..., parameters: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., effectiveness: _Optional[_Union[CompensationEffectiveness, str]] = ..., time_window: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class ReversibilityAssessment(_message.Message):
    __slots__ = ("action", "level", "reason", "compensating_actions", "requires_extra_approval", "assess_time", "source")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COMPENSATING_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_EXTRA_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    ASSESS_TIME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    action: str
    level: ReversibilityLevel
    reason: str
    compensating_actions: _containers.RepeatedCompositeFieldContainer[CompensatingAction]
    requires_extra_approval: bool
    assess_time: _timestamp_pb2.Timestamp
    source: str
    def __init__(self, action: _Optional[str] = ..., level: _Optional[_Union[ReversibilityLevel, str]] = ..., reason: _Optional[str] = ..., compensating_actions: _Optional[_Iterable[_Union[CompensatingAction, _Mapping]]] = ..., requires_extra_approval: _Optional[bool] = ..., assess_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., source: _Optional[str] = ...) -> None: ...

class ReversibilityRule(_message.Message):
    __slots__ = ("action", "level", "reason", "compensating_actions", "requires_extra_approval", "source")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COMPENSATING_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_EXTRA_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    action: str
    level: ReversibilityLevel
    reason: str
    compensating_actions: _containers.RepeatedCompositeFieldContainer[CompensatingAction]
    requires_extra_approval: bool
    source: str
    def __init__(self, action: _Optional[str] = ..., level: _Optional[_Union[ReversibilityLevel, str]] = ..., reason: _Optional[str] = ..., compensating_actions: _Optional[_Iterable[_Union[CompensatingAction, _Mapping]]] = ..., requires_extra_approval: _Optional[bool] = ..., source: _Optional[str] = ...) -> None: ...

class PlanStep(_message.Message):
    __slots__ = ("step_id", "action", "params", "depends_on")
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    DEPENDS_ON_FIELD_NUMBER: _ClassVar[int]
    step_id: str
    action: str
    params: _struct_pb2.Struct
    depends_on: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, step_id: _Optional[str] = ..., action: _Optional[str] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., depends_on: _Optional[_Iterable[str]] = ...) -> None: ...

class ExecutionPlan(_message.Message):
    __slots__ = ("plan_id", "steps", "metadata")
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    plan_id: str
    steps: _containers.RepeatedCompositeFieldContainer[PlanStep]
    metadata: _struct_pb2.Struct
    def __init__(self, plan_id: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[PlanStep, _Mapping]]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class PlanViolation(_message.Message):
    __slots__ = ("type", "step_index", "step_id", "message", "related")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RELATED_FIELD_NUMBER: _ClassVar[int]
    type: PlanViolationType
    step_index: int
    step_id: str
    message: str
    related: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[_Union[PlanViolationType, str]] = ..., step_index: _Optional[int] = ..., step_id: _Optional[str] = ..., message: _Optional[str] = ..., related: _Optional[_Iterable[str]] = ...) -> None: ...
