"""What the recovery feature needs from storage and from the scheduler; server/storage and server/jobs implement
these."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from server.domain.recovery.cascade import AgentFailure
from server.domain.recovery.events import EventFilter, RecoveryEvent, RecoveryEventType
from server.domain.recovery.health import HealthCheckSpec, HealthStatus
from server.domain.recovery.kill import KillFilter, KillResult, Substitute, SubstituteScope
from server.domain.recovery.ladder import HistoryFilter, RecoveryPolicy, RecoveryResult, RecoveryState
from server.services.ports import Page


class RecoveryRepository(Protocol):
    def load_policies(self) -> list[RecoveryPolicy]: ...

    def save_policy(self, policy: RecoveryPolicy) -> None: ...

    def apply_file_policies(self, policies: Sequence[RecoveryPolicy]) -> None:
        """Replace every policy that came from the file (and any policy of the groups the file names)."""
        ...

    def load_states(self) -> dict[str, RecoveryState]: ...

    def get_state(self, agent_id: str) -> RecoveryState | None:
        """The agent's stored state (fresh: another sidecar may have changed it)."""
        ...

    def record_attempt(self, result: RecoveryResult, state: RecoveryState) -> RecoveryState:
        """The history entry and the agent's new state, in one transaction; the retry count changes
        atomically on the stored value (+1, or 0 when `state.retry_count` is 0). Returns the stored state."""
        ...

    def save_state(self, agent_id: str, state: RecoveryState, answer: Any = None) -> None: ...

    def delete_state(self, agent_id: str) -> None: ...

    def find_attempt(self, request_id: str) -> RecoveryResult | None: ...

    def history(self, flt: HistoryFilter, page_size: int, page_token: str) -> Page[RecoveryResult]: ...

    def load_checks(self) -> dict[str, HealthCheckSpec]: ...

    def save_check(self, agent_id: str, spec: HealthCheckSpec, now: datetime) -> bool:
        """True when it replaced a stored check."""
        ...

    def delete_check(self, agent_id: str) -> bool: ...

    def save_status(self, status: HealthStatus) -> bool: ...

    def load_statuses(self, agent_id: str = "") -> dict[str, HealthStatus]: ...

    def get_setting(self, key: str) -> dict[str, Any] | None: ...

    def put_setting(self, key: str, value: dict[str, Any], now: datetime, answer: Any = None) -> None: ...


class RecoveryEventRepository(Protocol):
    def append(
        self, event_type: RecoveryEventType, agent_id: str, event_time: datetime, payload: Any
    ) -> RecoveryEvent: ...

    def latest_sequence(self) -> int: ...

    def after(self, cursor: int, upto: int, flt: EventFilter, limit: int) -> list[RecoveryEvent]:
        """Events with cursor < sequence <= upto matching `flt`, oldest first."""
        ...

    def list(self, flt: EventFilter, page_size: int, page_token: str) -> Page[RecoveryEvent]: ...

    def prune(self, keep_rows: int) -> int:
        """Delete all but the newest `keep_rows` events; returns the highest sequence deleted (0: none)."""
        ...

    def prune_through(self, cut: int) -> int:
        """Delete the events with sequence <= `cut`; returns how many were deleted."""
        ...


class KillRepository(Protocol):
    def insert(self, kill: KillResult) -> bool:
        """Store a kill intent; False when its kill id is taken (draw another)."""
        ...

    def update(self, kill: KillResult) -> bool:
        """Write this sidecar's progress on a kill it owns; False (nothing written) when the kill is another
        sidecar's now (it took it over while this one was away) or complete already."""
        ...

    def get(self, kill_id: str) -> KillResult | None: ...

    def find_by_request(self, request_id: str) -> KillResult | None: ...

    def incomplete(self) -> list[KillResult]: ...

    def taken_over(self, kill_ids: Sequence[str]) -> list[str]:
        """Which of these kills another sidecar owns now (it took them over: this one was declared gone)."""
        ...

    def claim_orphaned(self, gone_before: datetime) -> list[KillResult]:
        """Take over the running kills whose owning sidecar is gone (no heartbeat since `gone_before`):
        each is claimed by exactly one sidecar, fleet-wide."""
        ...

    def load_substitutes(self) -> list[Substitute]: ...

    def add_substitute(self, sub: Substitute) -> bool:
        """False when the agent is in that list already (registered meanwhile, perhaps on another sidecar)."""

    def remove_substitute(self, scope: SubstituteScope, scope_id: str, agent_id: str) -> bool: ...

    def remove_agent_substitutes(self, agent_id: str) -> int: ...

    def list(self, flt: KillFilter, page_size: int, page_token: str) -> Page[KillResult]: ...


class CascadeWindowStore(Protocol):
    """The cascade detector's sliding window of failures (the fleet's one window in the database)."""

    def record(
        self, failure: AgentFailure, window: float, threshold: int, cascade_id: str
    ) -> tuple[AgentFailure, ...] | None:
        """Add `failure` (its `failure_time` is now); when `threshold` related failures are within the last
        `window` seconds, they leave the window as cascade `cascade_id` and are returned (oldest first).
        Concurrent records, on any sidecar, are serialised: a set of failures forms one cascade."""
        ...

    def size(self, window: float, now: datetime) -> int:
        """How many failures are in the window (not yet part of a cascade)."""
        ...


class MonitorScheduler(Protocol):
    """The periodic health-check job (server/jobs/scheduler.py)."""

    def schedule(self, interval: float, run: Callable[[], None]) -> None: ...

    def unschedule(self) -> None: ...

    def next_run_time(self) -> datetime | None: ...
