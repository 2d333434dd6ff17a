"""Outrider's metrics, through the OpenTelemetry metrics API: one catalog of instruments that services record into.

The SDK behind the meter (server/telemetry/sdk.py) exports them over OTLP and as Prometheus text on `/metrics`.
Without a meter every instrument is a no-op, so services can always call these methods.
Names follow OTel conventions; the Prometheus names are the same with `_` for `.`, a unit suffix
(`_seconds`) and `_total` on counters, e.g. `outrider_decisions_total{outcome,guardrail}`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from opentelemetry.metrics import CallbackOptions, Meter, NoOpMeter, Observation

from server.domain.approvals.requests import Approval, ApprovalState
from server.domain.safeguards.breakers import BreakerChange, BreakerState
from server.domain.safeguards.budgets import BudgetSignal

# CheckAction answers in microseconds unless a person is asked: buckets span both.
LATENCY_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    5.0,
    30.0,
    60.0,
    300.0,
    900.0,
    3600.0,
)
DECISION_TIME_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 14400.0, 86400.0)

Reading = Iterable[tuple[float, dict[str, str]]]
_MAX_PAGES = 50  # gauges over paged listings read at most this many pages (of up to 1000) per collection


class Metrics:
    """The instruments. `Metrics()` is the no-op catalog (metrics off, unit tests)."""

    def __init__(self, meter: Meter | None = None) -> None:
        self.enabled = meter is not None
        self.meter: Meter = meter or NoOpMeter("outrider")
        m = self.meter
        # Per CheckAction (`decision`): the decision counter is a dict entry bumped on the event loop and
        # read by the SDK only when it collects (`_observe_decisions`), ≈ 0.1 µs; the latency histogram is
        # one SDK `Histogram.record` with a pre-built attribute dict, ≈ 5-9 µs (bench/inprocess.py): the
        # SDK copies and hashes the attributes and takes a lock on every call. The OpenTelemetry Python SDK
        # has no bound instruments and no way to hand it histogram points aggregated elsewhere, and a
        # histogram without the outcome attribute saves only a third, so this is the one per-call cost left.
        self._decision_counts: dict[tuple[str, str], int] = {}
        self._duration_attrs: dict[str, dict[str, str]] = {}
        self._shadow_counts: dict[tuple[str, str], int] = {}
        m.create_observable_counter(
            "outrider.shadow_decisions",
            [self._observe_shadow],
            "{decision}",
            "CheckAction decisions a shadow guardrail would have changed, by the guardrail and what it would "
            "have done (blocked, would_ask)",
        )
        m.create_observable_counter(
            "outrider.decisions",
            [self._observe_decisions],
            "{decision}",
            "CheckAction decisions by outcome and the guardrail that decided",
        )
        self._check_duration = m.create_histogram(
            "outrider.check_action.duration",
            "s",
            "CheckAction time in the chain (a human approval's wait included), by outcome",
            explicit_bucket_boundaries_advisory=LATENCY_BUCKETS,
        )
        self._approval_time = m.create_histogram(
            "outrider.approval.time_to_decision",
            "s",
            "From an approval request's creation to its closing, by final state",
            explicit_bucket_boundaries_advisory=DECISION_TIME_BUCKETS,
        )
        self._approval_timeouts = m.create_counter(
            "outrider.approval.timeouts", "{request}", "Approval requests that expired without a decision"
        )
        self._breaker_trips = m.create_counter(
            "outrider.breaker.trips", "{trip}", "Circuit breakers that opened, by breaker"
        )
        self._health_failures = m.create_counter(
            "outrider.health_check.failures", "{failure}", "Failed or missed agent health checks, by agent"
        )
        self._recovery = m.create_counter(
            "outrider.recovery.events",
            "{event}",
            "Recovery events by type (recovery_attempt, escalation, kill, handoff, cascade, ...) and outcome",
        )
        self._budget_signals = m.create_counter(
            "outrider.budget.signals", "{signal}", "Budget signals sent (SIGWARN, SIGSTOP, SIGRESUME), by type"
        )
        self._notification_attempts = m.create_counter(
            "outrider.notification.attempts",
            "{attempt}",
            "Notification delivery attempts by channel and outcome (delivered, retry, failed)",
        )

    # ---- events --------------------------------------------------------------------------------

    def decision(self, outcome: str, guardrail: str, seconds: float) -> None:
        """One CheckAction answer: outcome is allowed, blocked or pending (a non-blocking approval)."""
        if not self.enabled:
            return
        key = (outcome, guardrail or "none")
        counts = self._decision_counts
        counts[key] = counts.get(key, 0) + 1  # one thread (the event loop) writes
        attrs = self._duration_attrs.get(outcome)
        if attrs is None:
            attrs = self._duration_attrs[outcome] = {"outcome": outcome}
        self._check_duration.record(seconds, attrs)

    def shadow_decision(self, guardrail: str, needs_approval: bool) -> None:
        """A decision whose shadow outcome differs: `guardrail` (in shadow mode) would have blocked or asked."""
        if not self.enabled:
            return
        key = (guardrail, "would_ask" if needs_approval else "blocked")
        counts = self._shadow_counts
        counts[key] = counts.get(key, 0) + 1  # one thread (the event loop) writes

    def _observe_shadow(self, options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(n, {"guardrail": g, "outcome": o}) for (g, o), n in list(self._shadow_counts.items())]

    def _observe_decisions(self, options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(n, {"outcome": o, "guardrail": g}) for (o, g), n in list(self._decision_counts.items())]

    def approval_closed(self, approval: Approval) -> None:
        """An approval request left PENDING (decided, expired or cancelled) in this process."""
        if not self.enabled or approval.state is ApprovalState.PENDING:
            return
        state = approval.state.name.lower()
        if approval.decide_time is not None:
            waited = max(0.0, (approval.decide_time - approval.create_time).total_seconds())
            self._approval_time.record(waited, {"state": state})
        if approval.state is ApprovalState.EXPIRED:
            self._approval_timeouts.add(1, {"guardrail": approval.guardrail})

    def breaker_tripped(self, breaker: str) -> None:
        if self.enabled:
            self._breaker_trips.add(1, {"breaker": breaker})

    def health_check_failed(self, agent_id: str) -> None:
        if self.enabled:
            self._health_failures.add(1, {"agent_id": agent_id})

    def recovery_event(self, kind: str, payload: dict[str, Any]) -> None:
        """One recovery event; its outcome label is the payload's action/status/success when it has one."""
        if not self.enabled:
            return
        attrs = {"type": kind}
        for key in ("action_taken", "status", "terminated", "success"):
            if key in payload:
                attrs["outcome"] = str(payload[key]).lower()
                break
        self._recovery.add(1, attrs)

    def budget_signal(self, signal: str, scope: str) -> None:
        if self.enabled:
            self._budget_signals.add(1, {"signal": signal, "scope": scope})

    def notification_attempt(self, channel: str, outcome: str) -> None:
        if self.enabled:
            self._notification_attempts.add(1, {"channel": channel, "outcome": outcome})

    # BreakerService listener and BudgetService signal sink (called on their event threads).

    def on_breaker_change(self, change: BreakerChange) -> None:
        if change.to_state is BreakerState.OPEN:
            self.breaker_tripped(change.key)

    def publish_budget_signal(self, agent_id: str, signal: BudgetSignal, detail: str) -> None:
        self.budget_signal(signal.type.name, "global" if signal.is_global else "agent")

    # ---- state read at collection time ---------------------------------------------------------

    def gauge(self, name: str, unit: str, description: str, read: Callable[[], Reading]) -> None:
        """A gauge whose values `read()` returns when metrics are collected (a scrape, an export)."""
        if self.enabled:
            self.meter.create_observable_gauge(name, [_callback(read)], unit, description)

    def counter(self, name: str, unit: str, description: str, read: Callable[[], Reading]) -> None:
        """A monotonic total kept elsewhere (e.g. the decision log's drop count), read at collection time."""
        if self.enabled:
            self.meter.create_observable_counter(name, [_callback(read)], unit, description)


def _callback(read: Callable[[], Reading]) -> Callable[[CallbackOptions], Iterable[Observation]]:
    def callback(options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(value, attributes) for value, attributes in read()]

    return callback


def observe_services(metrics: Metrics, services: Any) -> None:
    """Gauges over the services' in-memory state (what exists in this build of the sidecar)."""
    if not metrics.enabled:
        return
    approvals = getattr(services, "approvals", None)
    if approvals is not None:
        metrics.gauge(
            "outrider.approvals.pending",
            "{request}",
            "Approval requests waiting for a decision",
            lambda: [(float(len(approvals.pending())), {})],
        )
    decisions = getattr(services, "decisions", None)
    if decisions is not None:
        stats = decisions.stats
        metrics.counter(
            "outrider.decision_log.dropped",
            "{record}",
            "Decision-log records dropped because the queue was full",
            lambda: [(float(stats.dropped), {})],
        )
        metrics.counter(
            "outrider.decision_log.written",
            "{record}",
            "Decision-log records written",
            lambda: [(float(stats.written), {})],
        )
        metrics.counter(
            "outrider.decision_log.failed",
            "{record}",
            "Decision-log records that could not be written (storage refused them, or they cannot be rows)",
            lambda: [(float(stats.failed), {})],
        )
        metrics.counter(
            "outrider.decision_log.restarts",
            "{restart}",
            "Times the decision-log writer stopped unexpectedly and was restarted",
            lambda: [(float(stats.restarts), {})],
        )
        metrics.gauge(
            "outrider.decision_log.up",
            "",
            "1 while the decision-log writer runs, 0 while it is down",
            lambda: [(1.0 if stats.up else 0.0, {})],
        )
        metrics.gauge(
            "outrider.decision_log.journaled",
            "{record}",
            "Decisions in the local journal, waiting for storage to come back",
            lambda: [(float(stats.journaled), {})],
        )
        metrics.gauge(
            "outrider.decision_log.journal_bytes",
            "By",
            "Size of the decision log's local journal (bounded by decision_log.journal_max_bytes)",
            lambda: [(float(stats.journal_bytes), {})],
        )
        metrics.gauge(
            "outrider.decision_log.journal_full",
            "",
            "1 while the local journal is full (on_journal_full: block refuses CheckActions), 0 otherwise",
            lambda: [(1.0 if stats.journal_full else 0.0, {})],
        )
        metrics.gauge(
            "outrider.decision_log.held",
            "{record}",
            "Decisions waiting for storage in memory only (the journal was full)",
            lambda: [(float(stats.held), {})],
        )
        metrics.counter(
            "outrider.decision_log.replayed",
            "{record}",
            "Decisions written from the journal after storage came back",
            lambda: [(float(stats.replayed), {})],
        )
    breakers = getattr(services, "breakers", None)
    if breakers is not None:
        breakers.add_listener(metrics)
        metrics.gauge(
            "outrider.breaker.state",
            "",
            "1 for the state each circuit breaker is in, 0 for the others",
            lambda: _breaker_states(breakers),
        )
    notifications = getattr(services, "notifications", None)
    if notifications is not None:
        metrics.gauge(
            "outrider.notifications.outbox",
            "{notification}",
            "Notifications in the outbox by state (pending, delivered, failed)",
            lambda: [(float(n), {"state": s.value.lower()}) for s, n in notifications.counts().items()],
        )
    budgets = getattr(services, "budgets", None)
    if budgets is not None:
        budgets.add_sink(metrics)
        for what, description in (
            ("used", "Tokens used"),
            ("reserved", "Tokens reserved and not yet settled"),
            ("limit", "Tokens allocated (an agent) or in total (the global budget)"),
        ):
            metrics.gauge(
                f"outrider.budget.{what}",
                "{token}",
                f"{description}, per agent allocation (scope=agent) and for the global budget (scope=global)",
                functools.partial(_budget_values, budgets, what),
            )


def _all_pages(list_page: Callable[[str], tuple[list[Any], str]]) -> list[Any]:
    items: list[Any] = []
    token = ""
    for _ in range(_MAX_PAGES):
        page, token = list_page(token)
        items.extend(page)
        if not token:
            break
    return items


def _breaker_states(breakers: Any) -> Reading:
    def page(token: str) -> tuple[list[Any], str]:
        p = breakers.list(0, "", 1000, token)
        return list(p.items), p.next_page_token

    for b in _all_pages(page):
        for state in BreakerState:
            yield (1.0 if b.state is state else 0.0), {"key": b.key, "state": state.name}


def _budget_values(budgets: Any, what: str) -> Reading:
    glob: Any = None

    def page(token: str) -> tuple[list[Any], str]:
        nonlocal glob
        p, glob = budgets.list(1000, token)
        return list(p.items), p.next_page_token

    for a in _all_pages(page):
        value = a.allocated if what == "limit" else getattr(a, what)
        yield float(value), {"scope": "agent", "agent_id": a.agent_id}
    if glob is not None:
        value = glob.total if what == "limit" else getattr(glob, what)
        yield float(value), {"scope": "global", "agent_id": ""}
