"""Outrider Python client: generated `outrider.v1` stubs, and a typed client with the seeds' helpers.

from outrider import Client
with Client(token="otr_...") as c:
    r = c.check_action("worker-1", "deploy", {"cost": 40})   # waits while a person decides
    if not r.allowed:
        print(r.reason)
"""

from ._common import TLS, CheckResult
from .aio import AsyncClient
from .client import Client
from .errors import (
    AlreadyExistsError,
    CircuitOpenError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutriderError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
)
from .retry import retry
from .sandbox import SandboxResult, sandboxed

__all__ = [
    "TLS",
    "AlreadyExistsError",
    "AsyncClient",
    "CheckResult",
    "CircuitOpenError",
    "Client",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OutriderError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "SandboxResult",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "retry",
    "sandboxed",
]
