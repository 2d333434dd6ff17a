"""A sidecar that was paused past fleet.sidecar_timeout, on the in-memory adapters: its heartbeat finds out
and runs what must be re-asserted; its streams' rows come back unless a newer stream took them; lapsed
roles are given up; the freshness gate waits only for stale caches."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from server.adapters.memory.fleet import MemoryAttachments, MemoryJobClaims, MemorySidecars
from server.domain.fleet.sidecars import Sidecar
from server.services.fleet.attachments import AttachmentService
from server.services.fleet.freshness import CacheFreshness
from server.services.fleet.jobs import FleetJobs
from server.services.fleet.settings import FleetSettings
from server.services.fleet.sidecars import SidecarService
from tests.fakes import FakeClock

SETTINGS = FleetSettings(heartbeat_interval=1.0, sidecar_timeout=3.0)


def _sidecar(clock: FakeClock, repo: MemorySidecars, calls: list[str]) -> SidecarService:
    s = SidecarService(
        repo, clock, SETTINGS, "sc-a", on_resumed=[lambda: calls.append("caches"), lambda: calls.append("rows")]
    )
    s.register("127.0.0.1:1")
    return s


def test_a_heartbeat_on_time_is_not_a_resume() -> None:
    clock, calls = FakeClock(), list[str]()
    s = _sidecar(clock, MemorySidecars(), calls)
    for _ in range(5):
        clock.advance(1.0)
        assert s.heartbeat() is False
    assert calls == [] and s.resumes == 0


def test_a_pause_past_the_timeout_runs_every_reassertion_in_order() -> None:
    clock, calls = FakeClock(), list[str]()
    s = _sidecar(clock, MemorySidecars(), calls)
    clock.advance(30.0)  # SIGSTOP for 30 s: nothing ran meanwhile
    assert s.heartbeat() is True
    assert calls == ["caches", "rows"] and s.resumes == 1
    clock.advance(1.0)
    assert s.heartbeat() is False and calls == ["caches", "rows"]


def test_a_stored_heartbeat_older_than_the_timeout_is_a_resume_too() -> None:
    clock, calls, repo = FakeClock(), list[str](), MemorySidecars()
    s = _sidecar(clock, repo, calls)
    clock.advance(1.0)
    # Its last write never landed (cut off from the database, not paused): the others saw silence.
    repo.heartbeat("sc-a", clock.utcnow() - timedelta(seconds=10))
    assert s.heartbeat() is True and calls == ["caches", "rows"]


def test_a_forgotten_row_is_registered_again() -> None:
    clock, calls, repo = FakeClock(), list[str](), MemorySidecars()
    s = _sidecar(clock, repo, calls)
    del repo.rows["sc-a"]  # pruned while it was away
    clock.advance(1.0)
    assert s.heartbeat() is True and "sc-a" in repo.rows and repo.rows["sc-a"].listen == "127.0.0.1:1"


def test_a_failing_reassertion_is_tried_again_at_the_next_heartbeat() -> None:
    clock, repo = FakeClock(), MemorySidecars()
    attempts: list[int] = []

    def flaky() -> None:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("database unreachable")

    s = SidecarService(repo, clock, SETTINGS, "sc-a", on_resumed=[flaky])
    s.register("x")
    clock.advance(30.0)
    assert s.heartbeat() is True
    clock.advance(1.0)
    assert s.heartbeat() is True and len(attempts) == 2
    clock.advance(1.0)
    assert s.heartbeat() is False


def test_released_rows_come_back_and_a_newer_stream_elsewhere_wins() -> None:
    clock = FakeClock()
    sidecars = MemorySidecars()
    for sid in ("sc-a", "sc-b"):
        sidecars.register(Sidecar(sid, "h", 1, "dev", "x", clock.utcnow(), clock.utcnow()))
    repo = MemoryAttachments(sidecars)
    a = AttachmentService(repo, clock, SETTINGS, "sc-a")
    b = AttachmentService(repo, clock, SETTINGS, "sc-b")
    a.attached("p", "att-p", clock.utcnow())
    a.attached("q", "att-q", clock.utcnow())
    clock.advance(10.0)  # A is paused; B beats and releases A's rows
    sidecars.heartbeat("sc-b", clock.utcnow())
    assert b.release_gone() == 2 and a.owner("p") is None
    b.attached("q", "att-q2", clock.utcnow())  # q attached again on B meanwhile
    sidecars.heartbeat("sc-a", clock.utcnow())
    superseded = a.reassert(
        [("p", "att-p", clock.utcnow(), clock.utcnow()), ("q", "att-q", clock.utcnow(), clock.utcnow())]
    )
    assert superseded == ["q"]
    owner_p, owner_q = a.owner("p"), a.owner("q")
    assert owner_p is not None and owner_p[0].sidecar_id == "sc-a" and owner_p[1]
    assert owner_q is not None and owner_q[0].attachment_id == "att-q2"


def test_a_sidecar_never_releases_its_own_rows() -> None:
    clock = FakeClock()
    sidecars = MemorySidecars()
    sidecars.register(Sidecar("sc-a", "h", 1, "dev", "x", clock.utcnow(), clock.utcnow()))
    a = AttachmentService(MemoryAttachments(sidecars), clock, SETTINGS, "sc-a")
    a.attached("p", "att-p", clock.utcnow())
    clock.advance(10.0)  # resumed, before its own heartbeat landed
    assert a.release_gone() == 0 and a.owner("p") is not None


def test_lapsed_roles_are_given_up() -> None:
    clock = FakeClock()
    jobs = FleetJobs(MemoryJobClaims(), clock, "sc-a")
    assert jobs.hold("monitor", 3.0) and jobs.holds("monitor")
    assert jobs.drop_lapsed() == []
    clock.advance(10.0)
    assert jobs.drop_lapsed() == ["monitor"] and not jobs.holds("monitor")


class _Feed:
    def __init__(self, stale: bool) -> None:
        self.is_stale, self.asked = stale, 0

    def stale(self, max_age: float) -> bool:
        return self.is_stale

    def ensure_fresh(self, max_age: float, timeout: float) -> bool:
        self.asked += 1
        self.is_stale = False
        return True


def test_the_gate_waits_once_for_stale_caches_and_not_for_fresh_ones() -> None:
    fresh, stale = _Feed(False), _Feed(True)

    async def run() -> None:
        await CacheFreshness(fresh, SETTINGS).ensure()  # type: ignore[arg-type]
        gate = CacheFreshness(stale, SETTINGS)  # type: ignore[arg-type]
        await asyncio.gather(*(gate.ensure() for _ in range(20)))

    asyncio.run(run())
    assert fresh.asked == 0 and stale.asked == 1
