"""In-memory storage for the safeguard services' unit tests: keeps the latest snapshot of each object, as
the SQL repository does, so a "restart" is a new service loading from the same fake."""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from server.domain import pages
from server.domain.errors import FailedPrecondition, InvalidArgument
from server.domain.safeguards.breakers import Breaker, BreakerChange, BreakerConfig, BreakerState, Outcome
from server.domain.safeguards.episodes import Episode
from server.domain.safeguards.leases import IsolationKey, Lease, LeaseState
from server.services.ports import Page
from server.services.safeguards.breakers import Decide, OutcomeBatch
from server.services.safeguards.leases import HandOver, Waiter, lease_for


class MemoryAudit:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, str, dict[str, Any]]] = []

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        self.records.append((actor, action, subject, details))


class MemorySafeguards:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], Any] = {}
        self.commits = 0
        self.fail = False
        self._lock = threading.RLock()
        self._waiters: list[dict[str, Any]] = []  # lease waiters in FIFO order
        self._seq = 0

    def _save(self, changes: Sequence[tuple[str, str, Any]]) -> None:
        if self.fail:
            raise OSError("disk on fire")
        self.commits += 1
        for kind, key, obj in changes:
            if kind == "remembered":  # idempotency records: this store keeps none (MemoryIdempotency does)
                continue
            if obj is None:
                self.rows.pop((kind, key), None)
            else:
                self.rows[(kind, key)] = copy.deepcopy(obj)

    def _all(self, kind: str) -> list[Any]:
        return [copy.deepcopy(v) for (k, _), v in self.rows.items() if k == kind]

    # breakers: the SQL repository's compare-and-set semantics (server/storage/safeguards/breakers.py)
    def _stored(self, b: Breaker) -> Breaker:
        out = copy.deepcopy(b)
        out.config, out.in_flight, out.opened_at = BreakerConfig(), 0, None
        return out

    def _write(self) -> None:
        if self.fail:
            raise OSError("disk on fire")
        self.commits += 1

    def load_breakers(self) -> list[Breaker]:
        with self._lock:
            return [self._stored(b) for b in self._all("breaker")]

    def get_breaker(self, key: str) -> Breaker | None:
        with self._lock:
            found = self.rows.get(("breaker", key))
            return self._stored(found) if found is not None else None

    def create_breakers(self, breakers: Sequence[Breaker]) -> None:
        with self._lock:
            self._write()
            for b in breakers:
                self.rows.setdefault(("breaker", b.key), self._stored(b))

    def add_outcomes(
        self, batches: Sequence[OutcomeBatch], decide: Decide
    ) -> list[tuple[Breaker | None, list[BreakerChange]]]:
        with self._lock:
            self._write()
            rows = copy.deepcopy(self.rows)  # one transaction: all or nothing
            out: list[tuple[Breaker | None, list[BreakerChange]]] = []
            for batch in batches:
                if batch.generation == 1 and ("breaker", batch.key) not in rows:
                    wall = batch.events[0].time
                    rows[("breaker", batch.key)] = Breaker(batch.key, BreakerConfig(), wall, wall)
                b: Breaker | None = rows.get(("breaker", batch.key))
                if b is None or b.generation != batch.generation or b.state is not BreakerState.CLOSED:
                    out.append((None, []))
                    continue
                b.failure_count = batch.failures() if batch.reset() else b.failure_count + batch.failures()
                b.update_time = max(e.time for e in batch.events)
                b.last_failure_time = batch.last_time(Outcome.FAILURE) or b.last_failure_time
                b.last_success_time = batch.last_time(Outcome.SUCCESS) or b.last_success_time
                if (cached := batch.cached()) is not None:
                    b.has_cached, b.cached = True, cached[0]
                stored = self._stored(b)
                changes = decide(stored, batch)
                rows[("breaker", batch.key)] = self._stored(stored)
                out.append((stored, changes))
            self.rows = rows
            return out

    def transition(self, b: Breaker, expected_generation: int, remember: bool = False) -> bool:
        with self._lock:
            found = self.rows.get(("breaker", b.key))
            if found is None or found.generation != expected_generation:
                return False
            self._write()
            new = self._stored(b)
            new.runtime_config, new.create_time = found.runtime_config, found.create_time
            self.rows[("breaker", b.key)] = new
            return True

    def take_probe(self, key: str, generation: int, limit: int) -> bool:
        with self._lock:
            b = self.rows.get(("breaker", key))
            if b is None or b.generation != generation or b.state is not BreakerState.HALF_OPEN or b.probes >= limit:
                return False
            self._write()
            b.probes += 1
            return True

    def return_probe(self, key: str, generation: int) -> None:
        with self._lock:
            b = self.rows.get(("breaker", key))
            if b is not None and b.generation == generation and b.probes > 0:
                self._write()
                b.probes -= 1

    def set_runtime_config(self, key: str, runtime: Mapping[str, Any], now: datetime) -> None:
        with self._lock:
            b = self.rows.get(("breaker", key))
            if b is not None:
                self._write()
                b.runtime_config, b.update_time = dict(runtime), now

    # episodes
    def load_episodes(self, limit: int) -> list[Episode]:
        return sorted(self._all("episode"), key=lambda e: e.episode_id)[-limit:]

    save_episodes = _save

    # leases: the SQL repository's semantics (server/storage/safeguards/leases.py), one lock for the "row lock"
    def _end(self, match: Any, state: LeaseState, now: datetime) -> list[Lease]:
        ended = []
        for (kind, _), le in self.rows.items():
            if kind == "lease" and le.state is LeaseState.ACTIVE and match(le):
                le.state, le.end_time = state, now
                ended.append(copy.deepcopy(le))
        return ended

    def try_acquire(
        self,
        key: IsolationKey,
        limit: int | None,
        agent_id: str,
        ttl: float,
        request_id: str,
        now: datetime,
        waiter_id: str | None,
        stale_before: datetime,
    ) -> tuple[Lease | None, str]:
        with self._lock:
            self._write()
            if request_id:
                for (kind, _), le in self.rows.items():
                    if kind == "lease" and (le.agent_id, le.request_id, le.key) == (agent_id, request_id, key):
                        self._waiters = [w for w in self._waiters if w["id"] != waiter_id]
                        return copy.deepcopy(le), ""
            mine = next((w for w in self._waiters if w["id"] == waiter_id), None) if waiter_id else None
            if waiter_id and mine is None and ("lease", lease_for(waiter_id)) in self.rows:  # handed over
                return copy.deepcopy(self.rows[("lease", lease_for(waiter_id))]), ""
            if mine is not None and mine["killed"]:
                self._waiters.remove(mine)
                raise FailedPrecondition(
                    f"agent {agent_id!r} was killed: its leases are revoked", reason="AGENT_KILLED"
                )
            if mine is not None:
                mine["poll"] = now
            self._end(lambda le: le.key == key and le.expire_time <= now, LeaseState.EXPIRED, now)
            self._waiters = [w for w in self._waiters if w["key"] != key.text or w["poll"] >= stale_before]
            if limit is not None:
                active = sum(
                    1
                    for (k, _), le in self.rows.items()
                    if k == "lease" and le.key == key and le.state is LeaseState.ACTIVE
                )
                queue = [w for w in self._waiters if w["key"] == key.text and not w["killed"]]
                ahead = queue.index(mine) if mine is not None and mine in queue else len(queue)
                if active + ahead >= limit:
                    if mine is not None:
                        return None, str(waiter_id)
                    self._seq += 1
                    new_id = f"lwt_{self._seq}"
                    self._waiters.append(
                        {"id": new_id, "key": key.text, "agent": agent_id, "killed": False, "poll": now}
                    )
                    return None, new_id
            token = int(self.rows.get(("key", key.text), 0)) + 1
            self.rows[("key", key.text)] = token
            self._seq += 1
            lease = Lease(
                f"lse_{self._seq:020x}",
                key,
                agent_id,
                token,
                ttl,
                now,
                now + timedelta(seconds=ttl),
                0.0,
                request_id=request_id,
            )
            self.rows[("lease", lease.lease_id)] = copy.deepcopy(lease)
            self._waiters = [w for w in self._waiters if w["id"] != waiter_id]
            return lease, ""

    def leave_queue(self, waiter_id: str, hand_over: HandOver | None = None) -> None:
        with self._lock:
            gone = [w for w in self._waiters if w["id"] == waiter_id]
            self._waiters = [w for w in self._waiters if w["id"] != waiter_id]
            handed = self._hand_over(IsolationKey.parse(gone[0]["key"]), hand_over) if gone and hand_over else ([], [])
        if hand_over is not None:
            hand_over.committed(*handed)

    def _hand_over(self, key: IsolationKey, h: HandOver) -> tuple[list[tuple[Waiter, Lease]], list[IsolationKey]]:
        """The SQL repository's hand-over: the key's free slots to its next waiters while they wait here."""
        self._end(lambda le: le.key == key and le.expire_time <= h.now, LeaseState.EXPIRED, h.now)
        self._waiters = [w for w in self._waiters if w["key"] != key.text or w["poll"] >= h.stale_before]
        queue = [w for w in self._waiters if w["key"] == key.text and not w["killed"]]
        limit = h.limit(key)
        if limit is not None:
            active = sum(
                1
                for (k, _), le in self.rows.items()
                if k == "lease" and le.key == key and le.state is LeaseState.ACTIVE
            )
            queue = queue[: max(0, limit - active)]
        grants: list[tuple[Waiter, Lease]] = []
        unserved = False
        for row in queue:
            w = h.waiter(row["id"])
            if w is None or w.key != key:
                unserved = True
                continue
            token = int(self.rows.get(("key", key.text), 0)) + 1
            self.rows[("key", key.text)] = token
            lease = Lease(
                lease_for(w.waiter_id), key, w.agent_id, token, w.ttl, h.now, h.now + timedelta(seconds=w.ttl), 0.0,
                request_id=w.request_id,
            )  # fmt: skip
            self.rows[("lease", lease.lease_id)] = copy.deepcopy(lease)
            self._waiters.remove(row)
            grants.append((w, lease))
        return grants, [key] if unserved else []

    def waiters(self, key: IsolationKey) -> int:
        with self._lock:
            return sum(1 for w in self._waiters if w["key"] == key.text and not w["killed"])

    def renew(self, lease_id: str, ttl: float, now: datetime) -> Lease | None:
        with self._lock:
            self._write()
            le: Lease | None = self.rows.get(("lease", lease_id))
            if le is None:
                return None
            if le.state is LeaseState.ACTIVE and le.expire_time > now:
                le.ttl, le.expire_time = ttl, now + timedelta(seconds=ttl)
            else:
                self._end(lambda x: x.lease_id == lease_id, LeaseState.EXPIRED, now)
            return copy.deepcopy(le)

    def release(
        self, lease_id: str, now: datetime, hand_over: HandOver | None = None, holder: str | None = None
    ) -> Lease | None:
        with self._lock:
            self._write()
            ended = self._end(
                lambda le: le.lease_id == lease_id and holder in (None, le.agent_id), LeaseState.RELEASED, now
            )
            handed = self._hand_over(ended[0].key, hand_over) if ended and hand_over else ([], [])
            found: Lease | None = self.rows.get(("lease", lease_id))
            answer = copy.deepcopy(found) if found is not None else None
        if hand_over is not None:  # "committed": after the change, outside the lock
            hand_over.committed(*handed)
        return answer

    def reap(self, now: datetime) -> list[Lease]:
        with self._lock:
            return self._end(lambda le: le.expire_time <= now, LeaseState.EXPIRED, now)

    def revoke_agent(self, agent_id: str, now: datetime) -> list[Lease]:
        with self._lock:
            self._write()
            for w in self._waiters:
                if w["agent"] == agent_id:
                    w["killed"] = True
            return self._end(lambda le: le.agent_id == agent_id, LeaseState.REVOKED, now)

    def get_lease(self, lease_id: str) -> Lease | None:
        found = self.rows.get(("lease", lease_id))
        return copy.deepcopy(found) if found else None

    def list_leases(
        self, scope: int, key_id: str, agent_id: str, state: int, page_size: int, page_token: str
    ) -> Page[Lease]:
        """Newest first by (acquire time, lease id), paged like the SQL repository; `key_id` filters only
        with a `scope`, as there."""
        size = pages.page_size(page_size)
        after = pages.decode(page_token)
        if after is not None and not (isinstance(after, list) and len(after) == 2):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        with self._lock:
            items = [
                le
                for le in self._all("lease")
                if (not scope or (le.key.scope == scope and (not key_id or le.key.id == key_id)))
                and (not agent_id or le.agent_id == agent_id)
                and (not state or le.state == state)
            ]
        ordered = sorted(items, key=lambda le: (le.acquire_time, le.lease_id), reverse=True)
        if after is not None:
            cut = (datetime.fromisoformat(after[0]), after[1])
            ordered = [le for le in ordered if (le.acquire_time, le.lease_id) < cut]
        shown = ordered[:size]
        more = len(ordered) > size
        token = pages.encode([shown[-1].acquire_time.isoformat(), shown[-1].lease_id]) if more else ""
        return Page(shown, token)

    def prune_leases(self, ended_before: datetime) -> int:
        """Forget ended leases (and waiters that stopped polling) from before `ended_before`."""
        with self._lock:
            self._waiters = [w for w in self._waiters if w["poll"] >= ended_before]
            gone = [
                k
                for k, le in self.rows.items()
                if k[0] == "lease" and le.state is not LeaseState.ACTIVE and le.end_time < ended_before
            ]
            for k in gone:
                del self.rows[k]
            return len(gone)
