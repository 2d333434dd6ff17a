"""`Isolator`: the SupervisorAgent library's FailureIsolator, with each key's circuit breaker kept by the sidecar.

    isolator = Isolator(client)
    reply = isolator.execute("worker-1:llm", lambda: call_model(q), fallback=lambda: "try again later")

A success resets the failure count and closes the circuit; a failure below the threshold re-raises the
caller's own exception; the failure that reaches the threshold opens the circuit and returns the degraded
value instead of raising; while OPEN the degraded value comes back without running ``fn``. Degraded values:
FALLBACK → ``fallback()`` or None, SKIP → None, CACHED → the key's last successful result (kept by the
sidecar) or None; FAIL_FAST raises CircuitOpenError(key, retry_after).

When the sidecar cannot take the outcome (its permits do not survive a restart: NOT_FOUND; or it stays
unreachable), the call behaves as if the breaker had let it through: the result is returned, the caller's
exception re-raised. When it cannot hand out the permit, `execute` raises its error (SidecarUnreachableError...)
without running ``fn``: whether to run unguarded is the caller's decision.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ._common import duration, from_value, seconds, to_value
from .aio import AsyncClient
from .client import Client
from .enums import BreakerState, DegradationStrategy, from_proto
from .errors import (
    CircuitOpenError,
    DeadlineExceededError,
    InvalidArgumentError,
    NotFoundError,
    UnavailableError,
)
from .v1 import safeguard_pb2 as spb
from .v1 import safeguard_service_pb2 as pb

T = TypeVar("T")
log = logging.getLogger("outrider")

_REPORT_ATTEMPTS = 3  # ReportOutcome is idempotent per permit: a lost answer is safe to ask again
_REPORT_PAUSE = 0.1
_STRATEGIES = {
    "fallback": spb.DEGRADATION_STRATEGY_FALLBACK,
    "skip": spb.DEGRADATION_STRATEGY_SKIP,
    "cached": spb.DEGRADATION_STRATEGY_CACHED,
    "fail_fast": spb.DEGRADATION_STRATEGY_FAIL_FAST,
}
_DEGRADED = (spb.BREAKER_DIRECTIVE_DEGRADE, spb.BREAKER_DIRECTIVE_FAIL_FAST)


@dataclass(frozen=True)
class BreakerStatus:
    """One breaker as the sidecar sees it (GetBreaker)."""

    key: str
    state: BreakerState  # CLOSED, OPEN or HALF_OPEN
    failure_count: int
    generation: int
    forced: bool
    in_flight_permits: int
    has_cached_result: bool
    strategy: DegradationStrategy  # FALLBACK, SKIP, CACHED or FAIL_FAST
    failure_threshold: int
    recovery_timeout: float  # seconds
    half_open_max_calls: int
    retry_after: float | None  # seconds until HALF_OPEN, while OPEN


def _status(r: pb.GetBreakerResponse) -> BreakerStatus:
    b, c = r.breaker, r.breaker.config
    return BreakerStatus(
        key=b.key,
        state=from_proto(BreakerState, spb.BreakerState, b.state),
        failure_count=b.failure_count,
        generation=b.generation,
        forced=b.forced,
        in_flight_permits=b.in_flight_permits,
        has_cached_result=b.has_cached_result,
        strategy=from_proto(DegradationStrategy, spb.DegradationStrategy, c.strategy),
        failure_threshold=c.failure_threshold,
        recovery_timeout=seconds(c, "recovery_timeout") or 0.0,
        half_open_max_calls=c.half_open_max_calls,
        retry_after=seconds(r.degradation, "retry_after") if r.HasField("degradation") else None,
    )


def _config_request(
    key: str,
    failure_threshold: int | None,
    recovery_timeout: float | None,
    half_open_max_calls: int | None,
    strategy: DegradationStrategy | str | None,
    permit_ttl: float | None,
) -> pb.SetBreakerConfigRequest:
    config = spb.BreakerConfig(
        failure_threshold=failure_threshold or 0,
        half_open_max_calls=half_open_max_calls or 0,
        strategy=_STRATEGIES[strategy.lower()] if strategy else spb.DEGRADATION_STRATEGY_UNSPECIFIED,
    )
    if recovery_timeout is not None:
        config.recovery_timeout.CopyFrom(duration(recovery_timeout))
    if permit_ttl is not None:
        config.permit_ttl.CopyFrom(duration(permit_ttl))
    return pb.SetBreakerConfigRequest(key=key, config=config, request_id=uuid.uuid4().hex)


def _outcome_request(permit_id: str, outcome: int, result: Any, cache_result: bool) -> pb.ReportOutcomeRequest:
    request = pb.ReportOutcomeRequest(permit_id=permit_id, outcome=outcome)  # type: ignore[arg-type]
    value = to_value(result) if cache_result and outcome == spb.CALL_OUTCOME_SUCCESS else None
    if value is not None:
        request.result.CopyFrom(value)
    return request


def _retry_report(request: pb.ReportOutcomeRequest, err: Exception, attempt: int) -> bool:
    """Whether to send the outcome again after `err` (the request may be changed: a result too large to
    cache is dropped). False: give up and let the call through."""
    if isinstance(err, InvalidArgumentError):
        if err.field == "result" and request.HasField("result"):
            request.ClearField("result")  # the outcome still counts; only CACHED misses this value
            return True
        raise err
    if isinstance(err, NotFoundError):
        log.warning(
            "circuit breaker permit %s unknown to the sidecar (restarted?): outcome not counted", request.permit_id
        )
        return False
    if attempt < _REPORT_ATTEMPTS:
        return True
    log.warning("circuit breaker outcome of permit %s not delivered: %s", request.permit_id, err)
    return False


def _degraded(
    key: str,
    directive: int,
    degradation: spb.Degradation,
    fallback: Callable[[], Any] | None,
    cause: BaseException | None = None,
) -> Any:
    """The value a refused or degraded call returns (FALLBACK's is `fallback()`, still to be awaited when
    it is a coroutine); FAIL_FAST raises."""
    if directive == spb.BREAKER_DIRECTIVE_FAIL_FAST:
        raise CircuitOpenError(key, seconds(degradation, "retry_after")) from cause
    if degradation.strategy == spb.DEGRADATION_STRATEGY_CACHED:
        return from_value(degradation.degraded_value) if degradation.HasField("degraded_value") else None
    if degradation.strategy == spb.DEGRADATION_STRATEGY_SKIP:
        return None
    return fallback() if fallback is not None else None


class Isolator:
    """FailureIsolator (the SupervisorAgent library) over a sync `Client`; every process guarding a key shares its
    breaker."""

    def __init__(self, client: Client, *, cache_results: bool = True) -> None:
        self.client = client
        self.cache_results = cache_results  # send results for the CACHED strategy (when JSON data)

    def execute(self, key: str, fn: Callable[[], T], fallback: Callable[[], T] | None = None) -> T | None:
        """Run ``fn()`` under the breaker of ``key`` (an agent id or ``agent_id:dependency``)."""
        sg = self.client.safeguard
        permit = self.client.call(sg.AcquirePermit, pb.AcquirePermitRequest(key=key, request_id=uuid.uuid4().hex))
        if not permit.permitted:
            return cast("T | None", _degraded(key, permit.directive, permit.degradation, fallback))
        try:
            result = fn()
        except Exception as exc:
            answer = self._report(_outcome_request(permit.permit_id, spb.CALL_OUTCOME_FAILURE, None, False))
            if answer is None or answer.directive not in _DEGRADED:
                raise
            return cast("T | None", _degraded(key, answer.directive, answer.degradation, fallback, exc))
        except BaseException:
            # Interrupted, not failed: give the permit back without counting anything.
            self.client.call(sg.ReleasePermit, pb.ReleasePermitRequest(permit_id=permit.permit_id))
            raise
        self._report(_outcome_request(permit.permit_id, spb.CALL_OUTCOME_SUCCESS, result, self.cache_results))
        return result

    def _report(self, request: pb.ReportOutcomeRequest) -> pb.ReportOutcomeResponse | None:
        attempt = 0
        while True:
            attempt += 1
            try:
                answer: pb.ReportOutcomeResponse = self.client.call(self.client.safeguard.ReportOutcome, request)
                return answer
            except (InvalidArgumentError, NotFoundError, UnavailableError, DeadlineExceededError) as err:
                if not _retry_report(request, err, attempt):
                    return None
                time.sleep(_REPORT_PAUSE * attempt)

    def breaker(self, key: str) -> BreakerStatus:
        """State, failure count and settings of a breaker. NotFoundError before its first use."""
        return _status(self.client.call(self.client.safeguard.GetBreaker, pb.GetBreakerRequest(key=key)))

    def state(self, key: str) -> BreakerState:
        """CLOSED, OPEN or HALF_OPEN."""
        return self.breaker(key).state

    def configure(
        self,
        key: str,
        *,
        failure_threshold: int | None = None,
        recovery_timeout: float | None = None,
        half_open_max_calls: int | None = None,
        strategy: DegradationStrategy | str | None = None,
        permit_ttl: float | None = None,
    ) -> BreakerStatus:
        """The key's own settings (operator credential); unset ones take the policy's or the defaults.
        `strategy`: "fallback", "skip", "cached" or "fail_fast"; durations in seconds."""
        request = _config_request(key, failure_threshold, recovery_timeout, half_open_max_calls, strategy, permit_ttl)
        self.client.call(self.client.safeguard.SetBreakerConfig, request)
        return self.breaker(key)

    def reset(self, key: str) -> BreakerStatus:
        """CLOSED with failure count 0 (operator credential)."""
        sg = self.client.safeguard
        self.client.call(sg.ResetBreaker, pb.ResetBreakerRequest(key=key, request_id=uuid.uuid4().hex))
        return self.breaker(key)


async def _resolve(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class AsyncIsolator:
    """The same contract over an `AsyncClient`; ``fn`` and ``fallback`` may be plain or async callables."""

    def __init__(self, client: AsyncClient, *, cache_results: bool = True) -> None:
        self.client = client
        self.cache_results = cache_results

    async def execute(
        self,
        key: str,
        fn: Callable[[], Awaitable[T]] | Callable[[], T],
        fallback: Callable[[], Awaitable[T]] | Callable[[], T] | None = None,
    ) -> T | None:
        sg = self.client.safeguard
        permit = await self.client.call(sg.AcquirePermit, pb.AcquirePermitRequest(key=key, request_id=uuid.uuid4().hex))
        if not permit.permitted:
            return cast("T | None", await _resolve(_degraded(key, permit.directive, permit.degradation, fallback)))
        try:
            result = await _resolve(fn())
        except Exception as exc:
            answer = await self._report(_outcome_request(permit.permit_id, spb.CALL_OUTCOME_FAILURE, None, False))
            if answer is None or answer.directive not in _DEGRADED:
                raise
            degraded = _degraded(key, answer.directive, answer.degradation, fallback, exc)
            return cast("T | None", await _resolve(degraded))
        except BaseException:  # cancelled: give the permit back, count nothing
            await self.client.call(sg.ReleasePermit, pb.ReleasePermitRequest(permit_id=permit.permit_id))
            raise
        await self._report(_outcome_request(permit.permit_id, spb.CALL_OUTCOME_SUCCESS, result, self.cache_results))
        return cast("T", result)

    async def _report(self, request: pb.ReportOutcomeRequest) -> pb.ReportOutcomeResponse | None:
        attempt = 0
        while True:
            attempt += 1
            try:
                answer: pb.ReportOutcomeResponse = await self.client.call(self.client.safeguard.ReportOutcome, request)
                return answer
            except (InvalidArgumentError, NotFoundError, UnavailableError, DeadlineExceededError) as err:
                if not _retry_report(request, err, attempt):
                    return None
                await asyncio.sleep(_REPORT_PAUSE * attempt)

    async def breaker(self, key: str) -> BreakerStatus:
        return _status(await self.client.call(self.client.safeguard.GetBreaker, pb.GetBreakerRequest(key=key)))

    async def state(self, key: str) -> BreakerState:
        return (await self.breaker(key)).state

    async def configure(
        self,
        key: str,
        *,
        failure_threshold: int | None = None,
        recovery_timeout: float | None = None,
        half_open_max_calls: int | None = None,
        strategy: DegradationStrategy | str | None = None,
        permit_ttl: float | None = None,
    ) -> BreakerStatus:
        request = _config_request(key, failure_threshold, recovery_timeout, half_open_max_calls, strategy, permit_ttl)
        await self.client.call(self.client.safeguard.SetBreakerConfig, request)
        return await self.breaker(key)

    async def reset(self, key: str) -> BreakerStatus:
        sg = self.client.safeguard
        await self.client.call(sg.ResetBreaker, pb.ResetBreakerRequest(key=key, request_id=uuid.uuid4().hex))
        return await self.breaker(key)
