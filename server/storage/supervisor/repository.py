"""SQL implementations of the service ports (agents, guardrail chain, decision log)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete, func, insert, select
from sqlmodel import Session, col

from server.domain import pages as pagination
from server.domain.agents import Agent, Containment, Standing
from server.domain.errors import InvalidArgument
from server.domain.guardrails import GuardrailSpec, Severity
from server.domain.guardrails.decisions import Decision, DecisionFilter
from server.services.fleet.ports import AGENTS_TOPIC, GUARDRAILS_TOPIC
from server.services.ports import Page
from server.storage.columns import utc as utc  # where the other repositories import it from
from server.storage.fleet.changes import ChangeLog
from server.storage.idempotency import remember_in_transaction
from server.storage.rows import bump_counter, lock_counter, lock_row
from server.storage.supervisor.tables import AgentRow, ContainmentRow, DecisionRow, GuardrailRow, PolicyStateRow
from server.storage.tables import CounterRow

_CHAIN_CALLS = ("AddGuardrail", "RemoveGuardrail", "AddApprovalPattern", "RemoveApprovalPattern")
_CHAIN_COUNTER = "guardrails"
CONTAINMENT_COUNTER = "containment"
# Decision log retention deletes at most this many rows per transaction, with a pause between two.
PRUNE_BATCH = 5_000
PRUNE_PAUSE = 0.05  # seconds
RECORDS_COUNTER = "agents"  # agent records (group, labels, capabilities): the CLI's changes reach sidecars


def _agent(row: AgentRow) -> Agent:
    return Agent(
        agent_id=row.agent_id,
        group=row.group_name,
        capabilities=tuple(row.capabilities),
        labels=dict(row.labels),
        create_time=utc(row.create_time),
        update_time=utc(row.update_time),
    )


def _containment(row: ContainmentRow) -> Containment:
    return Containment(row.agent_id, Standing(row.standing), row.kill_id, row.detail, row.actor, utc(row.update_time))


def _lock_containment(s: Session, agent_id: str, when: datetime) -> tuple[ContainmentRow, bool]:
    return lock_row(s, ContainmentRow, agent_id, agent_id=agent_id, standing=Standing.ACTIVE.value, update_time=when)


def put_standing(s: Session, c: Containment, changes: ChangeLog | None = None) -> None:
    """Set an agent id's standing inside the caller's transaction (the kill record's, for a kill); other
    sidecars hear of it through `changes` (and, as the fallback, the containment counter they poll)."""
    when = c.update_time or datetime.now(UTC)
    row, _ = _lock_containment(s, c.agent_id, when)
    row.standing, row.kill_id, row.detail, row.actor = c.standing.value, c.kill_id, c.detail[:1024], c.actor[:160]
    row.update_time = when
    s.add(row)
    bump_counter(s, CONTAINMENT_COUNTER)
    if changes is not None:
        changes.bump(s.connection(), AGENTS_TOPIC, c.agent_id)


class SqlAgentRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes  # tells the other sidecars which agent's record or standing changed

    def _announce(self, s: Session, agent_id: str) -> None:
        if self.changes is not None:
            self.changes.bump(s.connection(), AGENTS_TOPIC, agent_id)

    def upsert(self, agent: Agent) -> tuple[Agent, bool]:
        stored, created, _ = self.register(agent)
        return stored, created

    def register(self, agent: Agent, release: Containment | None = None) -> tuple[Agent, bool, Containment | None]:
        """Create or change the record; `release` (an ACTIVE standing): lift a QUARANTINED standing of the id
        in the same transaction (returned, None when there was none). A RegisterAgent call being served writes
        its idempotency record here too: a retry gets the first answer and changes nothing."""
        now = datetime.now(UTC)
        with Session(self.engine) as s, s.begin():
            # Created (or found) and locked first: two sidecars registering one id at once both succeed,
            # and exactly one of them reports it as created.
            row, created = lock_row(
                s,
                AgentRow,
                agent.agent_id,
                agent_id=agent.agent_id,
                group_name=agent.group,
                capabilities=[],
                labels={},
                create_time=now,
                update_time=now,
            )
            if created:
                seen, _ = _lock_containment(s, agent.agent_id, now)
                if seen.first_register_time is None:
                    seen.first_register_time = now
                    s.add(seen)
            row.group_name = agent.group
            row.capabilities = list(agent.capabilities)
            row.labels = dict(agent.labels)
            row.update_time = now
            s.add(row)
            s.flush()
            self._announce(s, agent.agent_id)
            bump_counter(s, RECORDS_COUNTER)
            lifted = None
            if release is not None:
                standing = s.get(ContainmentRow, agent.agent_id, with_for_update=True, populate_existing=True)
                if standing is not None and standing.standing == Standing.QUARANTINED.value:
                    lifted = _containment(standing)
                    put_standing(s, release, self.changes)
            stored = _agent(row)
            remember_in_transaction(s.connection(), (stored, created), "RegisterAgent")
            return stored, created, lifted

    def delete(self, agent_id: str) -> bool:
        with Session(self.engine) as s, s.begin():
            result = s.execute(delete(AgentRow).where(col(AgentRow.agent_id) == agent_id))
            if result.rowcount:  # type: ignore[attr-defined]
                self._announce(s, agent_id)
                bump_counter(s, RECORDS_COUNTER)
                # A retried DeregisterAgent gets this answer (not NOT_FOUND), and never removes a record
                # registered again since.
                remember_in_transaction(s.connection(), None, "DeregisterAgent")
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def get(self, agent_id: str) -> Agent | None:
        with Session(self.engine) as s:
            row = s.get(AgentRow, agent_id)
            return _agent(row) if row else None

    def all(self) -> list[Agent]:
        with Session(self.engine) as s:
            return [_agent(r) for r in s.execute(select(AgentRow)).scalars()]

    def ever_registered(self, agent_id: str) -> bool:
        with Session(self.engine) as s:
            row = s.get(ContainmentRow, agent_id)
            return row is not None and row.first_register_time is not None

    def contained(self) -> dict[str, Containment]:
        """Every agent id that is not ACTIVE (terminated or quarantined)."""
        stmt = select(ContainmentRow).where(col(ContainmentRow.standing) != Standing.ACTIVE.value)
        with Session(self.engine) as s:
            return {r.agent_id: _containment(r) for r in s.execute(stmt).scalars()}

    def set_standing(self, c: Containment) -> Containment | None:
        """Store a standing; returns the one it replaces (None when the id had none or was ACTIVE)."""
        with Session(self.engine) as s, s.begin():
            row, _ = _lock_containment(s, c.agent_id, c.update_time or datetime.now(UTC))
            before = _containment(row) if row.standing != Standing.ACTIVE.value else None
            put_standing(s, c, self.changes)
            if before is not None and c.standing is Standing.ACTIVE:
                # A retried ReinstateAgent gets this answer (the standing it lifted), never lifts a new one.
                remember_in_transaction(s.connection(), before, "ReinstateAgent")
            return before

    def containment_version(self) -> int:
        with Session(self.engine) as s:
            row = s.get(CounterRow, CONTAINMENT_COUNTER)
            return row.value if row else 0

    def records_version(self) -> int:
        with Session(self.engine) as s:
            row = s.get(CounterRow, RECORDS_COUNTER)
            return row.value if row else 0

    def list(self, group: str, page_size: int, page_token: str) -> Page[Agent]:
        size = pagination.page_size(page_size)
        after = pagination.decode(page_token)
        if after is not None and not isinstance(after, str):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        stmt = select(AgentRow).order_by(AgentRow.agent_id).limit(size + 1)
        if group:
            stmt = stmt.where(col(AgentRow.group_name) == group)
        if after:
            stmt = stmt.where(col(AgentRow.agent_id) > after)
        with Session(self.engine) as s:
            rows = list(s.execute(stmt).scalars())
        more = len(rows) > size
        rows = rows[:size]
        return Page([_agent(r) for r in rows], pagination.encode(rows[-1].agent_id) if more else "")


class SqlGuardrailRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes  # other sidecars reload the chain on the `guardrails` topic

    def load(self) -> tuple[list[GuardrailSpec], str | None]:
        with Session(self.engine) as s:
            rows = s.execute(select(GuardrailRow).order_by(col(GuardrailRow.position))).scalars()
            specs = [GuardrailSpec(r.name, r.kind, dict(r.options), r.source) for r in rows]
            state = s.get(PolicyStateRow, "policy")
            return specs, state.digest if state else None

    def replace(self, specs: Sequence[GuardrailSpec], policy_digest: str | None, policy_path: str) -> int:
        # One transaction: a reader never sees half a chain, and a crash leaves the old one. The counter
        # row is locked first, so a concurrent compare-and-set waits and then sees this version.
        with Session(self.engine) as s, s.begin():
            lock_counter(s, _CHAIN_COUNTER)
            return self._write(s, specs, policy_digest, policy_path)

    def replace_if(self, specs: Sequence[GuardrailSpec], expected_version: int, answer: Any = None) -> int | None:
        """`answer`: what the guardrail call being served answers for this change; its idempotency record
        is written with the chain (a retried AddGuardrail never adds the guardrail twice)."""
        with Session(self.engine) as s, s.begin():
            # Locked (and created at 0 if this is the fleet's first change) until commit: one writer. A
            # FOR UPDATE of a missing row would lock nothing and let two "first" changes both win.
            if lock_counter(s, _CHAIN_COUNTER) != expected_version:
                return None
            version = self._write(s, specs, None, "")
            if answer is not None:
                remember_in_transaction(s.connection(), answer, *_CHAIN_CALLS)
            return version

    def _write(self, s: Session, specs: Sequence[GuardrailSpec], policy_digest: str | None, policy_path: str) -> int:
        s.execute(delete(GuardrailRow))
        for i, spec in enumerate(specs):
            s.add(
                GuardrailRow(position=i, name=spec.name, kind=spec.kind, options=dict(spec.options), source=spec.source)
            )
        if policy_digest is not None:
            state = s.get(PolicyStateRow, "policy") or PolicyStateRow(
                key="policy", digest="", path="", apply_time=datetime.now(UTC)
            )
            state.digest, state.path, state.apply_time = policy_digest, policy_path, datetime.now(UTC)
            s.add(state)
        version = bump_counter(s, _CHAIN_COUNTER)
        if self.changes is not None:
            self.changes.bump(s.connection(), GUARDRAILS_TOPIC, str(version))
        return version

    def version(self) -> int:
        """Bumped by every stored change of the chain, by any process sharing the database."""
        with Session(self.engine) as s:
            row = s.get(CounterRow, _CHAIN_COUNTER)
            return row.value if row else 0


def _decision(row: DecisionRow) -> Decision:
    return Decision(
        decision_id=row.decision_id,
        agent_id=row.agent_id,
        action=row.action,
        context_digest=row.context_digest,
        allowed=row.allowed,
        reason=row.reason,
        severity=Severity(row.severity),
        guardrail=row.guardrail,
        warnings=tuple((w[0], w[1]) for w in row.warnings),
        latency_us=row.latency_us,
        create_time=utc(row.create_time),
        request_id=row.request_id,
        trace_id=row.trace_id,
        shadow_guardrail=row.shadow_guardrail,
        shadow_reason=row.shadow_reason,
        shadow_needs_approval=row.shadow_needs_approval,
        context=row.context,
        context_truncated=row.context_truncated,
    )


class SqlDecisionRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def insert_many(self, rows: Sequence[Decision]) -> None:
        # Core executemany: one statement for the batch, no ORM identity-map work per row.
        with Session(self.engine) as s, s.begin():
            s.execute(
                insert(DecisionRow.__table__),  # type: ignore[attr-defined]
                [d.plain() for d in rows],
            )

    def list(self, flt: DecisionFilter, page_size: int, page_token: str) -> Page[Decision]:
        size = pagination.page_size(page_size)
        before = pagination.decode(page_token)
        if before is not None and not isinstance(before, int):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        c = DecisionRow
        stmt = select(c).order_by(col(c.seq).desc()).limit(size + 1)
        if before is not None:
            stmt = stmt.where(col(c.seq) < before)
        if flt.agent_id:
            stmt = stmt.where(col(c.agent_id) == flt.agent_id)
        if flt.action:
            stmt = stmt.where(col(c.action) == flt.action)
        if flt.guardrail:
            stmt = stmt.where(col(c.guardrail) == flt.guardrail)
        if flt.outcome:
            stmt = stmt.where(col(c.allowed) == (flt.outcome == "allowed"))
        if flt.start_time:
            stmt = stmt.where(col(c.create_time) >= flt.start_time)
        if flt.end_time:
            stmt = stmt.where(col(c.create_time) < flt.end_time)
        if flt.shadow_guardrail:
            stmt = stmt.where(col(c.shadow_guardrail) == flt.shadow_guardrail)
        if flt.shadow_outcome == "none":
            stmt = stmt.where(col(c.shadow_guardrail) == "")
        elif flt.shadow_outcome in ("blocked", "would_ask"):
            stmt = stmt.where(col(c.shadow_guardrail) != "")
            if flt.shadow_outcome == "would_ask":
                stmt = stmt.where(col(c.shadow_needs_approval).is_(True))
        with Session(self.engine) as s:
            rows = list(s.execute(stmt).scalars())
        more = len(rows) > size
        rows = rows[:size]
        return Page([_decision(r) for r in rows], pagination.encode(rows[-1].seq) if more else "")

    def by_ids(self, decision_ids: Sequence[str]) -> dict[str, Decision | None]:
        """The rows of these decisions that exist, by id (audit verification); None for a row that
        cannot be read back as a decision (edited by hand into something the sidecar never writes)."""
        out: dict[str, Decision | None] = {}
        with Session(self.engine) as s:
            for start in range(0, len(decision_ids), 500):
                chunk = list(decision_ids[start : start + 500])
                for row in s.execute(select(DecisionRow).where(col(DecisionRow.decision_id).in_(chunk))).scalars():
                    try:
                        out[row.decision_id] = _decision(row)
                    except (ValueError, TypeError, IndexError, KeyError):
                        out[row.decision_id] = None
        return out

    def oldest_time(self) -> datetime | None:
        with Session(self.engine) as s:
            value = s.execute(select(func.min(DecisionRow.create_time))).scalar()
        return utc(value) if value is not None else None

    def scan(
        self, start_time: datetime | None, agent_id: str, after: int, limit: int
    ) -> Sequence[tuple[int, Decision]]:
        c = DecisionRow
        stmt = select(c).where(col(c.seq) > after).order_by(col(c.seq)).limit(limit)
        if start_time is not None:
            stmt = stmt.where(col(c.create_time) >= start_time)
        if agent_id:
            stmt = stmt.where(col(c.agent_id) == agent_id)
        with Session(self.engine) as s:
            return [(r.seq or 0, _decision(r)) for r in s.execute(stmt).scalars()]

    def prune(self, older_than: datetime | None, keep_rows: int | None) -> int:
        """Delete the decisions older than `older_than` and all but the newest `keep_rows`, PRUNE_BATCH rows per
        transaction: a full log prunes a minute of decisions at a time, and one transaction for all of them held
        the database's write lock for seconds while the decision log's writer waited (on SQLite, the only
        writer) and its queue grew."""
        removed = 0
        c = DecisionRow
        if older_than is not None:
            # Oldest first, as one transaction did: an interrupted prune leaves no hole in what is kept (the
            # audit verifier reads a missing decision newer than a kept one as tampering).
            old = select(col(c.seq)).where(col(c.create_time) < older_than).order_by(col(c.seq)).limit(PRUNE_BATCH)
            removed += self._delete_batches(delete(c).where(col(c.seq).in_(old.scalar_subquery())))
        if keep_rows is not None:
            with Session(self.engine) as s:
                newest = s.execute(select(func.max(c.seq))).scalar()
            if newest is not None:
                beyond = (
                    select(col(c.seq)).where(col(c.seq) <= newest - keep_rows).order_by(col(c.seq)).limit(PRUNE_BATCH)
                )
                removed += self._delete_batches(delete(c).where(col(c.seq).in_(beyond.scalar_subquery())))
        return removed

    def _delete_batches(self, statement: Any) -> int:
        removed = 0
        while True:
            with Session(self.engine) as s, s.begin():
                batch = int(s.execute(statement).rowcount)  # type: ignore[attr-defined]
            removed += batch
            if batch < PRUNE_BATCH:
                return removed
            time.sleep(PRUNE_PAUSE)  # the writer's turn
