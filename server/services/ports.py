"""What the services need from the outside world; storage and the clock implement these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from server.domain.access.principals import Token
from server.domain.agents import Agent, Containment

if TYPE_CHECKING:  # annotations only: importing the guardrails (CEL among them) is most of a CLI start-up
    from server.domain.guardrails import GuardrailSpec
    from server.domain.guardrails.decisions import Decision, DecisionFilter


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def utcnow(self) -> datetime: ...


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    next_page_token: str


class AgentRepository(Protocol):
    def upsert(self, agent: Agent) -> tuple[Agent, bool]: ...

    def register(self, agent: Agent, release: Containment | None = None) -> tuple[Agent, bool, Containment | None]:
        """`upsert`, and with `release` (an ACTIVE standing) a QUARANTINED standing of the id lifted in the
        same transaction (returned; None when the id was not quarantined)."""
        ...

    def delete(self, agent_id: str) -> bool: ...

    def get(self, agent_id: str) -> Agent | None: ...

    def all(self) -> list[Agent]: ...

    def list(self, group: str, page_size: int, page_token: str) -> Page[Agent]: ...

    # Standings (server.domain.agents.Standing): kept per agent id, also after its record is removed.
    def ever_registered(self, agent_id: str) -> bool: ...

    def contained(self) -> dict[str, Containment]: ...

    def set_standing(self, c: Containment) -> Containment | None: ...

    def containment_version(self) -> int: ...

    def records_version(self) -> int:
        """Bumped by every change of a record (group, labels, capabilities) by any process on the database."""
        ...


class GuardrailRepository(Protocol):
    def load(self) -> tuple[list[GuardrailSpec], str | None]:
        """The stored chain and the digest of the policy file it was last built from (None: never)."""
        ...

    def replace(self, specs: Sequence[GuardrailSpec], policy_digest: str | None, policy_path: str) -> int:
        """Store a whole chain; a digest records that it came from that policy file content. Returns the
        new chain version."""
        ...

    def replace_if(self, specs: Sequence[GuardrailSpec], expected_version: int, answer: Any = None) -> int | None:
        """Compare-and-set: store the chain only if the stored version is still `expected_version` (read
        again inside the transaction, under the counter's row lock); the new version, or None when another
        process changed the chain first (nothing written)."""
        ...

    def version(self) -> int:
        """The chain version, bumped by every replace (in any process)."""
        ...


class RateWindowRepository(Protocol):
    """The fleet's shared `rate_limit` windows (scope: fleet), one row per guardrail and agent."""

    def take(self, key: str, agent_id: str, index: int, want: int, cap: int) -> tuple[int, int]:
        """Atomically take up to `want` of window `index`'s `cap` admissions for (`key`, `agent_id`); a
        window newer than the stored one starts at 0, an older one (a caller whose clock lags) gets
        nothing. Returns (taken, the total taken for the window)."""
        ...


class DecisionRepository(Protocol):
    def insert_many(self, rows: Sequence[Decision]) -> None: ...

    def by_ids(self, decision_ids: Sequence[str]) -> Mapping[str, Decision | None]:
        """The stored decisions among these ids (None: a row that cannot be read back)."""
        ...

    def list(self, flt: DecisionFilter, page_size: int, page_token: str) -> Page[Decision]: ...

    def prune(self, older_than: datetime | None, keep_rows: int | None) -> int: ...

    def scan(
        self, start_time: datetime | None, agent_id: str, after: int, limit: int
    ) -> Sequence[tuple[int, Decision]]:
        """Oldest first: up to `limit` decisions after position `after` (0: from the start) made at or after
        `start_time`, with their positions (`outrider policy replay` pages through them)."""
        ...


class DecisionJournal(Protocol):
    """Decisions storage could not take yet, kept on local disk in order (server/adapters/decision_journal.py)."""

    @property
    def pending_bytes(self) -> int: ...

    @property
    def size_bytes(self) -> int: ...

    def pending_records(self) -> int: ...

    def append(self, decisions: Sequence[Decision]) -> bool:
        """Durably (fsync) append one batch; False, nothing written, when the journal is full."""
        ...

    def head(self, limit: int = 1) -> tuple[list[Decision], int] | None:
        """The oldest batches not replayed (whole, up to `limit` decisions) and their end marker for
        `replayed` (None: nothing readable is pending)."""
        ...

    def replayed(self, offset: int) -> None: ...

    def close(self) -> None: ...


class PolicySource(Protocol):
    """The policy file: re-read on reload."""

    path: str

    def read(self) -> tuple[Any, str]:
        """The raw `guardrails:` list and the digest of the file's policy content."""
        ...


class AuditSink(Protocol):
    """The tamper-evident audit trail (services/audit.py). `actor` is "operator:NAME", "agent:ID",
    "reviewer:NAME", "system" or "cli:USER"; `details` is masked before it is stored."""

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None: ...


class TokenRepository(Protocol):
    def insert(self, token: Token, secret_hash: str) -> None: ...

    def revoke(self, token_id: str, when: datetime) -> Token | None:
        """Mark the token revoked (once: a second revocation keeps the first time); returns it as it was
        before, None when unknown."""
        ...

    def active(self) -> dict[str, Token]: ...

    def version(self) -> int: ...

    def list(self, subject: str, include_revoked: bool, page_size: int, page_token: str) -> Page[Token]: ...

    def revoke_certificate(self, fingerprint: str, reason: str, actor: str, when: datetime) -> bool: ...

    def revoked_certificates(self) -> set[str]: ...
