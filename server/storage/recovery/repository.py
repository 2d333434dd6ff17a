"""SQL implementations of the recovery ports: policies, agent state, history, checks, events, kills."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.domain import pages as pagination
from server.domain.agents import Containment, Standing
from server.domain.errors import FailedPrecondition, InvalidArgument
from server.domain.notifications.delivery import Notification
from server.domain.recovery.codec import from_json, to_json
from server.domain.recovery.events import (
    EventFilter,
    RecoveryEvent,
    RecoveryEventType,
    decode_payload,
    encode_payload,
)
from server.domain.recovery.health import CheckKind, HealthCheckSpec, HealthStatus
from server.domain.recovery.kill import KillFilter, KillResult, Substitute, SubstituteScope
from server.domain.recovery.ladder import (
    HistoryFilter,
    RecoveryAction,
    RecoveryPolicy,
    RecoveryResult,
    RecoveryState,
)
from server.services.fleet.ports import (
    CHECKS_TOPIC,
    EVENTS_TOPIC,
    HEALTH_TOPIC,
    POLICIES_TOPIC,
    SETTINGS_TOPIC,
    STATES_TOPIC,
    SUBSTITUTES_TOPIC,
)
from server.services.ports import Page
from server.storage.fleet.changes import ChangeLog
from server.storage.fleet.tables import SidecarRow
from server.storage.idempotency import remember_in_transaction
from server.storage.notifications.repository import add_to_outbox
from server.storage.recovery.tables import (
    HealthCheckRow,
    KillRow,
    RecoveryAgentStateRow,
    RecoveryEventRow,
    RecoveryHistoryRow,
    RecoveryPolicyRow,
    RecoverySettingRow,
    SubstituteRow,
)
from server.storage.rows import lock_row
from server.storage.supervisor.repository import put_standing, utc

EventNotices = Callable[[RecoveryEvent], Sequence[Notification]]
KillNotices = Callable[[KillResult], Sequence[Notification]]

_SETTING_CALLS = ("SetCascadePolicy", "StartMonitoring", "StopMonitoring")


def _int_token(token: str) -> int | None:
    value = pagination.decode(token)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise InvalidArgument("page_token is not a token this server issued", field="page_token")
    return value


def _policy(row: RecoveryPolicyRow) -> RecoveryPolicy:
    return RecoveryPolicy(
        group=row.group_name,
        max_retries=row.max_retries,
        escalate_after=row.escalate_after,
        cooldown=row.cooldown,
        default_action=RecoveryAction[row.default_action],
        source=row.source,
        update_time=utc(row.update_time),
    )


def _result(data: dict[str, Any]) -> RecoveryResult:
    result = from_json(RecoveryResult, data)
    assert isinstance(result, RecoveryResult)
    return result


def _state(r: Any) -> RecoveryState:
    return RecoveryState(
        r.retry_count,
        utc(r.last_attempt_time) if r.last_attempt_time else None,
        _result(r.last_recovery) if r.last_recovery else None,
    )


class SqlRecoveryRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes  # policies, retry counts and checks other sidecars cache

    def _announce(self, s: Session, topic: str, key: str) -> None:
        if self.changes is not None:
            self.changes.bump(s.connection(), topic, key)

    # ---- policies ---------------------------------------------------------------------------

    def load_policies(self) -> list[RecoveryPolicy]:
        with Session(self.engine) as s:
            return [_policy(r) for r in s.execute(select(RecoveryPolicyRow)).scalars()]

    def save_policy(self, policy: RecoveryPolicy) -> None:
        with Session(self.engine) as s, s.begin():
            self._put_policy(s, policy)
            self._announce(s, POLICIES_TOPIC, policy.group)
            remember_in_transaction(s.connection(), policy, "SetRecoveryPolicy")  # a retry gets this policy

    def _put_policy(self, s: Session, p: RecoveryPolicy) -> None:
        row, _ = lock_row(  # two sidecars setting one group's first policy at once: the later one wins
            s,
            RecoveryPolicyRow,
            p.group,
            group_name=p.group,
            max_retries=0,
            escalate_after=0,
            cooldown=0.0,
            default_action="",
            source="",
            update_time=datetime.now(UTC),
        )
        row.max_retries, row.escalate_after, row.cooldown = p.max_retries, p.escalate_after, p.cooldown
        row.default_action, row.source = p.default_action.name, p.source
        row.update_time = p.update_time or datetime.now(UTC)
        s.add(row)

    def apply_file_policies(self, policies: Sequence[RecoveryPolicy]) -> None:
        with Session(self.engine) as s, s.begin():
            s.execute(delete(RecoveryPolicyRow).where(col(RecoveryPolicyRow.source) == "policy"))
            for p in policies:
                self._put_policy(s, p)
            self._announce(s, POLICIES_TOPIC, "*")

    # ---- agent state and history --------------------------------------------------------------

    def load_states(self) -> dict[str, RecoveryState]:
        with Session(self.engine) as s:
            return {r.agent_id: _state(r) for r in s.execute(select(RecoveryAgentStateRow)).scalars()}

    def get_state(self, agent_id: str) -> RecoveryState | None:
        with Session(self.engine) as s:
            row = s.get(RecoveryAgentStateRow, agent_id)
            return _state(row) if row else None

    def _put_state(self, s: Session, agent_id: str, state: RecoveryState) -> None:
        row, _ = lock_row(s, RecoveryAgentStateRow, agent_id, agent_id=agent_id, retry_count=0)
        row.retry_count = state.retry_count
        row.last_attempt_time = state.last_attempt_time
        row.last_recovery = to_json(state.last_recovery) if state.last_recovery else None
        s.add(row)

    def save_state(self, agent_id: str, state: RecoveryState, answer: Any = None) -> None:
        """`answer`: what the ResetRetryCounter being served answers (the count before); its idempotency
        record is written with the state, so a retry never resets a count that has grown again since."""
        with Session(self.engine) as s, s.begin():
            self._put_state(s, agent_id, state)
            self._announce(s, STATES_TOPIC, agent_id)
            if answer is not None:
                remember_in_transaction(s.connection(), answer, "ResetRetryCounter")

    def delete_state(self, agent_id: str) -> None:
        with Session(self.engine) as s, s.begin():
            s.execute(delete(RecoveryAgentStateRow).where(col(RecoveryAgentStateRow.agent_id) == agent_id))
            self._announce(s, STATES_TOPIC, agent_id)

    def record_attempt(self, result: RecoveryResult, state: RecoveryState) -> RecoveryState:
        """The history entry and the agent's new state, in one transaction. The retry count changes
        atomically on the stored row (`+ 1`, or back to 0 after EJECT/REPLACE, as `state` says), so
        attempts on several sidecars are all counted; returns the state as stored."""
        assert result.action_taken is not None and result.attempt_time is not None
        with Session(self.engine) as s, s.begin():
            # The first attempt inserts the row, or loses the race and locks the winner's.
            row, _ = lock_row(s, RecoveryAgentStateRow, result.agent_id, agent_id=result.agent_id, retry_count=0)
            row.retry_count = 0 if state.retry_count == 0 else row.retry_count + 1
            row.last_attempt_time = state.last_attempt_time
            row.last_recovery = to_json(state.last_recovery) if state.last_recovery else None
            s.add(row)
            s.add(
                RecoveryHistoryRow(
                    recovery_id=result.recovery_id,
                    agent_id=result.agent_id,
                    group_name=result.group,
                    action=result.action_taken.name,
                    trigger=result.trigger.name,
                    attempt_time=result.attempt_time,
                    request_id=result.request_id,
                    record=to_json(result),
                )
            )
            s.flush()
            stored = _state(row)
            self._announce(s, STATES_TOPIC, result.agent_id)
        return stored

    def find_attempt(self, request_id: str) -> RecoveryResult | None:
        with Session(self.engine) as s:
            row = s.execute(
                select(RecoveryHistoryRow).where(col(RecoveryHistoryRow.request_id) == request_id).limit(1)
            ).scalar()
            return _result(row.record) if row else None

    def history(self, flt: HistoryFilter, page_size: int, page_token: str) -> Page[RecoveryResult]:
        size = pagination.page_size(page_size)
        before = _int_token(page_token)
        c = RecoveryHistoryRow
        stmt = select(c).order_by(col(c.seq).desc()).limit(size + 1)
        if before is not None:
            stmt = stmt.where(col(c.seq) < before)
        if flt.agent_id:
            stmt = stmt.where(col(c.agent_id) == flt.agent_id)
        if flt.group:
            stmt = stmt.where(col(c.group_name) == flt.group)
        if flt.action is not None:
            stmt = stmt.where(col(c.action) == flt.action.name)
        if flt.trigger is not None:
            stmt = stmt.where(col(c.trigger) == flt.trigger.name)
        if flt.start_time:
            stmt = stmt.where(col(c.attempt_time) >= flt.start_time)
        if flt.end_time:
            stmt = stmt.where(col(c.attempt_time) < flt.end_time)
        with Session(self.engine) as s:
            rows = list(s.execute(stmt).scalars())
        more = len(rows) > size
        rows = rows[:size]
        return Page([_result(r.record) for r in rows], pagination.encode(rows[-1].seq) if more else "")

    # ---- health checks ------------------------------------------------------------------------

    def load_checks(self) -> dict[str, HealthCheckSpec]:
        with Session(self.engine) as s:
            out = {}
            for r in s.execute(select(HealthCheckRow)).scalars():
                spec = from_json(HealthCheckSpec, r.spec)
                assert isinstance(spec, HealthCheckSpec) and isinstance(spec.kind, CheckKind)
                out[r.agent_id] = spec
            return out

    def save_check(self, agent_id: str, spec: HealthCheckSpec, now: datetime) -> bool:
        """True when it replaced a stored check. A retried AddHealthCheck gets this call's answer."""
        with Session(self.engine) as s, s.begin():
            row, created = lock_row(s, HealthCheckRow, agent_id, agent_id=agent_id, spec={}, update_time=now)
            row.spec, row.update_time, row.last_status = to_json(spec), now, None  # a new spec: not run yet
            s.add(row)
            self._announce(s, CHECKS_TOPIC, agent_id)
            remember_in_transaction(s.connection(), not created, "AddHealthCheck")
            return not created

    def save_status(self, status: HealthStatus) -> bool:
        """Record the latest result of the agent's check; False when the agent has no check (removed
        meanwhile: nothing stored)."""
        with Session(self.engine) as s, s.begin():
            res = s.execute(
                update(HealthCheckRow)
                .where(col(HealthCheckRow.agent_id) == status.agent_id)
                .values(last_status=to_json(status))
            )
            if not res.rowcount:  # type: ignore[attr-defined]
                return False
            self._announce(s, HEALTH_TOPIC, status.agent_id)
            return True

    def load_statuses(self, agent_id: str = "") -> dict[str, HealthStatus]:
        """The latest results (of one agent, or all), whichever sidecar ran them."""
        stmt = select(col(HealthCheckRow.agent_id), col(HealthCheckRow.last_status)).where(
            col(HealthCheckRow.last_status).is_not(None)
        )
        if agent_id:
            stmt = stmt.where(col(HealthCheckRow.agent_id) == agent_id)
        with Session(self.engine) as s:
            rows = s.execute(stmt).all()
        out = {}
        for a, raw in rows:
            if raw is None:  # a JSON null (SQLite stores None as 'null' in a JSON column)
                continue
            status = from_json(HealthStatus, raw)
            assert isinstance(status, HealthStatus)
            out[a] = status
        return out

    def delete_check(self, agent_id: str) -> bool:
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(HealthCheckRow).where(col(HealthCheckRow.agent_id) == agent_id))
            if res.rowcount:  # type: ignore[attr-defined]
                self._announce(s, CHECKS_TOPIC, agent_id)
                # A retried RemoveHealthCheck gets this answer (not NOT_FOUND), and never removes a check
                # added again since.
                remember_in_transaction(s.connection(), None, "RemoveHealthCheck")
            return bool(res.rowcount)  # type: ignore[attr-defined]

    # ---- settings -----------------------------------------------------------------------------

    def get_setting(self, key: str) -> dict[str, Any] | None:
        with Session(self.engine) as s:
            row = s.get(RecoverySettingRow, key)
            return dict(row.value) if row else None

    def put_setting(self, key: str, value: dict[str, Any], now: datetime, answer: Any = None) -> None:
        """`answer`: what the operator call being served (SetCascadePolicy, StartMonitoring, StopMonitoring)
        answers for this change; its idempotency record is written with the setting."""
        # One upsert: sidecars starting together on a fresh database all write the policy file's digest.
        insert = pg_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
        stmt = insert(RecoverySettingRow).values(key=key, value=dict(value), update_time=now)
        stmt = stmt.on_conflict_do_update(index_elements=["key"], set_={"value": dict(value), "update_time": now})
        with Session(self.engine) as s, s.begin():
            s.execute(stmt)
            self._announce(s, SETTINGS_TOPIC, key)
            if answer is not None:
                remember_in_transaction(s.connection(), answer, *_SETTING_CALLS)


def _event(row: RecoveryEventRow) -> RecoveryEvent:
    assert row.seq is not None
    event_type = RecoveryEventType[row.event_type]
    return RecoveryEvent(
        row.seq, event_type, row.agent_id, utc(row.event_time), decode_payload(event_type, row.payload)
    )


class SqlRecoveryEventRepository:
    """The event log. On PostgreSQL each event's sequence is the `recovery_events` change counter
    (`fleet_changes`, seeded by migration 0110), taken with `ChangeLog.bump` in the appending
    transaction: the counter row stays locked until that transaction commits, so sequence N+1 is only
    handed out once N is committed (or rolled back, and then reused). Committed sequences are therefore
    contiguous in commit order: a reader that asks for "after cursor" never sees N+1 while N is still
    to come, the gap a plain `bigserial` leaves when a transaction that took N commits after the one
    that took N+1. The bump's NOTIFY wakes every sidecar's watchers. The price: event appends are
    serialised fleet-wide (one short transaction each). On SQLite (one sidecar, one writer at a time)
    the autoincrement key already commits in order."""

    def __init__(self, engine: Engine, notices: EventNotices | None = None, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.notices = notices  # the notifications an event causes, written in its transaction
        self.changes = changes

    def append(self, event_type: RecoveryEventType, agent_id: str, event_time: datetime, payload: Any) -> RecoveryEvent:
        with Session(self.engine) as s, s.begin():
            return self.append_in(s, event_type, agent_id, event_time, payload)

    def append_in(
        self, s: Session, event_type: RecoveryEventType, agent_id: str, event_time: datetime, payload: Any
    ) -> RecoveryEvent:
        """Append inside the caller's transaction (the sequence stays reserved, and later appends wait,
        until it ends)."""
        data = encode_payload(event_type, payload)
        seq = self.changes.bump(s.connection(), EVENTS_TOPIC, agent_id) if self.changes is not None else 0
        row = RecoveryEventRow(event_type=event_type.name, agent_id=agent_id, event_time=event_time, payload=data)
        if seq:
            row.seq = seq
        s.add(row)
        s.flush()
        assert row.seq is not None
        event = RecoveryEvent(row.seq, event_type, agent_id, event_time, payload)
        if self.notices is not None:
            add_to_outbox(s, self.notices(event))
        return event

    def latest_sequence(self) -> int:
        with Session(self.engine) as s:
            return int(s.execute(select(func.max(RecoveryEventRow.seq))).scalar() or 0)

    def _filtered(self, stmt: Any, flt: EventFilter) -> Any:
        c = RecoveryEventRow
        if flt.types:
            stmt = stmt.where(col(c.event_type).in_(sorted(t.name for t in flt.types)))
        if flt.agent_id:
            stmt = stmt.where(col(c.agent_id) == flt.agent_id)
        if flt.start_time:
            stmt = stmt.where(col(c.event_time) >= flt.start_time)
        if flt.end_time:
            stmt = stmt.where(col(c.event_time) < flt.end_time)
        return stmt

    def after(self, cursor: int, upto: int, flt: EventFilter, limit: int) -> list[RecoveryEvent]:
        c = RecoveryEventRow
        stmt = select(c).where(col(c.seq) > cursor, col(c.seq) <= upto).order_by(col(c.seq)).limit(limit)
        with Session(self.engine) as s:
            return [_event(r) for r in s.execute(self._filtered(stmt, flt)).scalars()]

    def list(self, flt: EventFilter, page_size: int, page_token: str) -> Page[RecoveryEvent]:
        size = pagination.page_size(page_size)
        before = _int_token(page_token)
        c = RecoveryEventRow
        stmt = select(c).order_by(col(c.seq).desc()).limit(size + 1)
        if before is not None:
            stmt = stmt.where(col(c.seq) < before)
        with Session(self.engine) as s:
            rows = list(s.execute(self._filtered(stmt, flt)).scalars())
        more = len(rows) > size
        rows = rows[:size]
        return Page([_event(r) for r in rows], pagination.encode(rows[-1].seq) if more else "")

    def prune(self, keep_rows: int) -> int:
        with Session(self.engine) as s, s.begin():
            newest = s.execute(select(func.max(RecoveryEventRow.seq))).scalar()
            if newest is None or newest <= keep_rows:
                return 0
            cut = int(newest) - keep_rows
            res = s.execute(delete(RecoveryEventRow).where(col(RecoveryEventRow.seq) <= cut))
            return cut if res.rowcount else 0  # type: ignore[attr-defined]

    def prune_through(self, cut: int) -> int:
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(RecoveryEventRow).where(col(RecoveryEventRow.seq) <= cut))
            return int(res.rowcount)  # type: ignore[attr-defined]


def _kill(row: KillRow) -> KillResult:
    kill = from_json(KillResult, row.record)
    assert isinstance(kill, KillResult)
    return kill


def _kill_row(row: KillRow, k: KillResult) -> KillRow:
    row.kill_id, row.agent_id, row.session_id = k.kill_id, k.agent_id, k.session_id
    row.reason, row.kill_time, row.complete_time = k.reason.name, k.kill_time, k.complete_time
    row.request_id, row.record = k.request_id, to_json(k)
    return row


class SqlKillRepository:
    def __init__(
        self,
        engine: Engine,
        notices: KillNotices | None = None,
        changes: ChangeLog | None = None,
        owner: str = "",
    ) -> None:
        self.engine = engine
        self.owner = owner or (changes.origin if changes is not None else "")  # this sidecar's id
        self.notices = notices  # the notifications a completed kill causes, written with its record
        self.changes = changes  # the kill's TERMINATED standing and substitute changes reach other sidecars

    def _announce_substitutes(self, s: Session, agent_id: str) -> None:
        if self.changes is not None:
            self.changes.bump(s.connection(), SUBSTITUTES_TOPIC, agent_id)

    def insert(self, kill: KillResult) -> bool:
        """Record a kill intent and terminate its agent id in one transaction: from its commit on, every
        credential of the agent is refused (in other sidecars once the `agents` notification arrives, or
        their containment poll sees the counter)."""
        try:
            with Session(self.engine) as s, s.begin():
                put_standing(
                    s,
                    Containment(
                        kill.agent_id,
                        Standing.TERMINATED,
                        kill.kill_id,
                        f"killed ({kill.reason.name.lower()}): {kill.request_details}"[:1024],
                        kill.requested_by,
                        kill.kill_time,
                    ),
                    self.changes,
                )
                s.add(
                    _kill_row(
                        KillRow(
                            kill_id=kill.kill_id,
                            agent_id=kill.agent_id,
                            session_id=kill.session_id,
                            reason=kill.reason.name,
                            kill_time=kill.kill_time,
                            request_id=kill.request_id,
                            owner_sidecar=self.owner,
                        ),
                        kill,
                    )
                )
                if kill.complete_time is not None and self.notices is not None:
                    s.flush()  # a duplicate kill id fails here, before any notification is written
                    add_to_outbox(s, self.notices(kill))
        except IntegrityError as exc:
            with Session(self.engine) as s:
                taken = s.execute(select(col(KillRow.seq)).where(col(KillRow.kill_id) == kill.kill_id)).first()
                running = s.execute(
                    select(col(KillRow.kill_id)).where(
                        col(KillRow.agent_id) == kill.agent_id, col(KillRow.complete_time).is_(None)
                    )
                ).first()
            if taken:
                return False
            if running:  # the partial unique index: another sidecar (or call) is killing this agent
                raise FailedPrecondition(
                    f"a kill of agent {kill.agent_id!r} is already in progress ({running[0]})",
                    reason="KILL_IN_PROGRESS",
                ) from exc
            raise
        return True

    def update(self, kill: KillResult) -> bool:
        with Session(self.engine) as s, s.begin():
            row = s.execute(select(KillRow).where(col(KillRow.kill_id) == kill.kill_id).with_for_update()).scalar()
            if row is None:
                raise KeyError(kill.kill_id)
            if row.owner_sidecar != self.owner or row.complete_time is not None:
                return False  # taken over while this sidecar was away (and perhaps completed there): not ours
            completes = kill.complete_time is not None
            s.add(_kill_row(row, kill))
            if completes and self.notices is not None:
                add_to_outbox(s, self.notices(kill))
            return True

    def get(self, kill_id: str) -> KillResult | None:
        with Session(self.engine) as s:
            row = s.execute(select(KillRow).where(col(KillRow.kill_id) == kill_id)).scalar()
            return _kill(row) if row else None

    def find_by_request(self, request_id: str) -> KillResult | None:
        with Session(self.engine) as s:
            row = s.execute(select(KillRow).where(col(KillRow.request_id) == request_id).limit(1)).scalar()
            return _kill(row) if row else None

    def incomplete(self) -> list[KillResult]:
        with Session(self.engine) as s:
            stmt = select(KillRow).where(col(KillRow.complete_time).is_(None)).order_by(col(KillRow.seq))
            return [_kill(r) for r in s.execute(stmt).scalars()]

    def taken_over(self, kill_ids: Sequence[str]) -> list[str]:
        """Of these kills, those another sidecar owns now (it claimed them: this one was declared gone)."""
        if not kill_ids:
            return []
        k = KillRow
        stmt = select(col(k.kill_id)).where(col(k.kill_id).in_(list(kill_ids)), col(k.owner_sidecar) != self.owner)
        with Session(self.engine) as s:
            return [str(kill_id) for kill_id in s.execute(stmt).scalars()]

    def claim_orphaned(self, gone_before: datetime) -> list[KillResult]:
        """Running kills whose owner is gone (no heartbeat since `gone_before`, or stopped), now owned by
        this sidecar: claimed under row locks (SKIP LOCKED) and re-owned in one transaction, so each is
        resumed by exactly one sidecar. On SQLite with one sidecar per file every running kill not owned by
        this process is orphaned (the workers of `serve --workers` sharing a file are a fleet)."""
        k, sc = KillRow, SidecarRow
        stmt = select(k).where(col(k.complete_time).is_(None), col(k.owner_sidecar) != self.owner)
        if self.engine.dialect.name != "sqlite" or (self.changes is not None and self.changes.enabled):
            alive = select(col(sc.sidecar_id)).where(col(sc.stop_time).is_(None), col(sc.heartbeat_time) >= gone_before)
            stmt = stmt.where(col(k.owner_sidecar).not_in(alive))
        with Session(self.engine) as s, s.begin():
            rows = list(s.execute(stmt.order_by(col(k.seq)).with_for_update(skip_locked=True)).scalars())
            for row in rows:
                row.owner_sidecar = self.owner
                s.add(row)
            return [_kill(r) for r in rows]

    # ---- substitutes --------------------------------------------------------------------------

    def load_substitutes(self) -> list[Substitute]:
        with Session(self.engine) as s:
            rows = s.execute(select(SubstituteRow).order_by(col(SubstituteRow.id))).scalars()
            return [
                Substitute(SubstituteScope(r.scope), r.scope_id, r.agent_id, 0, utc(r.register_time), r.request_id)
                for r in rows
            ]

    def add_substitute(self, sub: Substitute) -> bool:
        try:
            with Session(self.engine) as s, s.begin():
                s.add(
                    SubstituteRow(
                        scope=sub.scope.value,
                        scope_id=sub.scope_id,
                        agent_id=sub.agent_id,
                        register_time=sub.register_time,
                        request_id=sub.request_id,
                    )
                )
                s.flush()  # the unique entry: registered already (on another sidecar, before its NOTIFY came)
                self._announce_substitutes(s, sub.agent_id)
        except IntegrityError:
            return False
        return True

    def remove_substitute(self, scope: SubstituteScope, scope_id: str, agent_id: str) -> bool:
        c = SubstituteRow
        with Session(self.engine) as s, s.begin():
            res = s.execute(
                delete(c).where(col(c.scope) == scope.value, col(c.scope_id) == scope_id, col(c.agent_id) == agent_id)
            )
            if res.rowcount:  # type: ignore[attr-defined]
                self._announce_substitutes(s, agent_id)
                # A retried DeregisterSubstitute gets this answer, and never removes one registered again.
                remember_in_transaction(s.connection(), None, "DeregisterSubstitute")
            return bool(res.rowcount)  # type: ignore[attr-defined]

    def remove_agent_substitutes(self, agent_id: str) -> int:
        with Session(self.engine) as s, s.begin():
            res = s.execute(delete(SubstituteRow).where(col(SubstituteRow.agent_id) == agent_id))
            if res.rowcount:  # type: ignore[attr-defined]
                self._announce_substitutes(s, agent_id)
            return int(res.rowcount)  # type: ignore[attr-defined]

    def list(self, flt: KillFilter, page_size: int, page_token: str) -> Page[KillResult]:
        size = pagination.page_size(page_size)
        before = _int_token(page_token)
        c = KillRow
        stmt = select(c).order_by(col(c.seq).desc()).limit(size + 1)
        if before is not None:
            stmt = stmt.where(col(c.seq) < before)
        if flt.agent_id:
            stmt = stmt.where(col(c.agent_id) == flt.agent_id)
        if flt.session_id:
            stmt = stmt.where(col(c.session_id) == flt.session_id)
        if flt.reason is not None:
            stmt = stmt.where(col(c.reason) == flt.reason.name)
        if flt.start_time:
            stmt = stmt.where(col(c.kill_time) >= flt.start_time)
        if flt.end_time:
            stmt = stmt.where(col(c.kill_time) < flt.end_time)
        with Session(self.engine) as s:
            rows = list(s.execute(stmt).scalars())
        more = len(rows) > size
        rows = rows[:size]
        return Page([_kill(r) for r in rows], pagination.encode(rows[-1].seq) if more else "")
