"""Scheduled work done once fleet-wide: three sidecars on one PostgreSQL, each with the scheduler the
real sidecar builds (`build_sidecar_scheduler`, not started), tick every job at the same instant on three
threads; each due item (a period of a retention job, an approval's timeout, a breaker's timer, a lease,
a reservation) is done once. The sidecars run in this process with one fake clock (so "due" is exact,
no sleeps); the fleet suite's other tests use separate processes. The kill take-over is covered with
processes in test_kills.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from apscheduler.schedulers.background import BackgroundScheduler
from google.protobuf.duration_pb2 import Duration

from outrider.v1 import recovery_pb2 as EV
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb
from server.domain.approvals.requests import ApprovalState
from server.jobs.scheduler import EVENTS_PRUNE_EVERY, build_sidecar_scheduler
from server.services.fleet.sidecars import FORGET_EVERY
from server.services.notifications.outbox import PRUNE_INTERVAL, PRUNE_JOB
from server.services.safeguards.leases import PRUNE_EVERY
from tests.fakes import FakeClock
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, guardrail


class Trio:
    def __init__(self, tmp: Path, db_url: str) -> None:
        self.clock = FakeClock()
        self.sidecars: list[RunningSidecar] = []
        for _ in range(3):
            cfg = make_config(tmp, db_url=db_url)  # one data dir: one audit key, as on one host
            self.sidecars.append(RunningSidecar(cfg, clock=self.clock, with_scheduler=False))
        self.schedulers: list[BackgroundScheduler] = []

    def build_schedulers(self) -> None:
        self.schedulers = [build_sidecar_scheduler(s.services) for s in self.sidecars]

    def tick(self, job_id: str) -> list[Any]:
        """The job's tick on the three schedulers at once; returns what each returned."""
        if not self.schedulers:
            self.build_schedulers()
        funcs = [s.get_job(job_id).func for s in self.schedulers]
        barrier = threading.Barrier(3)
        out: list[Any] = [None] * 3

        def run(i: int) -> None:
            barrier.wait(5)
            out[i] = funcs[i]()

        threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        return out

    def close(self) -> None:
        for s in self.sidecars:
            s.stop()


@pytest.fixture
def trio(tmp_path: Path, pg_url: str) -> Iterator[Trio]:
    t = Trio(tmp_path, pg_url)
    try:
        yield t
    finally:
        t.close()


# Retention jobs: claimed per period. (job id, period, the service method the job calls)
RETENTION: list[tuple[str, float, Callable[[Any], tuple[Any, str]]]] = [
    ("decision-log-prune", 60.0, lambda s: (s.decisions, "prune")),
    ("idempotency-prune", 60.0, lambda s: (s.idempotency, "prune")),
    ("recovery-events-prune", EVENTS_PRUNE_EVERY, lambda s: (s.recovery.events, "prune")),
    ("lease-prune", PRUNE_EVERY, lambda s: (s.leases, "prune_ended")),
    ("fleet-forget", FORGET_EVERY, lambda s: (s.fleet, "forget_gone")),
]


@pytest.mark.parametrize(("job_id", "every", "target"), RETENTION, ids=[r[0] for r in RETENTION])
def test_a_retention_job_runs_once_per_period_across_three_schedulers(
    trio: Trio, job_id: str, every: float, target: Callable[[Any], tuple[Any, str]]
) -> None:
    runs: list[int] = []
    for i, s in enumerate(trio.sidecars):
        owner, name = target(s.services)
        real = getattr(owner, name)

        def counted(real: Callable[[], Any] = real, i: int = i) -> Any:
            runs.append(i)
            return real()  # the real job body, on the real database

        setattr(owner, name, counted)
    trio.build_schedulers()
    interval = trio.schedulers[0].get_job(job_id).trigger.interval.total_seconds()
    assert interval < every  # ticked a few times a period, so no period is skipped by phase
    for period in range(4):
        trio.tick(job_id)
        trio.clock.advance(interval)  # a later tick within the same period does nothing
        trio.tick(job_id)
        assert len(runs) == period + 1, (job_id, runs)
        trio.clock.advance(every)


def test_the_notification_prune_is_claimed_once_per_period(trio: Trio) -> None:
    outboxes = [s.services.notifications for s in trio.sidecars]
    for _ in range(3):
        barrier = threading.Barrier(3)
        won: list[bool] = []

        def claim(o: Any, barrier: threading.Barrier = barrier, won: list[bool] = won) -> None:
            barrier.wait(5)
            won.append(o.claim(PRUNE_JOB, PRUNE_INTERVAL))

        threads = [threading.Thread(target=claim, args=(o,)) for o in outboxes]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert sorted(won) == [False, False, True]
        trio.clock.advance(PRUNE_INTERVAL)


def _pending(s: RunningSidecar) -> list[Any]:
    deadline = time.monotonic() + 10
    while True:
        items = list(s.stub.ListApprovals(spb.ListApprovalsRequest(page_size=100)).approvals)
        if items or time.monotonic() > deadline:
            return items
        time.sleep(0.02)


def test_an_approval_escalates_once_and_expires_once_across_three_schedulers(trio: Trio) -> None:
    a = trio.sidecars[0]
    a.stub.AddGuardrail(
        guardrail(
            "",
            "hitl",
            patterns=["deploy"],
            timeout="10m",
            on_timeout="escalate",
            escalate_to=["boss"],
            escalate_timeout="1h",
            approvers=["test-operator"],
        )
    )
    fut = a.stub.CheckAction.future(check(action="deploy"))
    [item] = _pending(a)
    trio.clock.advance(601)
    assert sum(trio.tick("approval-expiry")) == 1  # one sidecar escalated it
    escalated = a.services.approvals.get(item.approval_id)
    # Escalated once: a second escalation would have skipped the boss's hour.
    assert (escalated.state, escalated.stage, escalated.approvers) == (ApprovalState.PENDING, 1, ("boss",))
    assert sum(trio.tick("approval-expiry")) == 0
    trio.clock.advance(3601)
    assert sum(trio.tick("approval-expiry")) == 1
    assert a.services.approvals.get(item.approval_id).state is ApprovalState.EXPIRED
    assert fut.result(10).allowed is False


def test_an_open_breaker_moves_to_half_open_once_across_three_schedulers(trio: Trio) -> None:
    a = trio.sidecars[0]
    key = "jobs-1:db"
    a.safeguard.SetBreakerConfig(
        pb.SetBreakerConfigRequest(
            key=key, config=sg.BreakerConfig(failure_threshold=1, recovery_timeout=Duration(seconds=5))
        )
    )
    permit = a.safeguard.AcquirePermit(pb.AcquirePermitRequest(key=key))
    a.safeguard.ReportOutcome(pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=sg.CALL_OUTCOME_FAILURE))
    for s in trio.sidecars:  # what each listener does on the notification
        s.services.breakers.refresh(key)
    trio.clock.advance(6)
    trio.tick("breaker-timers")
    trio.tick("breaker-timers")
    for s in trio.sidecars:
        s.services.breakers.events.flush()
    events = a.recovery.ListRecoveryEvents(
        rpb.ListRecoveryEventsRequest(types=[EV.RECOVERY_EVENT_TYPE_BREAKER_STATE_CHANGE], page_size=100)
    ).events
    moves = [(e.breaker_state_change.from_state, e.breaker_state_change.to_state) for e in events]
    assert moves.count((sg.BREAKER_STATE_OPEN, sg.BREAKER_STATE_HALF_OPEN)) == 1, moves


def test_a_lapsed_lease_expires_once_across_three_schedulers(trio: Trio) -> None:
    a = trio.sidecars[0]
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_SESSION, id="jobs-lease")
    a.safeguard.AcquireLease(pb.AcquireLeaseRequest(isolation_key=key, agent_id="jobs-agent", ttl=Duration(seconds=1)))
    trio.clock.advance(10)  # past the lease and the fleet-wide sweep's 5 s, on every sidecar
    assert sum(trio.tick("lease-expiry")) == 1
    assert sum(trio.tick("lease-expiry")) == 0


def test_a_lapsed_reservation_expires_once_across_three_schedulers(trio: Trio) -> None:
    a = trio.sidecars[0]
    a.safeguard.SetGlobalBudget(pb.SetGlobalBudgetRequest(tokens=10_000))
    a.safeguard.Allocate(pb.AllocateRequest(agent_id="jobs-res", tokens=1000))
    r = a.safeguard.Reserve(pb.ReserveRequest(agent_id="jobs-res", estimate=300, ttl=Duration(seconds=5)))
    assert r.granted
    trio.clock.advance(6)
    assert sum(trio.tick("reservation-expiry")) == 1
    assert sum(trio.tick("reservation-expiry")) == 0
    allocation = a.safeguard.GetAllocation(pb.GetAllocationRequest(agent_id="jobs-res")).allocation
    assert allocation.reserved == 0 and allocation.used == 0
