"""Spans and span events for the use cases, through the OpenTelemetry API only (server/telemetry/sdk.py wires the SDK).

Every helper is cheap when the current span is not recording (tracing off or the trace not sampled):
callers check `recording()` once and skip building attributes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.trace import ProxyTracerProvider, Span, SpanKind, Status, StatusCode
from opentelemetry.trace import Tracer as Tracer  # re-exported for the services' signatures

from server.domain.approvals.requests import Approval, ApprovalState
from server.domain.guardrails import Guardrail, GuardrailResult, Severity
from server.domain.recovery.events import RecoveryEvent, RecoveryEventType
from server.domain.safeguards.breakers import BreakerChange
from server.domain.safeguards.budgets import BudgetSignal
from server.telemetry.metrics import Metrics

NO_TRACER: Tracer = trace.NoOpTracer()
PREFIX = "outrider."
# For use cases that background jobs run too (recovery, kills): the process's provider, which
# `outrider serve` sets to the sidecar's (server/telemetry/sdk.py Telemetry.install_global).
_PROCESS_TRACER = trace.get_tracer("outrider")
A = TypeVar("A", bound=Callable[..., Awaitable[Any]])


def recording() -> bool:
    """Whether the current span records (the one cheap check before building attributes)."""
    return trace.get_current_span().is_recording()


def current_trace_id() -> str:
    """The current trace id as 32 hex digits ("" outside a trace); unsampled traces have one too."""
    ctx = trace.get_current_span().get_span_context()
    return format(ctx.trace_id, "032x") if ctx.is_valid else ""


def annotate(**attributes: Any) -> None:
    """Set `outrider.<key>` attributes on the current span (skipping empty values)."""
    span = trace.get_current_span()
    if span.is_recording():
        span.set_attributes({PREFIX + k: v for k, v in attributes.items() if v is not None and v != ""})


def event(name: str, **attributes: Any) -> None:
    """An event on the current span, e.g. `breaker.opened` (a no-op outside a recording span)."""
    span = trace.get_current_span()
    if span.is_recording():
        span.add_event(name, {PREFIX + k: v for k, v in attributes.items() if v is not None and v != ""})


@contextlib.contextmanager
def span(tracer: Tracer, name: str, **attributes: Any) -> Iterator[Span]:
    """A child span of the current one (or a root span in a background job), current inside the block."""
    attrs = {PREFIX + k: v for k, v in attributes.items() if v is not None and v != ""}
    with tracer.start_as_current_span(name, kind=SpanKind.INTERNAL, attributes=attrs) as s:
        yield s


# ---- the guardrail chain ---------------------------------------------------------------------------


def start_guardrail(tracer: Tracer, guardrail: Guardrail) -> Span:
    """A span for one guardrail's check, child of the current (CheckAction) span; not made current."""
    return tracer.start_span(
        f"guardrail {guardrail.name}",
        attributes={"outrider.guardrail.name": guardrail.name, "outrider.guardrail.kind": guardrail.kind},
    )


def end_guardrail(
    span: Span | None,
    result: GuardrailResult | None = None,
    error: str = "",
    pending: bool = False,
    cancelled: bool = False,
) -> None:
    """End a guardrail span with its verdict, severity, reason and duration."""
    if span is None:
        return
    end = time.time_ns()
    attrs: dict[str, Any] = {}
    started = getattr(span, "start_time", None)  # the SDK's span has it; the API promises nothing
    if isinstance(started, int):
        attrs["outrider.guardrail.duration_ms"] = (end - started) / 1e6
    if error:
        attrs.update(
            {
                "outrider.guardrail.verdict": "error",
                "outrider.guardrail.severity": Severity.BLOCK.name,
                "outrider.guardrail.reason": f"Guardrail error: {error}",
            }
        )
        span.set_status(Status(StatusCode.ERROR, error))
    elif result is None:
        attrs["outrider.guardrail.verdict"] = "cancelled" if cancelled else ("pending" if pending else "rerun")
    else:
        verdict = "block" if not result.allowed else ("warn" if result.severity is Severity.WARNING else "allow")
        attrs.update(
            {
                "outrider.guardrail.verdict": verdict,
                "outrider.guardrail.severity": result.severity.name,
                "outrider.guardrail.reason": result.reason,
            }
        )
    span.set_attributes(attrs)
    span.end(end)


@contextlib.contextmanager
def approval_wait(tracer: Tracer, guardrail_span: Span | None) -> Iterator[Span | None]:
    """The wait for a person, as its own span under the guardrail's (nothing when untraced)."""
    if guardrail_span is None:
        yield None
        return
    with tracer.start_as_current_span("approval wait", context=trace.set_span_in_context(guardrail_span)) as s:
        yield s


_CLOSED_EVENTS = {
    ApprovalState.APPROVED: "approval.decided",
    ApprovalState.REJECTED: "approval.decided",
    ApprovalState.EXPIRED: "approval.expired",
    ApprovalState.CANCELLED: "approval.cancelled",
}


def approval_event(approval: Approval, name: str = "") -> None:
    """`approval.created`, `.pending`, `.decided` (with the reviewer), `.expired` or `.cancelled` on the
    current span, which also gets the request's id and state."""
    span = trace.get_current_span()
    if not span.is_recording():
        return
    attrs: dict[str, Any] = {
        "outrider.approval_id": approval.approval_id,
        "outrider.approval.state": approval.state.name,
    }
    if approval.closed:
        attrs["outrider.approval.reviewer"] = approval.decided_by
        if approval.comment:
            attrs["outrider.approval.comment"] = approval.comment
    span.set_attributes(attrs)
    span.add_event(name or _CLOSED_EVENTS.get(approval.state, "approval.created"), attrs)


# ---- safeguards and recovery ------------------------------------------------------------------------


def traced(name: str) -> Callable[[A], A]:
    """Run an async use case in a span `name`: a child of the current span (an RPC), or a root span when a
    background job runs it. Through the process's tracer provider; without one, the call runs untraced
    (and events still land on the RPC's span)."""

    def decorate(fn: A) -> A:
        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            if isinstance(trace.get_tracer_provider(), ProxyTracerProvider):
                return await fn(*args, **kwargs)
            with _PROCESS_TRACER.start_as_current_span(name, kind=SpanKind.INTERNAL):
                return await fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def breaker_change(change: BreakerChange) -> None:
    """A circuit breaker changed state in the current call (e.g. the `breaker` guardrail, ReportOutcome)."""
    event(
        "breaker.state_change",
        key=change.key,
        from_state=change.from_state.name,
        to_state=change.to_state.name,
        reason=change.reason,
        generation=change.generation,
        failure_count=change.failure_count,
    )


def budget_signal(signal: BudgetSignal) -> None:
    """A budget signal (SIGWARN / SIGSTOP / SIGRESUME) that the current call caused."""
    event(
        "budget.signal",
        agent_id=signal.agent_id,
        signal=signal.type.name,
        scope="global" if signal.is_global else "agent",
        used=signal.used,
        allocated=signal.allocated,
    )


_RECOVERY_EVENTS = {
    RecoveryEventType.HEALTH_CHECK_FAILED: "health_check.failed",
    RecoveryEventType.RECOVERY_ATTEMPT: "recovery.attempt",
    RecoveryEventType.ESCALATION: "recovery.escalation",
    RecoveryEventType.KILL: "kill.complete",
    RecoveryEventType.HANDOFF: "kill.handoff",
    RecoveryEventType.CASCADE: "cascade.detected",
    RecoveryEventType.BREAKER_STATE_CHANGE: "breaker.state_change",
    RecoveryEventType.BUDGET_SIGNAL: "budget.signal",
}


def _scalars(payload: Any) -> dict[str, Any]:
    """The plain fields of an event's payload (a dataclass, or a protobuf JSON mapping) as attributes."""
    if dataclasses.is_dataclass(payload) and not isinstance(payload, type):
        items = [(f.name, getattr(payload, f.name)) for f in dataclasses.fields(payload)]
    elif isinstance(payload, dict):
        items = list(payload.items())
    else:
        return {}
    out: dict[str, Any] = {}
    for key, value in items:
        if isinstance(value, enum.Enum):
            out[key] = value.name
        elif isinstance(value, str | bool | int | float) and value != "":
            out[key] = value
    return out


class RecoveryEventObserver:
    """A listener of the recovery event log (called on the emitting thread, in the emitting call's context):
    each event becomes a span event on the current span and counts in the metrics."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def __call__(self, e: RecoveryEvent) -> None:
        if e.type is RecoveryEventType.HEALTH_CHECK_FAILED:
            self.metrics.health_check_failed(e.agent_id)
        self.metrics.recovery_event(e.type.name.lower(), _scalars(e.payload))
        if e.type in (RecoveryEventType.BREAKER_STATE_CHANGE, RecoveryEventType.BUDGET_SIGNAL):
            return  # their services put these on the span themselves (breaker_change, budget_signal)
        if recording():
            attrs = {"sequence": e.sequence, "agent_id": e.agent_id, **_scalars(e.payload)}
            event(_RECOVERY_EVENTS.get(e.type, e.type.name.lower()), **attrs)
