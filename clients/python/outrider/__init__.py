"""Outrider Python client: generated `outrider.v1` stubs, and a typed client with the source libraries' helpers.

from outrider import Client
with Client(token="otr_...") as c:
    r = c.check_action("worker-1", "deploy", {"cost": 40})   # waits while a person decides
    if not r.allowed:
        print(r.reason)

`client.check_stream()` multiplexes many checks over one CheckActions stream (check_stream.py).
`Client` and `AsyncClient` share one core (`_base.BaseClient`); errors form one tree (errors.py), with a
`TransportError` branch for "the sidecar gave no answer"; answers use string enums (enums.py).
Helpers: Isolator (circuit breakers), lease (execution slots), Budget (tokens), Agent (the control
channel), retry, sandboxed; each with an asyncio twin where it pays (AsyncIsolator, async_lease,
AsyncBudget, AsyncAgent).
"""

from ._common import TLS, CheckResult
from .agent import Agent, Command, CommandRejected, Handoff, KillOrder, heartbeat
from .agent_aio import AsyncAgent
from .aio import AsyncClient
from .budgets import Allocation, AsyncBudget, Budget, Reservation, Signal, Usage, budget
from .check_stream import AsyncCheckStream, CheckStream
from .client import Client
from .enums import (
    ApprovalState,
    BreakerState,
    CommandType,
    DegradationStrategy,
    KillReason,
    Priority,
    Scope,
    Severity,
    SignalType,
    StopReason,
)
from .errors import (
    AlreadyExistsError,
    BudgetExhaustedError,
    CircuitOpenError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutriderError,
    PermissionDeniedError,
    ResourceExhaustedError,
    SidecarTimeoutError,
    SidecarUnreachableError,
    TransportError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
)
from .isolator import AsyncIsolator, BreakerStatus, Isolator
from .leases import HeldLease, async_lease, lease
from .retry import retry
from .sandbox import SandboxResult, sandboxed

__all__ = [
    "TLS",
    "Agent",
    "Allocation",
    "AlreadyExistsError",
    "ApprovalState",
    "AsyncAgent",
    "AsyncBudget",
    "AsyncCheckStream",
    "AsyncClient",
    "AsyncIsolator",
    "BreakerState",
    "BreakerStatus",
    "Budget",
    "BudgetExhaustedError",
    "CheckResult",
    "CheckStream",
    "CircuitOpenError",
    "Client",
    "Command",
    "CommandRejected",
    "CommandType",
    "DeadlineExceededError",
    "DegradationStrategy",
    "FailedPreconditionError",
    "Handoff",
    "HeldLease",
    "InternalError",
    "InvalidArgumentError",
    "Isolator",
    "KillOrder",
    "KillReason",
    "NotFoundError",
    "OutriderError",
    "PermissionDeniedError",
    "Priority",
    "Reservation",
    "ResourceExhaustedError",
    "SandboxResult",
    "Scope",
    "Severity",
    "SidecarTimeoutError",
    "SidecarUnreachableError",
    "Signal",
    "SignalType",
    "StopReason",
    "TransportError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "Usage",
    "async_lease",
    "budget",
    "heartbeat",
    "lease",
    "retry",
    "sandboxed",
]
