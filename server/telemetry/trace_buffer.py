"""The console's recent traces: a span processor that keeps the last N sampled traces in memory.

`on_end` only appends a finished span to its trace's list under a lock (the hot path pays no more);
the console lays a trace out as a waterfall when someone looks at it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode

MAX_SPANS_PER_TRACE = 500
WIDTH = 1000  # the waterfall's bars are laid out on 0..WIDTH (an SVG viewBox: no inline style under the CSP)


@dataclass(frozen=True)
class EventView:
    name: str
    offset_ms: float  # from the trace's start
    x: int  # position on the waterfall, 0..WIDTH
    attributes: list[tuple[str, str]]


@dataclass(frozen=True)
class SpanView:
    span_id: str
    parent_id: str
    name: str
    kind: str
    depth: int
    offset_ms: float
    duration_ms: float
    x: int
    width: int
    error: bool
    status_message: str
    attributes: list[tuple[str, str]]
    events: list[EventView]

    def attr(self, key: str) -> str:
        return next((v for k, v in self.attributes if k == key), "")

    @property
    def look(self) -> str:
        """A CSS class for the bar: the guardrail's verdict, an error, or the span kind."""
        verdict = self.attr("outrider.guardrail.verdict")
        if self.error or verdict == "error":
            return "error"
        if verdict:
            return verdict
        outcome = self.attr("outrider.outcome")
        return outcome or self.kind.lower()


@dataclass(frozen=True)
class TraceView:
    trace_id: str
    start: datetime
    duration_ms: float
    spans: list[SpanView]
    continued: bool  # the first span's parent is another process's (the agent's own trace)
    agents: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    approvals: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spans[0].name if self.spans else ""

    @property
    def error(self) -> bool:
        return any(s.error or s.attr("rpc.grpc.status_code") not in ("", "0") for s in self.spans)

    def matches(self, agent: str = "", outcome: str = "", decision: str = "") -> bool:
        if agent and agent not in self.agents:
            return False
        if decision and not any(d == decision or d.startswith(decision) for d in self.decisions):
            return False
        if outcome == "error":
            return self.error
        return not outcome or outcome in self.outcomes


class RecentTraces(SpanProcessor):
    """The last `max_traces` traces that had a span end here, most recently active last."""

    def __init__(self, max_traces: int, max_spans: int = MAX_SPANS_PER_TRACE) -> None:
        self.max_traces = max_traces
        self.max_spans = max_spans
        self._traces: OrderedDict[int, list[ReadableSpan]] = OrderedDict()
        self._lock = threading.Lock()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        pass

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return
        trace_id = span.context.trace_id
        with self._lock:
            spans = self._traces.get(trace_id)
            if spans is None:
                spans = self._traces[trace_id] = []
                if len(self._traces) > self.max_traces:
                    self._traces.popitem(last=False)
            else:
                self._traces.move_to_end(trace_id)
            if len(spans) < self.max_spans:
                spans.append(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    # ---- reading (the console) ----------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            return len(self._traces)

    def get(self, trace_id: str) -> TraceView | None:
        try:
            key = int(trace_id, 16)
        except ValueError:
            return None
        with self._lock:
            spans = list(self._traces.get(key, ()))
        return layout(spans) if spans else None

    def list(self, agent: str = "", outcome: str = "", decision: str = "", limit: int = 50) -> list[TraceView]:
        """Traces matching every filter given, most recently active first."""
        with self._lock:
            snapshot = [list(spans) for spans in reversed(self._traces.values())]
        found: list[TraceView] = []
        for spans in snapshot:
            view = layout(spans)
            if view.matches(agent, outcome, decision):
                found.append(view)
                if len(found) >= limit:
                    break
        return found


def _hex(value: int, digits: int) -> str:
    return format(value, f"0{digits}x")


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def layout(spans: Sequence[ReadableSpan]) -> TraceView:
    """A trace's spans in waterfall order (depth first, children by start time), positioned on 0..WIDTH."""
    assert spans and spans[0].context is not None
    ids = {s.context.span_id for s in spans if s.context is not None}
    children: dict[int, list[ReadableSpan]] = {}
    roots: list[ReadableSpan] = []
    for s in spans:
        if s.parent is not None and s.parent.span_id in ids:
            children.setdefault(s.parent.span_id, []).append(s)
        else:
            roots.append(s)
    start = min(s.start_time or 0 for s in spans)
    end = max(s.end_time or s.start_time or 0 for s in spans)
    total = max(end - start, 1)

    def x_of(ns: int) -> int:
        return min(WIDTH, max(0, round((ns - start) * WIDTH / total)))

    ordered: list[SpanView] = []

    def visit(s: ReadableSpan, depth: int) -> None:
        assert s.context is not None
        s_start, s_end = s.start_time or start, s.end_time or end
        x = x_of(s_start)
        events = [
            EventView(
                e.name,
                (e.timestamp - start) / 1e6,
                x_of(e.timestamp),
                sorted((k, _text(v)) for k, v in (e.attributes or {}).items()),
            )
            for e in s.events
        ]
        ordered.append(
            SpanView(
                span_id=_hex(s.context.span_id, 16),
                parent_id=_hex(s.parent.span_id, 16) if s.parent is not None else "",
                name=s.name,
                kind=s.kind.name,
                depth=depth,
                offset_ms=(s_start - start) / 1e6,
                duration_ms=(s_end - s_start) / 1e6,
                x=x,
                width=max(2, min(WIDTH - x, x_of(s_end) - x)),
                error=s.status.status_code is StatusCode.ERROR,
                status_message=s.status.description or "",
                attributes=sorted((k, _text(v)) for k, v in (s.attributes or {}).items()),
                events=events,
            )
        )
        for child in sorted(children.get(s.context.span_id, ()), key=lambda c: c.start_time or 0):
            visit(child, depth + 1)

    for root in sorted(roots, key=lambda r: r.start_time or 0):
        visit(root, 0)

    def values(key: str) -> list[str]:
        seen: dict[str, None] = {}
        for view in ordered:
            value = view.attr(key)
            if value:
                seen[value] = None
        return list(seen)

    agents = values("outrider.agent_id")
    agents += [p.removeprefix("agent:") for p in values("outrider.principal") if p.startswith("agent:")]
    first = roots[0] if roots else spans[0]
    return TraceView(
        trace_id=_hex(spans[0].context.trace_id, 32),
        start=datetime.fromtimestamp(start / 1e9, UTC),
        duration_ms=(end - start) / 1e6,
        spans=ordered,
        continued=first.parent is not None and first.parent.is_remote,
        agents=list(dict.fromkeys(agents)),
        decisions=values("outrider.decision_id"),
        outcomes=values("outrider.outcome"),
        approvals=values("outrider.approval_id"),
    )
