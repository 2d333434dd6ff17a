"""What the fleet services (and every cache that must follow the database) need from storage."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the topics below are imported by every credential change, the CLI's too
    from server.domain.fleet.attachments import Attachment
    from server.domain.fleet.commands import RoutedCommand
    from server.domain.fleet.jobs import JobClaim
    from server.domain.fleet.policy import AppliedPolicy, FleetPolicy, PolicyDocument
    from server.domain.fleet.sidecars import Sidecar

# The change feed's topics (keys in parentheses); storage bumps them in the writing transaction, the
# services below subscribe. Documented with the feed in server/storage/fleet/changes.py.
AGENTS_TOPIC = "agents"  # (agent id) a record (group, labels, capabilities) or a standing (kill, reinstate)
ACCESS_TOPIC = "access"  # (token id or certificate fingerprint) a credential issued or revoked
POLICIES_TOPIC = "recovery_policies"  # (group, "*" for the policy file's) a recovery policy
STATES_TOPIC = "recovery_states"  # (agent id) retry count, cooldown, last attempt
CHECKS_TOPIC = "health_checks"  # (agent id) a health-check spec
HEALTH_TOPIC = "health_status"  # (agent id) the latest result of the agent's health check
GUARDRAILS_TOPIC = "guardrails"  # (the chain version) the guardrail chain was replaced
SUBSTITUTES_TOPIC = "substitutes"  # (the substitute's agent id) a substitute registered or removed
POLICY_TOPIC = "policy"  # (the fleet policy version) a policy file was applied fleet-wide
COMMANDS_TOPIC = "commands"  # ("to:<holder> <command id>" or "re:<issuer> <command id>") a routed command
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

    def stale(self, max_age: float) -> bool:
        """True when the caches were last confirmed against the change counters over `max_age` s ago."""
        ...

    def ensure_fresh(self, max_age: float, timeout: float) -> bool:
        """Block until the caches are confirmed against the counters (at most `timeout`); False if not."""
        ...

    def resync_all(self) -> None:
        """Reload every cache soon, whether its topic moved or not."""


class SidecarRepository(Protocol):
    def register(self, sidecar: Sidecar) -> None: ...

    def heartbeat(self, sidecar_id: str, now: datetime) -> datetime | None:
        """Stamp the heartbeat; returns the one it replaced (None: the row was gone)."""
        ...

    def stopped(self, sidecar_id: str, now: datetime) -> None: ...

    def all(self) -> Sequence[Sidecar]: ...

    def prune(self, stopped_before: datetime) -> int: ...


class FleetPolicyRepository(Protocol):
    """The fleet's one policy (`fleet_policy`) and the version each sidecar applied (`fleet_policy_applied`)."""

    def get(self) -> FleetPolicy | None:
        """The fleet's policy; None before any was applied."""
        ...

    def apply(
        self, policy: FleetPolicy, write: Callable[[], None], expected_version: int | None = None
    ) -> FleetPolicy | None:
        """Store `policy` as the next version (its `version` is ignored) and bump the `policy` topic, with
        `write` (the chain, recovery policies, records: their own transactions) run while this sidecar
        holds the fleet's policy lock, so two applies on two sidecars never interleave. Nothing is stored
        when `write` raises. Returns the stored policy with its version; with `expected_version`, None
        (nothing written) when the stored version is another by the time the lock is held."""
        ...

    def mark_applied(self, applied: AppliedPolicy) -> None: ...

    def applied(self) -> Sequence[AppliedPolicy]: ...


class PolicyFile(Protocol):
    """This host's policy file (server/adapters/policy_file.py)."""

    path: str

    def read_document(self) -> PolicyDocument:
        """The file's policy document, read once; InvalidArgument naming the file and field when unreadable."""
        ...

    def line_of(self, field: str) -> int | None:
        """The line where a dotted field (`recovery.policies[0].max_retries`) is written, if it can be told."""
        ...


class AttachmentRepository(Protocol):
    """Which sidecar holds each agent's control channel (`fleet_attachments`)."""

    def attach(self, attachment: Attachment) -> None:
        """Record the agent's newest Attach stream (replacing any other, on any sidecar)."""

    def detach(self, agent_id: str, attachment_id: str) -> bool:
        """Forget the attachment if it is still `attachment_id`."""

    def seen(self, sidecar_id: str, last_seen: Mapping[str, datetime]) -> None: ...

    def reassert(self, held: Sequence[Attachment]) -> list[str]:
        """Stamp (or write again, if another sidecar released it) the row of each stream this sidecar
        holds; returns the agents whose row names a newer stream elsewhere (this one is superseded)."""
        ...

    def owner(self, agent_id: str, gone_before: datetime) -> tuple[Attachment, bool] | None:
        """The attachment and whether its sidecar is present (not stopped, heartbeat since `gone_before`,
        its listener session open); None: not attached anywhere."""

    def present(self, sidecar_id: str, gone_before: datetime) -> bool: ...

    def release_gone(self, gone_before: datetime, keep: str = "") -> int:
        """Forget the attachments of sidecars that stopped or fell silent (never those of `keep`)."""

    def release_sidecar(self, sidecar_id: str) -> int: ...

    def all(self) -> Sequence[Attachment]: ...


class CommandRepository(Protocol):
    """Control commands routed to the sidecar holding the agent's channel (`fleet_commands`)."""

    def insert(self, command: RoutedCommand) -> None:
        """Store a PENDING command and wake its target sidecar."""

    def claim(self, target: str, now: datetime) -> list[RoutedCommand]:
        """The PENDING commands addressed to `target`, now DELIVERED (each claimed once)."""

    def settle(self, command_id: str, delivery: str, outcome: int, detail: str, now: datetime) -> RoutedCommand:
        """Record the outcome unless one is recorded; returns the recorded one and wakes the issuer."""

    def reroute(self, command_id: str, target: str) -> bool:
        """Readdress a still PENDING command; False when it was claimed or settled meanwhile."""

    def look(self, command_id: str, gone_before: datetime) -> tuple[RoutedCommand, bool] | None:
        """The command and whether its target sidecar is present."""

    def prune(self, settled_before: datetime) -> int: ...


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
