import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import safeguard_pb2 as _safeguard_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AcquirePermitRequest(_message.Message):
    __slots__ = ("key", "request_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    key: str
    request_id: str
    def __init__(self, key: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class AcquirePermitResponse(_message.Message):
    __slots__ = ("permitted", "state", "permit_id", "generation", "failure_count", "expire_time", "directive", "failure_directive", "degradation")
    PERMITTED_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PERMIT_ID_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    FAILURE_COUNT_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    DIRECTIVE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_DIRECTIVE_FIELD_NUMBER: _ClassVar[int]
    DEGRADATION_FIELD_NUMBER: _ClassVar[int]
    permitted: bool
    state: _safeguard_pb2.BreakerState
    permit_id: str
    generation: int
    failure_count: int
    expire_time: _timestamp_pb2.Timestamp
    directive: _safeguard_pb2.BreakerDirective
    failure_directive: _safeguard_pb2.BreakerDirective
    degradation: _safeguard_pb2.Degradation
    def __init__(self, permitted: _Optional[bool] = ..., state: _Optional[_Union[_safeguard_pb2.BreakerState, str]] = ..., permit_id: _Optional[str] = ..., generation: _Optional[int] = ..., failure_count: _Optional[int] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., directive: _Optional[_Union[_safeguard_pb2.BreakerDirective, str]] = ..., failure_directive: _Optional[_Union[_safeguard_pb2.BreakerDirective, str]] = ..., degradation: _Optional[_Union[_safeguard_pb2.Degradation, _Mapping]] = ...) -> None: ...

class ReportOutcomeRequest(_message.Message):
    __slots__ = ("permit_id", "outcome", "result", "request_id")
    PERMIT_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    permit_id: str
    outcome: _safeguard_pb2.CallOutcome
    result: _struct_pb2.Value
    request_id: str
    def __init__(self, permit_id: _Optional[str] = ..., outcome: _Optional[_Union[_safeguard_pb2.CallOutcome, str]] = ..., result: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReportOutcomeResponse(_message.Message):
    __slots__ = ("directive", "degradation", "state", "failure_count", "generation", "counted")
    DIRECTIVE_FIELD_NUMBER: _ClassVar[int]
    DEGRADATION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_COUNT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    COUNTED_FIELD_NUMBER: _ClassVar[int]
    directive: _safeguard_pb2.BreakerDirective
    degradation: _safeguard_pb2.Degradation
    state: _safeguard_pb2.BreakerState
    failure_count: int
    generation: int
    counted: bool
    def __init__(self, directive: _Optional[_Union[_safeguard_pb2.BreakerDirective, str]] = ..., degradation: _Optional[_Union[_safeguard_pb2.Degradation, _Mapping]] = ..., state: _Optional[_Union[_safeguard_pb2.BreakerState, str]] = ..., failure_count: _Optional[int] = ..., generation: _Optional[int] = ..., counted: _Optional[bool] = ...) -> None: ...

class ReportOutcomesRequest(_message.Message):
    __slots__ = ("permit_id", "outcome", "result", "request_id")
    PERMIT_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    permit_id: str
    outcome: _safeguard_pb2.CallOutcome
    result: _struct_pb2.Value
    request_id: str
    def __init__(self, permit_id: _Optional[str] = ..., outcome: _Optional[_Union[_safeguard_pb2.CallOutcome, str]] = ..., result: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReportOutcomesResponse(_message.Message):
    __slots__ = ("received_count", "counted_count", "ignored_count", "not_found_count")
    RECEIVED_COUNT_FIELD_NUMBER: _ClassVar[int]
    COUNTED_COUNT_FIELD_NUMBER: _ClassVar[int]
    IGNORED_COUNT_FIELD_NUMBER: _ClassVar[int]
    NOT_FOUND_COUNT_FIELD_NUMBER: _ClassVar[int]
    received_count: int
    counted_count: int
    ignored_count: int
    not_found_count: int
    def __init__(self, received_count: _Optional[int] = ..., counted_count: _Optional[int] = ..., ignored_count: _Optional[int] = ..., not_found_count: _Optional[int] = ...) -> None: ...

class ReleasePermitRequest(_message.Message):
    __slots__ = ("permit_id", "request_id")
    PERMIT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    permit_id: str
    request_id: str
    def __init__(self, permit_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReleasePermitResponse(_message.Message):
    __slots__ = ("released", "state")
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    released: bool
    state: _safeguard_pb2.BreakerState
    def __init__(self, released: _Optional[bool] = ..., state: _Optional[_Union[_safeguard_pb2.BreakerState, str]] = ...) -> None: ...

class GetBreakerRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class GetBreakerResponse(_message.Message):
    __slots__ = ("breaker", "degradation")
    BREAKER_FIELD_NUMBER: _ClassVar[int]
    DEGRADATION_FIELD_NUMBER: _ClassVar[int]
    breaker: _safeguard_pb2.Breaker
    degradation: _safeguard_pb2.Degradation
    def __init__(self, breaker: _Optional[_Union[_safeguard_pb2.Breaker, _Mapping]] = ..., degradation: _Optional[_Union[_safeguard_pb2.Degradation, _Mapping]] = ...) -> None: ...

class ListBreakersRequest(_message.Message):
    __slots__ = ("state", "key_prefix", "page_size", "page_token")
    STATE_FIELD_NUMBER: _ClassVar[int]
    KEY_PREFIX_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    state: _safeguard_pb2.BreakerState
    key_prefix: str
    page_size: int
    page_token: str
    def __init__(self, state: _Optional[_Union[_safeguard_pb2.BreakerState, str]] = ..., key_prefix: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListBreakersResponse(_message.Message):
    __slots__ = ("breakers", "next_page_token")
    BREAKERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    breakers: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.Breaker]
    next_page_token: str
    def __init__(self, breakers: _Optional[_Iterable[_Union[_safeguard_pb2.Breaker, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResetBreakerRequest(_message.Message):
    __slots__ = ("key", "request_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    key: str
    request_id: str
    def __init__(self, key: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResetBreakerResponse(_message.Message):
    __slots__ = ("breaker",)
    BREAKER_FIELD_NUMBER: _ClassVar[int]
    breaker: _safeguard_pb2.Breaker
    def __init__(self, breaker: _Optional[_Union[_safeguard_pb2.Breaker, _Mapping]] = ...) -> None: ...

class ForceOpenRequest(_message.Message):
    __slots__ = ("key", "reason", "request_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    key: str
    reason: str
    request_id: str
    def __init__(self, key: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ForceOpenResponse(_message.Message):
    __slots__ = ("breaker",)
    BREAKER_FIELD_NUMBER: _ClassVar[int]
    breaker: _safeguard_pb2.Breaker
    def __init__(self, breaker: _Optional[_Union[_safeguard_pb2.Breaker, _Mapping]] = ...) -> None: ...

class ForceCloseRequest(_message.Message):
    __slots__ = ("key", "reason", "request_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    key: str
    reason: str
    request_id: str
    def __init__(self, key: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ForceCloseResponse(_message.Message):
    __slots__ = ("breaker",)
    BREAKER_FIELD_NUMBER: _ClassVar[int]
    breaker: _safeguard_pb2.Breaker
    def __init__(self, breaker: _Optional[_Union[_safeguard_pb2.Breaker, _Mapping]] = ...) -> None: ...

class SetBreakerConfigRequest(_message.Message):
    __slots__ = ("key", "config", "request_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    key: str
    config: _safeguard_pb2.BreakerConfig
    request_id: str
    def __init__(self, key: _Optional[str] = ..., config: _Optional[_Union[_safeguard_pb2.BreakerConfig, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetBreakerConfigResponse(_message.Message):
    __slots__ = ("breaker",)
    BREAKER_FIELD_NUMBER: _ClassVar[int]
    breaker: _safeguard_pb2.Breaker
    def __init__(self, breaker: _Optional[_Union[_safeguard_pb2.Breaker, _Mapping]] = ...) -> None: ...

class AllocateRequest(_message.Message):
    __slots__ = ("agent_id", "tokens", "priority", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    tokens: int
    priority: _safeguard_pb2.ContextPriority
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., tokens: _Optional[int] = ..., priority: _Optional[_Union[_safeguard_pb2.ContextPriority, str]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AllocateResponse(_message.Message):
    __slots__ = ("allocation", "signals")
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    allocation: _safeguard_pb2.Allocation
    signals: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.BudgetSignal]
    def __init__(self, allocation: _Optional[_Union[_safeguard_pb2.Allocation, _Mapping]] = ..., signals: _Optional[_Iterable[_Union[_safeguard_pb2.BudgetSignal, _Mapping]]] = ...) -> None: ...

class ConsumeRequest(_message.Message):
    __slots__ = ("agent_id", "tokens", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    tokens: int
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., tokens: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class ConsumeResponse(_message.Message):
    __slots__ = ("allocation", "global_budget", "over_budget", "warnings", "signals")
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_BUDGET_FIELD_NUMBER: _ClassVar[int]
    OVER_BUDGET_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    allocation: _safeguard_pb2.Allocation
    global_budget: _safeguard_pb2.GlobalBudget
    over_budget: bool
    warnings: _containers.RepeatedScalarFieldContainer[str]
    signals: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.BudgetSignal]
    def __init__(self, allocation: _Optional[_Union[_safeguard_pb2.Allocation, _Mapping]] = ..., global_budget: _Optional[_Union[_safeguard_pb2.GlobalBudget, _Mapping]] = ..., over_budget: _Optional[bool] = ..., warnings: _Optional[_Iterable[str]] = ..., signals: _Optional[_Iterable[_Union[_safeguard_pb2.BudgetSignal, _Mapping]]] = ...) -> None: ...

class CanConsumeRequest(_message.Message):
    __slots__ = ("agent_id", "tokens")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    tokens: int
    def __init__(self, agent_id: _Optional[str] = ..., tokens: _Optional[int] = ...) -> None: ...

class CanConsumeResponse(_message.Message):
    __slots__ = ("allowed", "reason", "agent_remaining", "global_remaining", "priority_floor_applied")
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AGENT_REMAINING_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_REMAINING_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FLOOR_APPLIED_FIELD_NUMBER: _ClassVar[int]
    allowed: bool
    reason: str
    agent_remaining: int
    global_remaining: int
    priority_floor_applied: bool
    def __init__(self, allowed: _Optional[bool] = ..., reason: _Optional[str] = ..., agent_remaining: _Optional[int] = ..., global_remaining: _Optional[int] = ..., priority_floor_applied: _Optional[bool] = ...) -> None: ...

class RemainingRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class RemainingResponse(_message.Message):
    __slots__ = ("remaining",)
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    remaining: int
    def __init__(self, remaining: _Optional[int] = ...) -> None: ...

class GlobalRemainingRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GlobalRemainingResponse(_message.Message):
    __slots__ = ("remaining",)
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    remaining: int
    def __init__(self, remaining: _Optional[int] = ...) -> None: ...

class UsagePercentRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class UsagePercentResponse(_message.Message):
    __slots__ = ("usage_percent",)
    USAGE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    usage_percent: float
    def __init__(self, usage_percent: _Optional[float] = ...) -> None: ...

class GlobalUsagePercentRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GlobalUsagePercentResponse(_message.Message):
    __slots__ = ("usage_percent",)
    USAGE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    usage_percent: float
    def __init__(self, usage_percent: _Optional[float] = ...) -> None: ...

class GetAllocationRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetAllocationResponse(_message.Message):
    __slots__ = ("allocation",)
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    allocation: _safeguard_pb2.Allocation
    def __init__(self, allocation: _Optional[_Union[_safeguard_pb2.Allocation, _Mapping]] = ...) -> None: ...

class ListAllocationsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAllocationsResponse(_message.Message):
    __slots__ = ("allocations", "next_page_token", "global_budget")
    ALLOCATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_BUDGET_FIELD_NUMBER: _ClassVar[int]
    allocations: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.Allocation]
    next_page_token: str
    global_budget: _safeguard_pb2.GlobalBudget
    def __init__(self, allocations: _Optional[_Iterable[_Union[_safeguard_pb2.Allocation, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., global_budget: _Optional[_Union[_safeguard_pb2.GlobalBudget, _Mapping]] = ...) -> None: ...

class SetGlobalBudgetRequest(_message.Message):
    __slots__ = ("tokens", "request_id")
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    tokens: int
    request_id: str
    def __init__(self, tokens: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetGlobalBudgetResponse(_message.Message):
    __slots__ = ("global_budget",)
    GLOBAL_BUDGET_FIELD_NUMBER: _ClassVar[int]
    global_budget: _safeguard_pb2.GlobalBudget
    def __init__(self, global_budget: _Optional[_Union[_safeguard_pb2.GlobalBudget, _Mapping]] = ...) -> None: ...

class ReserveRequest(_message.Message):
    __slots__ = ("agent_id", "estimate", "ttl", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ESTIMATE_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    estimate: int
    ttl: _duration_pb2.Duration
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., estimate: _Optional[int] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReserveResponse(_message.Message):
    __slots__ = ("granted", "reservation", "reason", "allocation", "priority_floor_applied", "signals")
    GRANTED_FIELD_NUMBER: _ClassVar[int]
    RESERVATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FLOOR_APPLIED_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    granted: bool
    reservation: _safeguard_pb2.Reservation
    reason: str
    allocation: _safeguard_pb2.Allocation
    priority_floor_applied: bool
    signals: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.BudgetSignal]
    def __init__(self, granted: _Optional[bool] = ..., reservation: _Optional[_Union[_safeguard_pb2.Reservation, _Mapping]] = ..., reason: _Optional[str] = ..., allocation: _Optional[_Union[_safeguard_pb2.Allocation, _Mapping]] = ..., priority_floor_applied: _Optional[bool] = ..., signals: _Optional[_Iterable[_Union[_safeguard_pb2.BudgetSignal, _Mapping]]] = ...) -> None: ...

class SettleRequest(_message.Message):
    __slots__ = ("reservation_id", "actual", "request_id")
    RESERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTUAL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    reservation_id: str
    actual: int
    request_id: str
    def __init__(self, reservation_id: _Optional[str] = ..., actual: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class SettleResponse(_message.Message):
    __slots__ = ("allocation", "global_budget", "over_budget", "warnings", "signals")
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_BUDGET_FIELD_NUMBER: _ClassVar[int]
    OVER_BUDGET_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    allocation: _safeguard_pb2.Allocation
    global_budget: _safeguard_pb2.GlobalBudget
    over_budget: bool
    warnings: _containers.RepeatedScalarFieldContainer[str]
    signals: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.BudgetSignal]
    def __init__(self, allocation: _Optional[_Union[_safeguard_pb2.Allocation, _Mapping]] = ..., global_budget: _Optional[_Union[_safeguard_pb2.GlobalBudget, _Mapping]] = ..., over_budget: _Optional[bool] = ..., warnings: _Optional[_Iterable[str]] = ..., signals: _Optional[_Iterable[_Union[_safeguard_pb2.BudgetSignal, _Mapping]]] = ...) -> None: ...

class RecordEpisodeRequest(_message.Message):
    __slots__ = ("episode", "request_id")
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    episode: _safeguard_pb2.Episode
    request_id: str
    def __init__(self, episode: _Optional[_Union[_safeguard_pb2.Episode, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class RecordEpisodeResponse(_message.Message):
    __slots__ = ("episode", "evicted_count")
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    EVICTED_COUNT_FIELD_NUMBER: _ClassVar[int]
    episode: _safeguard_pb2.Episode
    evicted_count: int
    def __init__(self, episode: _Optional[_Union[_safeguard_pb2.Episode, _Mapping]] = ..., evicted_count: _Optional[int] = ...) -> None: ...

class QuerySimilarRequest(_message.Message):
    __slots__ = ("task_type", "limit")
    TASK_TYPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    task_type: str
    limit: int
    def __init__(self, task_type: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class QuerySimilarResponse(_message.Message):
    __slots__ = ("episodes",)
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.Episode]
    def __init__(self, episodes: _Optional[_Iterable[_Union[_safeguard_pb2.Episode, _Mapping]]] = ...) -> None: ...

class QueryByAgentRequest(_message.Message):
    __slots__ = ("agent_id", "limit")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    limit: int
    def __init__(self, agent_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class QueryByAgentResponse(_message.Message):
    __slots__ = ("episodes",)
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.Episode]
    def __init__(self, episodes: _Optional[_Iterable[_Union[_safeguard_pb2.Episode, _Mapping]]] = ...) -> None: ...

class QueryByOutcomeRequest(_message.Message):
    __slots__ = ("outcome", "limit")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    outcome: str
    limit: int
    def __init__(self, outcome: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class QueryByOutcomeResponse(_message.Message):
    __slots__ = ("episodes",)
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.Episode]
    def __init__(self, episodes: _Optional[_Iterable[_Union[_safeguard_pb2.Episode, _Mapping]]] = ...) -> None: ...

class AcquireLeaseRequest(_message.Message):
    __slots__ = ("isolation_key", "agent_id", "ttl", "request_id")
    ISOLATION_KEY_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    isolation_key: _safeguard_pb2.IsolationKey
    agent_id: str
    ttl: _duration_pb2.Duration
    request_id: str
    def __init__(self, isolation_key: _Optional[_Union[_safeguard_pb2.IsolationKey, _Mapping]] = ..., agent_id: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AcquireLeaseResponse(_message.Message):
    __slots__ = ("lease", "wait_duration")
    LEASE_FIELD_NUMBER: _ClassVar[int]
    WAIT_DURATION_FIELD_NUMBER: _ClassVar[int]
    lease: _safeguard_pb2.Lease
    wait_duration: _duration_pb2.Duration
    def __init__(self, lease: _Optional[_Union[_safeguard_pb2.Lease, _Mapping]] = ..., wait_duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RenewLeaseRequest(_message.Message):
    __slots__ = ("lease_id", "ttl", "request_id")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    ttl: _duration_pb2.Duration
    request_id: str
    def __init__(self, lease_id: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class RenewLeaseResponse(_message.Message):
    __slots__ = ("lease",)
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: _safeguard_pb2.Lease
    def __init__(self, lease: _Optional[_Union[_safeguard_pb2.Lease, _Mapping]] = ...) -> None: ...

class ReleaseLeaseRequest(_message.Message):
    __slots__ = ("lease_id", "request_id")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    request_id: str
    def __init__(self, lease_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReleaseLeaseResponse(_message.Message):
    __slots__ = ("lease",)
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: _safeguard_pb2.Lease
    def __init__(self, lease: _Optional[_Union[_safeguard_pb2.Lease, _Mapping]] = ...) -> None: ...

class GetLeaseRequest(_message.Message):
    __slots__ = ("lease_id",)
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    def __init__(self, lease_id: _Optional[str] = ...) -> None: ...

class GetLeaseResponse(_message.Message):
    __slots__ = ("lease",)
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: _safeguard_pb2.Lease
    def __init__(self, lease: _Optional[_Union[_safeguard_pb2.Lease, _Mapping]] = ...) -> None: ...

class ListLeasesRequest(_message.Message):
    __slots__ = ("isolation_key", "agent_id", "state", "page_size", "page_token")
    ISOLATION_KEY_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    isolation_key: _safeguard_pb2.IsolationKey
    agent_id: str
    state: _safeguard_pb2.LeaseState
    page_size: int
    page_token: str
    def __init__(self, isolation_key: _Optional[_Union[_safeguard_pb2.IsolationKey, _Mapping]] = ..., agent_id: _Optional[str] = ..., state: _Optional[_Union[_safeguard_pb2.LeaseState, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListLeasesResponse(_message.Message):
    __slots__ = ("leases", "next_page_token")
    LEASES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.Lease]
    next_page_token: str
    def __init__(self, leases: _Optional[_Iterable[_Union[_safeguard_pb2.Lease, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class AssessReversibilityRequest(_message.Message):
    __slots__ = ("action", "parameters")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    action: str
    parameters: _struct_pb2.Struct
    def __init__(self, action: _Optional[str] = ..., parameters: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AssessReversibilityResponse(_message.Message):
    __slots__ = ("assessment",)
    ASSESSMENT_FIELD_NUMBER: _ClassVar[int]
    assessment: _safeguard_pb2.ReversibilityAssessment
    def __init__(self, assessment: _Optional[_Union[_safeguard_pb2.ReversibilityAssessment, _Mapping]] = ...) -> None: ...

class ListReversibilityRulesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListReversibilityRulesResponse(_message.Message):
    __slots__ = ("rules", "next_page_token")
    RULES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    rules: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.ReversibilityRule]
    next_page_token: str
    def __init__(self, rules: _Optional[_Iterable[_Union[_safeguard_pb2.ReversibilityRule, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ValidatePlanRequest(_message.Message):
    __slots__ = ("plan", "capabilities", "agent_id")
    PLAN_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    plan: _safeguard_pb2.ExecutionPlan
    capabilities: _containers.RepeatedScalarFieldContainer[str]
    agent_id: str
    def __init__(self, plan: _Optional[_Union[_safeguard_pb2.ExecutionPlan, _Mapping]] = ..., capabilities: _Optional[_Iterable[str]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class ValidatePlanResponse(_message.Message):
    __slots__ = ("valid", "violations")
    VALID_FIELD_NUMBER: _ClassVar[int]
    VIOLATIONS_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    violations: _containers.RepeatedCompositeFieldContainer[_safeguard_pb2.PlanViolation]
    def __init__(self, valid: _Optional[bool] = ..., violations: _Optional[_Iterable[_Union[_safeguard_pb2.PlanViolation, _Mapping]]] = ...) -> None: ...
