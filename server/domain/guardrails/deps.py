"""What stateful guardrail kinds call at check time: services, passed in by the composition root.

Each is a Protocol the service implements; a kind whose dependency is missing cannot be built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from server.domain.safeguards.breakers import Admission
from server.domain.safeguards.budgets import Fit


class PermitSource(Protocol):
    """The circuit breakers (server/services/safeguards/breakers.py)."""

    def guardrail_permit(self, key: str) -> Admission:
        """Take a permit for `key` (blocking: for callers off the event loop)."""
        ...

    async def guardrail_permit_async(self, key: str) -> Admission:
        """Take a permit for `key` inside CheckAction: never blocks the event loop (a CLOSED permit is
        memory only and never commits; a HALF_OPEN probe's storage work runs on a thread)."""
        ...

    def preview_permit(self, key: str) -> Admission:
        """What `guardrail_permit` would answer now, taking nothing and changing no breaker (explain)."""
        ...

    def release(self, permit_id: str) -> object:
        """Give a permit back unused (the chain blocked after it was taken)."""
        ...


class BudgetGate(Protocol):
    """The token budgets (server/services/safeguards/budgets.py)."""

    def can_consume(self, agent_id: str, tokens: int) -> Fit: ...

    def usage_after(self, agent_id: str, tokens: int) -> float | None:
        """The agent's usage percent if `tokens` were consumed (None without an allocation)."""
        ...


class SliceSource(Protocol):
    """The fleet's shared rate windows (server/services/supervisor/rates.py): `rate_limit` with `scope: fleet`
    admits from slices of a window's allowance taken from the database, never a round trip per check."""

    def window_index(self, window: float) -> int:
        """The fleet-wide window `now` falls in: floor(wall-clock seconds / window) (no I/O)."""
        ...

    async def take_slice(self, key: str, agent_id: str, index: int, want: int, cap: int) -> tuple[int, int]:
        """Take up to `want` of the `cap` admissions of window `index` for (`key`, `agent_id`), atomically in
        the database (storage work off the event loop). Returns (taken, the fleet's total taken so far)."""
        ...


@dataclass(frozen=True)
class GuardrailDeps:
    breakers: PermitSource | None = None
    budgets: BudgetGate | None = None
    rates: SliceSource | None = None  # None (SQLite, one sidecar): every rate_limit counts in this process
