"""In-memory implementations of every storage port: for unit tests of the use cases (cosmicpython's fake
repositories) and for `outrider policy test|explain`, which run the chain in process without a database. The same
contracts as the SQL repositories in server/storage (ordering, paging tokens, filters,
compare-and-set, append-only audit chain), no database. `memory_repositories()` gives a whole `Repositories`.

Objects are copied in and out, as a database would, so a test cannot mutate stored state by accident."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from server.adapters.memory.fleet import (
    MemoryBudgetLedger,
    MemoryFleetPolicy,
    MemoryJobClaims,
    MemoryRateWindows,
    MemorySidecars,
    SilentChangeFeed,
)
from server.adapters.memory.notifications import MemoryNotifications, MemorySlackMessages
from server.adapters.memory.safeguards import MemorySafeguards
from server.container import Repositories
from server.domain.access.principals import Token
from server.domain.access.users import Role, User
from server.domain.agents import Agent, Containment, Standing
from server.domain.approvals.requests import Approval, ApprovalFilter, ApprovalState
from server.domain.audit import GENESIS_HASH, AuditEntry, AuditRecord, is_keyed, is_legacy, marker_entry, seal_chain
from server.domain.errors import AlreadyExists, FailedPrecondition, InvalidArgument
from server.domain.guardrails import GuardrailSpec
from server.domain.guardrails.decisions import Decision, DecisionFilter
from server.domain.notifications.delivery import Notification
from server.domain.pages import decode, encode, page_size
from server.domain.recovery.events import EventFilter, RecoveryEvent, RecoveryEventType
from server.domain.recovery.health import HealthCheckSpec, HealthStatus
from server.domain.recovery.kill import KillFilter, KillResult, Substitute, SubstituteScope
from server.domain.recovery.ladder import HistoryFilter, RecoveryPolicy, RecoveryResult, RecoveryState
from server.services.ports import Page

T = TypeVar("T")
_FOREIGN = "page_token is not a token this server issued"


def _in(t: datetime | None, start: datetime | None, end: datetime | None) -> bool:
    return t is not None and (start is None or t >= start) and (end is None or t < end)


def _newest_first(rows: Sequence[tuple[int, T]], requested: int, token: str) -> Page[T]:
    """Rows (seq, item) matching a filter: newest first, the token is the last seq shown."""
    size = page_size(requested)
    before = decode(token)
    if before is not None and (isinstance(before, bool) or not isinstance(before, int)):
        raise InvalidArgument(_FOREIGN, field="page_token")
    chosen = sorted((r for r in rows if before is None or r[0] < before), key=lambda r: -r[0])
    shown = chosen[:size]
    return Page([copy.deepcopy(item) for _, item in shown], encode(shown[-1][0]) if len(chosen) > size else "")


def _by_time_then_id(
    items: Iterable[T], when: Callable[[T], datetime], ident: Callable[[T], str], requested: int, token: str
) -> Page[T]:
    """Newest first by (time, id); the token is the last (time, id) shown."""
    size = page_size(requested)
    after = decode(token)
    if after is not None and not (isinstance(after, list) and len(after) == 2):
        raise InvalidArgument(_FOREIGN, field="page_token")
    ordered = sorted(items, key=lambda i: (when(i), ident(i)), reverse=True)
    if after:
        cut = (datetime.fromisoformat(after[0]), after[1])
        ordered = [i for i in ordered if (when(i), ident(i)) < cut]
    shown = ordered[:size]
    more = len(ordered) > size
    token_out = encode([when(shown[-1]).isoformat(), ident(shown[-1])]) if more else ""
    return Page([copy.deepcopy(i) for i in shown], token_out)


class Counters:
    """The shared change counters (`counters` table): other processes poll them."""

    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def bump(self, name: str) -> int:
        self.values[name] = self.values.get(name, 0) + 1
        return self.values[name]

    def get(self, name: str) -> int:
        return self.values.get(name, 0)


# ---- supervisor -------------------------------------------------------------------------------------


class MemoryAgents:
    def __init__(self) -> None:
        self.rows: dict[str, Agent] = {}
        # Standings by agent id, kept after the record goes (the `agent_containment` table).
        self.standings: dict[str, Containment] = {}
        self.registered_once: set[str] = set()
        self.containment_changes = 0
        self.record_changes = 0

    def upsert(self, agent: Agent) -> tuple[Agent, bool]:
        stored, created, _ = self.register(agent)
        return stored, created

    def register(self, agent: Agent, release: Containment | None = None) -> tuple[Agent, bool, Containment | None]:
        now = datetime.now(UTC)
        old = self.rows.get(agent.agent_id)
        stored = replace(agent, create_time=old.create_time if old else now, update_time=now)
        self.rows[agent.agent_id] = stored
        self.registered_once.add(agent.agent_id)
        self.record_changes += 1
        lifted = None
        seen = self.standings.get(agent.agent_id)
        if release is not None and seen is not None and seen.standing is Standing.QUARANTINED:
            lifted = seen
            self.set_standing(release)
        return copy.deepcopy(stored), old is None, lifted

    def ever_registered(self, agent_id: str) -> bool:
        return agent_id in self.registered_once

    def contained(self) -> dict[str, Containment]:
        return {a: c for a, c in self.standings.items() if c.standing is not Standing.ACTIVE}

    def set_standing(self, c: Containment) -> Containment | None:
        before = self.standings.get(c.agent_id)
        self.standings[c.agent_id] = c
        self.containment_changes += 1
        return before if before is not None and before.standing is not Standing.ACTIVE else None

    def containment_version(self) -> int:
        return self.containment_changes

    def records_version(self) -> int:
        return self.record_changes

    def delete(self, agent_id: str) -> bool:
        self.record_changes += 1
        return self.rows.pop(agent_id, None) is not None

    def get(self, agent_id: str) -> Agent | None:
        return copy.deepcopy(self.rows.get(agent_id))

    def all(self) -> list[Agent]:
        return [copy.deepcopy(a) for a in self.rows.values()]

    def list(self, group: str, page_size_: int, page_token: str) -> Page[Agent]:
        size = page_size(page_size_)
        after = decode(page_token)
        if after is not None and not isinstance(after, str):
            raise InvalidArgument(_FOREIGN, field="page_token")
        chosen = sorted(
            (a for a in self.rows.values() if (not group or a.group == group) and (not after or a.agent_id > after)),
            key=lambda a: a.agent_id,
        )
        shown = chosen[:size]
        return Page([copy.deepcopy(a) for a in shown], encode(shown[-1].agent_id) if len(chosen) > size else "")


class MemoryGuardrails:
    def __init__(self, counters: Counters) -> None:
        self.counters = counters
        self.specs: list[GuardrailSpec] = []
        self.digest: str | None = None
        self.path = ""

    def load(self) -> tuple[list[GuardrailSpec], str | None]:
        return copy.deepcopy(self.specs), self.digest

    def replace(self, specs: Sequence[GuardrailSpec], policy_digest: str | None, policy_path: str) -> int:
        self.specs = copy.deepcopy(list(specs))
        if policy_digest is not None:
            self.digest, self.path = policy_digest, policy_path
        return self.counters.bump("guardrails")

    def replace_if(self, specs: Sequence[GuardrailSpec], expected_version: int, answer: Any = None) -> int | None:
        if self.counters.get("guardrails") != expected_version:
            return None
        return self.replace(specs, None, self.path)

    def version(self) -> int:
        return self.counters.get("guardrails")


class MemoryDecisions:
    def __init__(self) -> None:
        self.rows: list[tuple[int, Decision]] = []
        self._seq = itertools.count(1)

    def insert_many(self, rows: Sequence[Decision]) -> None:
        self.rows += [(next(self._seq), copy.deepcopy(d)) for d in rows]

    def list(self, flt: DecisionFilter, page_size_: int, page_token: str) -> Page[Decision]:
        def ok(d: Decision) -> bool:
            return (
                (not flt.agent_id or d.agent_id == flt.agent_id)
                and (not flt.action or d.action == flt.action)
                and (not flt.guardrail or d.guardrail == flt.guardrail)
                and (not flt.outcome or d.allowed == (flt.outcome == "allowed"))
                and _in(d.create_time, flt.start_time, flt.end_time)
                and flt.admits_shadow(d)
            )

        return _newest_first([r for r in self.rows if ok(r[1])], page_size_, page_token)

    def by_ids(self, decision_ids: Sequence[str]) -> dict[str, Decision | None]:
        wanted = set(decision_ids)
        return {d.decision_id: copy.deepcopy(d) for _, d in self.rows if d.decision_id in wanted}

    def oldest_time(self) -> datetime | None:
        return min((d.create_time for _, d in self.rows), default=None)

    def scan(
        self, start_time: datetime | None, agent_id: str, after: int, limit: int
    ) -> Sequence[tuple[int, Decision]]:
        rows = [
            (seq, copy.deepcopy(d))
            for seq, d in self.rows
            if seq > after
            and (start_time is None or d.create_time >= start_time)
            and (not agent_id or d.agent_id == agent_id)
        ]
        return rows[:limit]

    def prune(self, older_than: datetime | None, keep_rows: int | None) -> int:
        before = len(self.rows)
        if older_than is not None:
            self.rows = [r for r in self.rows if r[1].create_time >= older_than]
        if keep_rows is not None and self.rows:
            newest = self.rows[-1][0]
            self.rows = [r for r in self.rows if r[0] > newest - keep_rows]
        return before - len(self.rows)


# ---- access -----------------------------------------------------------------------------------------


class MemoryTokens:
    def __init__(self, counters: Counters) -> None:
        self.counters = counters
        self.rows: dict[str, tuple[Token, str]] = {}
        self.certificates: set[str] = set()

    def insert(self, token: Token, secret_hash: str) -> None:
        self.rows[token.token_id] = (copy.deepcopy(token), secret_hash)
        self.counters.bump("tokens")

    def revoke(self, token_id: str, when: datetime) -> Token | None:
        found = self.rows.get(token_id)
        if found is None:
            return None
        token, secret_hash = found
        if token.revoke_time is None:
            self.rows[token_id] = (replace(token, revoke_time=when), secret_hash)
            self.counters.bump("tokens")
        return copy.deepcopy(token)

    def get(self, token_id: str) -> Token | None:
        found = self.rows.get(token_id)
        return copy.deepcopy(found[0]) if found else None

    def active(self) -> dict[str, Token]:
        return {h: copy.deepcopy(t) for t, h in self.rows.values() if t.revoke_time is None}

    def revoke_certificate(self, fingerprint: str, reason: str, actor: str, when: datetime) -> bool:
        if fingerprint in self.certificates:
            return False
        self.certificates.add(fingerprint)
        self.counters.bump("tokens")
        return True

    def revoked_certificates(self) -> set[str]:
        return set(self.certificates)

    def version(self) -> int:
        return self.counters.get("tokens")

    def list(self, subject: str, include_revoked: bool, page_size_: int, page_token: str) -> Page[Token]:
        items = [
            t
            for t, _ in self.rows.values()
            if (not subject or t.subject == subject) and (include_revoked or t.revoke_time is None)
        ]
        return _by_time_then_id(items, lambda t: t.create_time, lambda t: t.token_id, page_size_, page_token)


class MemoryUsers:
    def __init__(self) -> None:
        self.rows: dict[str, tuple[User, str]] = {}

    def insert(self, user: User, password_hash: str) -> None:
        if user.name in self.rows:
            raise AlreadyExists(f"a user named {user.name!r} already exists", field="name")
        self.rows[user.name] = (copy.deepcopy(user), password_hash)

    def get(self, name: str) -> tuple[User, str] | None:
        return copy.deepcopy(self.rows.get(name))

    def list(self) -> list[User]:
        return [copy.deepcopy(u) for _, (u, _) in sorted(self.rows.items())]

    def update(
        self, name: str, *, role: Role | None = None, disabled: bool | None = None, password_hash: str | None = None
    ) -> tuple[User, User] | None:
        found = self.rows.get(name)
        if found is None:
            return None
        before, old_hash = found
        after = replace(
            before,
            role=before.role if role is None else role,
            disabled=before.disabled if disabled is None else disabled,
        )
        self.rows[name] = (after, old_hash if password_hash is None else password_hash)
        return copy.deepcopy(before), copy.deepcopy(after)


class MemorySessions:
    """Console sessions by the hash of their id, as the SQL table keeps them."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[str, datetime]] = {}

    def insert(self, id_hash: str, user: str, create_time: datetime, expire_time: datetime, client: str) -> None:
        self.rows[id_hash] = (user, expire_time)

    def get(self, id_hash: str) -> tuple[str, datetime] | None:
        return self.rows.get(id_hash)

    def delete(self, id_hash: str) -> bool:
        return self.rows.pop(id_hash, None) is not None

    def delete_user(self, user: str) -> int:
        gone = [k for k, (u, _) in self.rows.items() if u == user]
        for k in gone:
            del self.rows[k]
        return len(gone)

    def count_user(self, user: str, now: datetime) -> int:
        return sum(1 for u, expire in self.rows.values() if u == user and expire > now)

    def purge_expired(self, now: datetime) -> int:
        gone = [k for k, (_, expire) in self.rows.items() if expire <= now]
        for k in gone:
            del self.rows[k]
        return len(gone)


class MemorySettings:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get_or_create(self, key: str, make: Callable[[], str]) -> str:
        return self.values.setdefault(key, make())


# ---- approvals ----------------------------------------------------------------------------------------


class MemoryApprovals:
    def __init__(self, counters: Counters, outbox: MemoryNotifications) -> None:
        self.counters = counters
        self.outbox = outbox  # written with the change, as the SQL repository does in one transaction
        self.rows: dict[str, Approval] = {}

    def insert(self, approval: Approval, outbox: Sequence[Notification] = ()) -> bool:
        if approval.approval_id in self.rows:
            raise AlreadyExists(f"approval {approval.approval_id} exists", field="approval_id")
        key = (approval.agent_id, approval.request_id, approval.digest, approval.attempt)
        if approval.request_id and any(
            (a.agent_id, a.request_id, a.digest, a.attempt) == key for a in self.rows.values()
        ):
            return False  # the unique index
        self.rows[approval.approval_id] = copy.deepcopy(approval)
        self.outbox.add(outbox)
        self.counters.bump("approvals")
        return True

    def insert_many(self, items: Sequence[tuple[Approval, Sequence[Notification]]]) -> list[bool]:
        return [self.insert(a, outbox) for a, outbox in items]

    def update(self, approval: Approval, expected_version: int, outbox: Sequence[Notification] = ()) -> bool:
        current = self.rows.get(approval.approval_id)
        if current is None or current.version != expected_version:
            return False
        # As in SQL: the abandonment mark is never written by a whole-row update.
        self.rows[approval.approval_id] = replace(copy.deepcopy(approval), abandoned_at=current.abandoned_at)
        self.outbox.add(outbox)
        self.counters.bump("approvals")
        self.counters.bump("approvals.updates")
        return True

    def mark_consumed(self, approval_id: str, when: Any) -> bool:
        current = self.rows.get(approval_id)
        if current is None or current.consume_time is not None:
            return False
        self.rows[approval_id] = replace(current, consume_time=when)
        return True

    def mark_abandoned(self, approval_ids: Iterable[str], when: datetime) -> int:
        return self._set_abandoned(approval_ids, when, lambda a: a.abandoned_at is None)

    def clear_abandoned(self, approval_ids: Iterable[str]) -> int:
        return self._set_abandoned(approval_ids, None, lambda a: a.abandoned_at is not None)

    def _set_abandoned(self, approval_ids: Iterable[str], when: datetime | None, ok: Callable[[Approval], bool]) -> int:
        changed = 0
        for i in set(approval_ids):
            a = self.rows.get(i)
            if a is not None and a.state is ApprovalState.PENDING and ok(a):
                self.rows[i] = replace(a, abandoned_at=when)
                changed += 1
        return changed

    def abandoned(self, cutoff: datetime) -> list[Approval]:
        return [
            copy.deepcopy(a)
            for a in self.rows.values()
            if a.state is ApprovalState.PENDING and a.abandoned_at is not None and a.abandoned_at <= cutoff
        ]

    def cancel_abandoned(
        self, approval: Approval, expected_version: int, cutoff: datetime, outbox: Sequence[Notification] = ()
    ) -> bool:
        current = self.rows.get(approval.approval_id)
        if (
            current is None
            or current.version != expected_version
            or current.state is not ApprovalState.PENDING
            or current.abandoned_at is None
            or current.abandoned_at > cutoff
        ):
            return False
        return self.update(approval, expected_version, outbox)

    def get(self, approval_id: str) -> Approval | None:
        return copy.deepcopy(self.rows.get(approval_id))

    def get_many(self, approval_ids: Sequence[str]) -> dict[str, Approval]:
        return {i: copy.deepcopy(self.rows[i]) for i in approval_ids if i in self.rows}

    def find_attach(self, agent_id: str, request_id: str, digest: str) -> Approval | None:
        if not request_id:
            return None  # only requests with an id are ever attached to (as in SQL: the partial index)
        found = [
            a
            for a in self.rows.values()
            if a.agent_id == agent_id and a.request_id == request_id and a.digest == digest
        ]
        return copy.deepcopy(max(found, key=lambda a: (a.attempt, a.create_time))) if found else None

    def find_attach_many(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], Approval]:
        found = {key: self.find_attach(*key) for key in keys}
        return {key: a for key, a in found.items() if a is not None}

    def versions(self, approval_ids: Iterable[str]) -> dict[str, int]:
        return {i: self.rows[i].version for i in approval_ids if i in self.rows}

    def count_pending(self, agent_id: str) -> int:
        return sum(1 for a in self.rows.values() if a.state is ApprovalState.PENDING and a.agent_id == agent_id)

    def pending(self, agent_id: str = "") -> list[Approval]:
        found = [
            a
            for a in self.rows.values()
            if a.state is ApprovalState.PENDING and (not agent_id or a.agent_id == agent_id)
        ]
        return [copy.deepcopy(a) for a in sorted(found, key=lambda a: a.create_time)]

    def due(self, now: Any) -> list[Approval]:
        return [
            copy.deepcopy(a)
            for a in self.rows.values()
            if a.state is ApprovalState.PENDING and a.expire_time is not None and a.expire_time <= now
        ]

    def version(self) -> int:
        return self.counters.get("approvals")

    def update_version(self) -> int:
        return self.counters.get("approvals.updates")

    def list(self, flt: ApprovalFilter, page_size_: int, page_token: str) -> Page[Approval]:
        def ok(a: Approval) -> bool:
            return (
                (not flt.agent_id or a.agent_id == flt.agent_id)
                and (not flt.action or a.action == flt.action)
                and (flt.state is None or a.state is flt.state)
                and (not flt.closed_only or a.state is not ApprovalState.PENDING)
                and (not flt.reviewer or flt.reviewer in a.decided_by)
                and _in(a.create_time, flt.start_time, flt.end_time)
            )

        items = [a for a in self.rows.values() if ok(a)]
        return _by_time_then_id(items, lambda a: a.create_time, lambda a: a.approval_id, page_size_, page_token)


# ---- audit --------------------------------------------------------------------------------------------


class MemoryAuditLog:
    """Append-only and hash-chained exactly as the SQL one (the chain rules are the domain's)."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []

    def append(
        self, actor: str, action: str, subject: str, details: dict[str, Any], record_time: datetime
    ) -> AuditRecord:
        return self.append_many([AuditEntry(actor, action, subject, details, record_time)])[0]

    def append_many(
        self, entries: Sequence[AuditEntry], now: Callable[[], datetime] | None = None, key: bytes | None = None
    ) -> list[AuditRecord]:
        last_seq, last_hash = self.head()
        t = now() if now is not None else None
        if t is not None and self.records and self.records[-1].record_time > t:
            t = self.records[-1].record_time
        sealed = seal_chain(copy.deepcopy(list(entries)), last_seq, last_hash, key, t)
        self.records += sealed
        return list(sealed)

    def ensure_keyed(self, key: bytes, now: Callable[[], datetime]) -> AuditRecord | None:
        if self.records and is_keyed(self.records[-1], key):
            return None
        if self.records and not is_legacy(self.records[-1]):
            raise FailedPrecondition("the newest audit record is not sealed with this key", reason="AUDIT_KEY_MISMATCH")
        seq, head = self.head()
        return self.append_many([marker_entry(seq, head, now())], now, key)[0]

    def head(self) -> tuple[int, str]:
        return (self.records[-1].seq, self.records[-1].hash) if self.records else (0, GENESIS_HASH)

    def iter_all(self, batch: int = 1000) -> Iterator[AuditRecord]:
        yield from list(self.records)

    def count(self) -> int:
        return len(self.records)


# ---- recovery -----------------------------------------------------------------------------------------


class MemoryRecovery:
    def __init__(self) -> None:
        self.policies: dict[str, RecoveryPolicy] = {}
        self.states: dict[str, RecoveryState] = {}
        self.history_rows: list[tuple[int, RecoveryResult]] = []
        self.checks: dict[str, HealthCheckSpec] = {}
        self.statuses: dict[str, HealthStatus] = {}  # the latest result of each agent's check
        self.settings: dict[str, dict[str, Any]] = {}
        self._seq = itertools.count(1)

    def load_policies(self) -> list[RecoveryPolicy]:
        return [copy.deepcopy(p) for p in self.policies.values()]

    def save_policy(self, policy: RecoveryPolicy) -> None:
        self.policies[policy.group] = copy.deepcopy(policy)

    def apply_file_policies(self, policies: Sequence[RecoveryPolicy]) -> None:
        self.policies = {g: p for g, p in self.policies.items() if p.source != "policy"}
        for p in policies:
            self.save_policy(p)

    def load_states(self) -> dict[str, RecoveryState]:
        return copy.deepcopy(self.states)

    def get_state(self, agent_id: str) -> RecoveryState | None:
        return copy.deepcopy(self.states.get(agent_id))

    def record_attempt(self, result: RecoveryResult, state: RecoveryState) -> RecoveryState:
        self.history_rows.append((next(self._seq), copy.deepcopy(result)))
        before = self.states.get(result.agent_id, RecoveryState())
        count = 0 if state.retry_count == 0 else before.retry_count + 1
        self.states[result.agent_id] = RecoveryState(count, state.last_attempt_time, copy.deepcopy(state.last_recovery))
        return copy.deepcopy(self.states[result.agent_id])

    def save_state(self, agent_id: str, state: RecoveryState, answer: Any = None) -> None:
        self.states[agent_id] = copy.deepcopy(state)

    def delete_state(self, agent_id: str) -> None:
        self.states.pop(agent_id, None)

    def find_attempt(self, request_id: str) -> RecoveryResult | None:
        return next((copy.deepcopy(r) for _, r in self.history_rows if r.request_id == request_id), None)

    def history(self, flt: HistoryFilter, page_size_: int, page_token: str) -> Page[RecoveryResult]:
        def ok(r: RecoveryResult) -> bool:
            return (
                (not flt.agent_id or r.agent_id == flt.agent_id)
                and (not flt.group or r.group == flt.group)
                and (flt.action is None or r.action_taken is flt.action)
                and (flt.trigger is None or r.trigger is flt.trigger)
                and _in(r.attempt_time, flt.start_time, flt.end_time)
            )

        return _newest_first([row for row in self.history_rows if ok(row[1])], page_size_, page_token)

    def load_checks(self) -> dict[str, HealthCheckSpec]:
        return copy.deepcopy(self.checks)

    def save_check(self, agent_id: str, spec: HealthCheckSpec, now: datetime) -> bool:
        replaced = agent_id in self.checks
        self.checks[agent_id] = copy.deepcopy(spec)
        self.statuses.pop(agent_id, None)
        return replaced

    def delete_check(self, agent_id: str) -> bool:
        self.statuses.pop(agent_id, None)
        return self.checks.pop(agent_id, None) is not None

    def save_status(self, status: HealthStatus) -> bool:
        if status.agent_id not in self.checks:
            return False
        self.statuses[status.agent_id] = status
        return True

    def load_statuses(self, agent_id: str = "") -> dict[str, HealthStatus]:
        return {a: st for a, st in self.statuses.items() if not agent_id or a == agent_id}

    def get_setting(self, key: str) -> dict[str, Any] | None:
        return copy.deepcopy(self.settings.get(key))

    def put_setting(self, key: str, value: dict[str, Any], now: datetime, answer: Any = None) -> None:
        self.settings[key] = copy.deepcopy(dict(value))


class MemoryRecoveryEvents:
    def __init__(self) -> None:
        self.events: list[RecoveryEvent] = []
        self._seq = 0

    def append(self, event_type: RecoveryEventType, agent_id: str, event_time: datetime, payload: Any) -> RecoveryEvent:
        self._seq += 1
        event = RecoveryEvent(self._seq, event_type, agent_id, event_time, copy.deepcopy(payload))
        self.events.append(event)
        return event

    def latest_sequence(self) -> int:
        return self.events[-1].sequence if self.events else 0

    def after(self, cursor: int, upto: int, flt: EventFilter, limit: int) -> list[RecoveryEvent]:
        return [e for e in self.events if cursor < e.sequence <= upto and flt.matches(e)][:limit]

    def list(self, flt: EventFilter, page_size_: int, page_token: str) -> Page[RecoveryEvent]:
        return _newest_first([(e.sequence, e) for e in self.events if flt.matches(e)], page_size_, page_token)

    def prune(self, keep_rows: int) -> int:
        newest = self.latest_sequence()
        if newest <= keep_rows:
            return 0
        cut = newest - keep_rows
        return cut if self.prune_through(cut) else 0

    def prune_through(self, cut: int) -> int:
        before = len(self.events)
        self.events = [e for e in self.events if e.sequence > cut]
        return before - len(self.events)


class MemoryKills:
    def __init__(self, agents: MemoryAgents | None = None) -> None:
        self.rows: list[tuple[int, KillResult]] = []
        self.substitutes: list[Substitute] = []
        self._seq = itertools.count(1)
        self.agents = agents  # where a kill terminates the agent id, as the SQL insert does

    def insert(self, kill: KillResult) -> bool:
        if any(k.kill_id == kill.kill_id for _, k in self.rows):
            return False
        self.rows.append((next(self._seq), copy.deepcopy(kill)))
        if self.agents is not None:
            self.agents.set_standing(
                Containment(kill.agent_id, Standing.TERMINATED, kill.kill_id, kill.request_details, kill.requested_by)
            )
        return True

    def update(self, kill: KillResult) -> bool:
        for i, (seq, k) in enumerate(self.rows):
            if k.kill_id == kill.kill_id:
                if k.complete_time is not None:
                    return False
                self.rows[i] = (seq, copy.deepcopy(kill))
                return True
        raise KeyError(kill.kill_id)

    def get(self, kill_id: str) -> KillResult | None:
        return next((copy.deepcopy(k) for _, k in self.rows if k.kill_id == kill_id), None)

    def find_by_request(self, request_id: str) -> KillResult | None:
        return next((copy.deepcopy(k) for _, k in self.rows if k.request_id == request_id), None)

    def taken_over(self, kill_ids: Sequence[str]) -> list[str]:
        return []  # one process alone on its storage: nobody takes its kills over

    def claim_orphaned(self, gone_before: datetime) -> list[KillResult]:
        return self.incomplete()  # one process alone on its storage: every running kill is its own

    def incomplete(self) -> list[KillResult]:
        return [copy.deepcopy(k) for _, k in self.rows if k.complete_time is None]

    def load_substitutes(self) -> list[Substitute]:
        return [replace(s, position=0) for s in self.substitutes]

    def add_substitute(self, sub: Substitute) -> bool:
        if any((s.scope, s.scope_id, s.agent_id) == (sub.scope, sub.scope_id, sub.agent_id) for s in self.substitutes):
            return False
        self.substitutes.append(copy.deepcopy(sub))
        return True

    def remove_substitute(self, scope: SubstituteScope, scope_id: str, agent_id: str) -> bool:
        before = len(self.substitutes)
        self.substitutes = [
            s for s in self.substitutes if (s.scope, s.scope_id, s.agent_id) != (scope, scope_id, agent_id)
        ]
        return len(self.substitutes) < before

    def remove_agent_substitutes(self, agent_id: str) -> int:
        before = len(self.substitutes)
        self.substitutes = [s for s in self.substitutes if s.agent_id != agent_id]
        return before - len(self.substitutes)

    def list(self, flt: KillFilter, page_size_: int, page_token: str) -> Page[KillResult]:
        def ok(k: KillResult) -> bool:
            return (
                (not flt.agent_id or k.agent_id == flt.agent_id)
                and (not flt.session_id or k.session_id == flt.session_id)
                and (flt.reason is None or k.reason is flt.reason)
                and _in(k.kill_time, flt.start_time, flt.end_time)
            )

        return _newest_first([row for row in self.rows if ok(row[1])], page_size_, page_token)


@dataclass
class MemoryStore:
    """Every in-memory repository of one "database": build services on it twice to simulate a restart."""

    counters: Counters = field(default_factory=Counters)
    agents: MemoryAgents = field(default_factory=MemoryAgents)
    decisions: MemoryDecisions = field(default_factory=MemoryDecisions)
    users: MemoryUsers = field(default_factory=MemoryUsers)
    settings: MemorySettings = field(default_factory=MemorySettings)
    sessions: MemorySessions = field(default_factory=MemorySessions)
    audit: MemoryAuditLog = field(default_factory=MemoryAuditLog)
    recovery: MemoryRecovery = field(default_factory=MemoryRecovery)
    recovery_events: MemoryRecoveryEvents = field(default_factory=MemoryRecoveryEvents)
    kills: MemoryKills = field(init=False)
    safeguards: MemorySafeguards = field(default_factory=MemorySafeguards)
    notifications: MemoryNotifications = field(default_factory=MemoryNotifications)
    slack_messages: MemorySlackMessages = field(default_factory=MemorySlackMessages)
    budgets: MemoryBudgetLedger = field(default_factory=MemoryBudgetLedger)
    sidecars: MemorySidecars = field(default_factory=MemorySidecars)
    fleet_policy: MemoryFleetPolicy = field(default_factory=MemoryFleetPolicy)
    guardrails: MemoryGuardrails = field(init=False)
    tokens: MemoryTokens = field(init=False)
    approvals: MemoryApprovals = field(init=False)
    rate_windows: MemoryRateWindows = field(default_factory=MemoryRateWindows)

    def __post_init__(self) -> None:
        self.guardrails = MemoryGuardrails(self.counters)
        self.tokens = MemoryTokens(self.counters)
        self.approvals = MemoryApprovals(self.counters, self.notifications)
        self.kills = MemoryKills(self.agents)

    def repositories(self, *, fleet: bool = False) -> Repositories:
        """`fleet`: behave like PostgreSQL shared by several sidecars (rate_limit windows counted fleet-wide,
        `scope: fleet` by default); otherwise like SQLite, where the one sidecar counts alone."""
        return Repositories(
            agents=self.agents,
            guardrails=self.guardrails,
            decisions=self.decisions,
            tokens=self.tokens,
            users=self.users,
            settings=self.settings,
            sessions=self.sessions,
            approvals=self.approvals,
            audit=self.audit,
            recovery=self.recovery,
            recovery_events=self.recovery_events,
            kills=self.kills,
            breakers=self.safeguards,
            budgets=self.budgets,
            episodes=self.safeguards,
            leases=self.safeguards,
            notifications=self.notifications,
            slack_messages=self.slack_messages,
            sidecars=self.sidecars,
            changes=SilentChangeFeed(),
            fleet_policy=self.fleet_policy,
            job_claims=MemoryJobClaims(),
            rate_windows=self.rate_windows if fleet else None,
        )


def memory_repositories() -> Repositories:
    return MemoryStore().repositories()
