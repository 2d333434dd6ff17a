"""The one tree of domain errors; `server.rpc.errors` maps each branch to a gRPC status.

OutriderError
├── InvalidArgument      bad input: a field, an option, a policy file      -> INVALID_ARGUMENT
├── NotFound             the named thing does not exist                    -> NOT_FOUND
├── AlreadyExists        the thing exists and may not be created again     -> ALREADY_EXISTS
├── FailedPrecondition   the request is valid but the state forbids it     -> FAILED_PRECONDITION
├── Unimplemented        reserved, not built yet                           -> UNIMPLEMENTED
├── Unavailable          a dependency (storage) cannot answer now          -> UNAVAILABLE
│   └── StorageUnavailable   the database cannot be reached: one fixed message, the driver's text is logged
├── Aborted              a stream ended by the sidecar (replaced, killed)  -> ABORTED
└── OutOfRange           a cursor past the end or before what is kept      -> OUT_OF_RANGE
"""

from __future__ import annotations


class OutriderError(Exception):
    """Root of every error the sidecar reports to a caller.

    `reason` is a stable UPPER_SNAKE word for machines (google.rpc.ErrorInfo.reason);
    `field` names the offending request field or config key, when there is one.
    """

    default_reason = "ERROR"

    def __init__(self, message: str, *, reason: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.field = field


class InvalidArgument(OutriderError):
    default_reason = "INVALID_FIELD"


class NotFound(OutriderError):
    default_reason = "NOT_FOUND"


class AlreadyExists(OutriderError):
    default_reason = "ALREADY_EXISTS"


class FailedPrecondition(OutriderError):
    default_reason = "FAILED_PRECONDITION"


class Unimplemented(OutriderError):
    default_reason = "UNIMPLEMENTED"


class Unavailable(OutriderError):
    default_reason = "UNAVAILABLE"


STORAGE_UNAVAILABLE = "storage unavailable, retry"


class StorageUnavailable(Unavailable):
    """The database cannot be reached (down, restarting, refusing connections). The message is always
    STORAGE_UNAVAILABLE: the driver's text names hosts, ports and SQL, and goes to the sidecar log only."""

    default_reason = "STORAGE_UNAVAILABLE"

    def __init__(self) -> None:
        super().__init__(STORAGE_UNAVAILABLE)


class Unauthenticated(OutriderError):
    default_reason = "UNAUTHENTICATED"


class PermissionDenied(OutriderError):
    default_reason = "PERMISSION_DENIED"


class ResourceExhausted(OutriderError):
    default_reason = "RESOURCE_EXHAUSTED"


class Aborted(OutriderError):
    default_reason = "ABORTED"


class OutOfRange(OutriderError):
    default_reason = "OUT_OF_RANGE"
