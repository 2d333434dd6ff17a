"""In-memory fleet storage and budgets (for tests, and anything that builds services without a database):
a sidecars table, a change feed nobody else writes to, and a budget ledger that applies the same deltas
under one lock (one "transaction" at a time, as the database serialises the rows)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from server.domain.errors import FailedPrecondition, NotFound, PermissionDenied
from server.domain.fleet.attachments import Attachment
from server.domain.fleet.jobs import JobClaim
from server.domain.fleet.policy import AppliedPolicy, FleetPolicy
from server.domain.fleet.sidecars import Sidecar
from server.domain.safeguards.budgets import (
    Allocation,
    BudgetSignal,
    GlobalBudget,
    Priority,
    Reservation,
    ReservationState,
)
from server.services.safeguards.budgets import Change, Evaluate, ReserveOutcome


class SilentChangeFeed:
    """One process alone on its storage: nobody else's changes to announce."""

    def __init__(self) -> None:
        self.topics: list[str] = []

    def subscribe(self, topic: str, on_change: Callable[[str], None], on_resync: Callable[[], None]) -> None:
        self.topics.append(topic)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def stale(self, max_age: float) -> bool:
        return False

    def ensure_fresh(self, max_age: float, timeout: float) -> bool:
        return True

    def resync_all(self) -> None:
        pass


class MemorySidecars:
    def __init__(self) -> None:
        self.rows: dict[str, Sidecar] = {}

    def register(self, sidecar: Sidecar) -> None:
        self.rows[sidecar.sidecar_id] = sidecar

    def heartbeat(self, sidecar_id: str, now: datetime) -> datetime | None:
        s = self.rows.get(sidecar_id)
        if s is None:
            return None
        self.rows[sidecar_id] = Sidecar(s.sidecar_id, s.host, s.pid, s.version, s.listen, s.start_time, now)
        return s.heartbeat_time

    def stopped(self, sidecar_id: str, now: datetime) -> None:
        s = self.rows[sidecar_id]
        self.rows[sidecar_id] = Sidecar(s.sidecar_id, s.host, s.pid, s.version, s.listen, s.start_time, now, now)

    def all(self) -> Sequence[Sidecar]:
        return sorted(self.rows.values(), key=lambda s: s.start_time)

    def prune(self, stopped_before: datetime) -> int:
        gone = [k for k, s in self.rows.items() if s.heartbeat_time < stopped_before]
        for k in gone:
            del self.rows[k]
        return len(gone)


class MemoryAttachments:
    """Attachments of sidecars sharing `sidecars` (a MemorySidecars): present means fresh and not stopped."""

    def __init__(self, sidecars: MemorySidecars | None = None) -> None:
        self.rows: dict[str, Attachment] = {}
        self.sidecars = sidecars or MemorySidecars()

    def attach(self, attachment: Attachment) -> None:
        self.rows[attachment.agent_id] = attachment

    def detach(self, agent_id: str, attachment_id: str) -> bool:
        a = self.rows.get(agent_id)
        if a is None or a.attachment_id != attachment_id:
            return False
        del self.rows[agent_id]
        return True

    def seen(self, sidecar_id: str, last_seen: Mapping[str, datetime]) -> None:
        for agent_id, t in last_seen.items():
            a = self.rows.get(agent_id)
            if a is not None and a.sidecar_id == sidecar_id:
                self.rows[agent_id] = Attachment(a.agent_id, a.attachment_id, a.sidecar_id, a.connect_time, t)

    def reassert(self, held: Sequence[Attachment]) -> list[str]:
        superseded = []
        for h in held:
            a = self.rows.get(h.agent_id)
            if a is None or a.attachment_id == h.attachment_id:
                self.rows[h.agent_id] = h
            else:
                superseded.append(h.agent_id)
        return superseded

    def present(self, sidecar_id: str, gone_before: datetime) -> bool:
        s = self.sidecars.rows.get(sidecar_id)
        return s is not None and s.stop_time is None and s.heartbeat_time >= gone_before

    def owner(self, agent_id: str, gone_before: datetime) -> tuple[Attachment, bool] | None:
        a = self.rows.get(agent_id)
        return None if a is None else (a, self.present(a.sidecar_id, gone_before))

    def release_gone(self, gone_before: datetime, keep: str = "") -> int:
        gone = [k for k, a in self.rows.items() if a.sidecar_id != keep and not self.present(a.sidecar_id, gone_before)]
        for k in gone:
            del self.rows[k]
        return len(gone)

    def release_sidecar(self, sidecar_id: str) -> int:
        mine = [k for k, a in self.rows.items() if a.sidecar_id == sidecar_id]
        for k in mine:
            del self.rows[k]
        return len(mine)

    def all(self) -> Sequence[Attachment]:
        return [self.rows[k] for k in sorted(self.rows)]


class MemoryJobClaims:
    """`fleet_jobs` in memory: the same claims under one lock."""

    def __init__(self) -> None:
        self.rows: dict[str, JobClaim] = {}
        self._lock = threading.Lock()

    def claim(self, job_id: str, owner: str, now: datetime, until: datetime, *, keep: bool = False) -> bool:
        with self._lock:
            row = self.rows.get(job_id)
            if row is not None and not (row.due_time <= now or (keep and row.owner == owner)):
                return False
            self.rows[job_id] = JobClaim(job_id, owner, until, now)
            return True

    def release(self, job_id: str, owner: str) -> None:
        with self._lock:
            row = self.rows.get(job_id)
            if row is not None and row.owner == owner:
                self.rows[job_id] = JobClaim(job_id, owner, datetime.min.replace(tzinfo=row.due_time.tzinfo), None)

    def all(self) -> Sequence[JobClaim]:
        with self._lock:
            return [self.rows[k] for k in sorted(self.rows)]


def _no_allocation(agent_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"agent {agent_id!r} has no token allocation; Allocate first", reason="NO_ALLOCATION", field="agent_id"
    )


class MemoryBudgetLedger:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.glob: GlobalBudget | None = None
        self.allocations: dict[str, Allocation] = {}
        self.reservations: dict[str, Reservation] = {}

    def _change(self, agent_id: str, now: datetime, evaluate: Evaluate) -> Change:
        a, g = self.allocations.get(agent_id), self.glob
        assert g is not None
        g.version += 1
        g.update_time = now
        if a is not None:
            a.version += 1
            a.update_time = now
        signals = evaluate(a, g)
        return Change(copy.copy(a), copy.copy(g), tuple(signals))

    def load(self) -> tuple[GlobalBudget | None, list[Allocation]]:
        with self.lock:
            return copy.copy(self.glob), [copy.copy(a) for _, a in sorted(self.allocations.items())]

    def read(self, agent_id: str) -> tuple[Allocation | None, GlobalBudget | None]:
        with self.lock:
            return copy.copy(self.allocations.get(agent_id)), copy.copy(self.glob)

    def reservation(self, reservation_id: str) -> Reservation | None:
        with self.lock:
            return copy.copy(self.reservations.get(reservation_id))

    def init_global(self, total: int, now: datetime) -> GlobalBudget:
        with self.lock:
            if self.glob is None:
                self.glob = GlobalBudget(total, now, version=1)
            elif self.glob.source == "config" and self.glob.total != total:
                self.glob.total, self.glob.version = total, self.glob.version + 1
            return copy.copy(self.glob)

    def set_global(self, total: int, now: datetime, evaluate: Evaluate) -> Change:
        with self.lock:
            assert self.glob is not None
            self.glob.total, self.glob.source = total, "runtime"
            return self._change("", now, evaluate)

    def allocate(
        self,
        agent_id: str,
        tokens: int,
        priority: Priority,
        now: datetime,
        evaluate: Evaluate,
        priority_set: bool = False,
    ) -> Change:
        with self.lock:
            assert self.glob is not None
            for r in self.reservations.values():
                if r.agent_id == agent_id and r.state is ReservationState.OPEN:
                    r.state, r.end_time = ReservationState.CANCELLED, now
                    self.glob.reserved = max(0, self.glob.reserved - r.tokens)
            before = self.allocations.get(agent_id)
            a = Allocation(
                agent_id, tokens, priority, now, now, priority_set=priority_set, version=before.version if before else 0
            )
            if before is not None:
                a.warned, a.stopped = before.warned, before.stopped
            self.allocations[agent_id] = a
            return self._change(agent_id, now, evaluate)

    def consume(self, agent_id: str, tokens: int, now: datetime, evaluate: Evaluate) -> Change:
        with self.lock:
            a = self.allocations.get(agent_id)
            if a is None or self.glob is None:
                raise _no_allocation(agent_id)
            a.used += tokens
            self.glob.used += tokens
            return self._change(agent_id, now, evaluate)

    def reserve(
        self, reservation: Reservation, min_context: Mapping[Priority, int], now: datetime, evaluate: Evaluate
    ) -> ReserveOutcome:
        n = reservation.tokens
        with self.lock:
            a, g = self.allocations.get(reservation.agent_id), self.glob
            if a is None or g is None:
                raise _no_allocation(reservation.agent_id)
            if a.remaining < n:
                return ReserveOutcome(None, None, "agent", False, copy.copy(a), copy.copy(g))
            floor = n > g.remaining
            if floor and (not a.priority_set or n > min_context.get(a.priority, 0)):
                return ReserveOutcome(None, None, "global", False, copy.copy(a), copy.copy(g))
            a.reserved += n
            g.reserved += n
            self.reservations[reservation.reservation_id] = copy.copy(reservation)
            change = self._change(a.agent_id, now, evaluate)
            return ReserveOutcome(change, reservation, "", floor, change.allocation, change.global_budget)

    def settle(
        self, reservation_id: str, actual: int, caller: str | None, now: datetime, evaluate: Evaluate
    ) -> tuple[Change, bool]:
        with self.lock:
            r = self.reservations.get(reservation_id)
            if r is None:
                raise NotFound(f"no reservation has id {reservation_id!r}", field="reservation_id")
            if caller is not None and r.agent_id != caller:
                raise PermissionDenied(
                    f"agent credential {caller!r} may only settle its own reservations",
                    reason="NOT_YOUR_AGENT",
                    field="reservation_id",
                )
            a, g = self.allocations.get(r.agent_id), self.glob
            if a is None or g is None:
                raise _no_allocation(r.agent_id)
            if r.actual is not None:
                if r.actual != actual:
                    raise FailedPrecondition(
                        f"reservation {reservation_id!r} was already settled with actual {r.actual}",
                        reason="ALREADY_SETTLED",
                    )
                return Change(copy.copy(a), copy.copy(g), ()), True
            if r.state is ReservationState.OPEN:
                a.reserved, g.reserved = max(0, a.reserved - r.tokens), max(0, g.reserved - r.tokens)
                r.state, r.end_time = ReservationState.SETTLED, now
            r.actual = actual
            a.used += actual
            g.used += actual
            return self._change(r.agent_id, now, evaluate), False

    def expire(self, now: datetime, keep_ended: timedelta, evaluate: Evaluate) -> tuple[int, list[BudgetSignal]]:
        signals: list[BudgetSignal] = []
        expired = 0
        with self.lock:
            for rid, r in list(self.reservations.items()):
                if r.state is ReservationState.OPEN and r.expire_time <= now:
                    a, g = self.allocations.get(r.agent_id), self.glob
                    assert g is not None
                    if a is not None:
                        a.reserved = max(0, a.reserved - r.tokens)
                    g.reserved = max(0, g.reserved - r.tokens)
                    r.state, r.end_time = ReservationState.EXPIRED, now
                    signals += self._change(r.agent_id, now, evaluate).signals
                    expired += 1
                elif r.end_time is not None and r.end_time < now - keep_ended:
                    del self.reservations[rid]
        return expired, signals


class MemoryFleetPolicy:
    """The fleet's policy of one in-memory "database" (one process: nobody to serialise with)."""

    def __init__(self) -> None:
        self.policy: FleetPolicy | None = None
        self.rows: dict[str, AppliedPolicy] = {}
        self._lock = threading.Lock()

    def get(self) -> FleetPolicy | None:
        return self.policy

    def apply(
        self, policy: FleetPolicy, write: Callable[[], None], expected_version: int | None = None
    ) -> FleetPolicy | None:
        with self._lock:
            if expected_version is not None and (self.policy.version if self.policy else 0) != expected_version:
                return None
            write()
            stored = replace(policy, version=(self.policy.version if self.policy else 0) + 1)
            self.policy = stored
            return stored

    def mark_applied(self, applied: AppliedPolicy) -> None:
        self.rows[applied.sidecar_id] = applied

    def applied(self) -> Sequence[AppliedPolicy]:
        return [self.rows[k] for k in sorted(self.rows)]


class MemoryRateWindows:
    """The fleet's `rate_limit` windows in memory: one lock stands for the row lock of the SQL version."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rows: dict[tuple[str, str], tuple[int, int]] = {}  # (key, agent) -> (window index, taken)
        self.takes = 0  # how many slices were asked for (tests: no round trip per check)

    def take(self, key: str, agent_id: str, index: int, want: int, cap: int) -> tuple[int, int]:
        with self._lock:
            self.takes += 1
            stored, taken = self.rows.get((key, agent_id), (index, 0))
            if stored > index:
                return 0, cap
            if stored < index:
                taken = 0
            got = max(0, min(want, cap - taken))
            self.rows[(key, agent_id)] = (index, taken + got)
            return got, taken + got
