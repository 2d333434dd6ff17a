"""What the fleet services (and every cache that must follow the database) need from storage."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from server.domain.fleet.jobs import JobClaim
from server.domain.fleet.sidecars import Sidecar

# The change feed's topics (keys in parentheses); storage bumps them in the writing transaction, the
# services below subscribe. Documented with the feed in server/storage/fleet/changes.py.
AGENTS_TOPIC = "agents"  # (agent id) a record (group, labels, capabilities) or a standing (kill, reinstate)
ACCESS_TOPIC = "access"  # (token id or certificate fingerprint) a credential issued or revoked
POLICIES_TOPIC = "recovery_policies"  # (group, "*" for the policy file's) a recovery policy
STATES_TOPIC = "recovery_states"  # (agent id) retry count, cooldown, last attempt
CHECKS_TOPIC = "health_checks"  # (agent id) a health-check spec
GUARDRAILS_TOPIC = "guardrails"  # (the chain version) the guardrail chain was replaced
SUBSTITUTES_TOPIC = "substitutes"  # (the substitute's agent id) a substitute registered or removed
# (agent id) a recovery or safeguard event was appended; the counter IS the event sequence (see
# SqlRecoveryEventRepository), so its version is the newest committed sequence.
EVENTS_TOPIC = "recovery_events"
SETTINGS_TOPIC = "recovery_settings"  # (the setting's key) monitoring on/off and interval, cascade policy, ...


class ChangeFeed(Protocol):
    """Committed changes of other sidecars, by topic (the one listener of this sidecar).

    `on_change(key)` runs on the listener's thread, once per change another sidecar committed (the key is
    an id, never the data: read it back from the database). `on_resync()` runs when changes may have been
    missed (first connection, a reconnect, a gap in the topic's change counter, a counter that moved with
    no notification): reload everything the cache holds for the topic. Neither may block for long.
    """

    def subscribe(self, topic: str, on_change: Callable[[str], None], on_resync: Callable[[], None]) -> None: ...

    def start(self) -> None:
        """Start listening (after every cache subscribed)."""

    def stop(self) -> None: ...


class SidecarRepository(Protocol):
    def register(self, sidecar: Sidecar) -> None: ...

    def heartbeat(self, sidecar_id: str, now: datetime) -> None: ...

    def stopped(self, sidecar_id: str, now: datetime) -> None: ...

    def all(self) -> Sequence[Sidecar]: ...

    def prune(self, stopped_before: datetime) -> int: ...


class JobClaimRepository(Protocol):
    """Claims of periodic work (`fleet_jobs`): of any number of concurrent callers, one wins."""

    def claim(self, job_id: str, owner: str, now: datetime, until: datetime, *, keep: bool = False) -> bool:
        """Take the job (or role) until `until` when it is free at `now` (never claimed, or its due time
        passed); with `keep`, also when `owner` already holds it (a leader renewing its lease)."""
        ...

    def release(self, job_id: str, owner: str) -> None:
        """Free a role `owner` holds (a clean shutdown): another sidecar takes it on its next tick."""
        ...

    def all(self) -> Sequence[JobClaim]: ...
