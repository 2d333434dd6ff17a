"""Attachments on the in-memory repositories: newest stream wins, detach only forgets its own stream, a
sidecar whose heartbeat lapsed holds nothing (the same rules the PostgreSQL tables follow)."""

from __future__ import annotations

from server.adapters.memory.fleet import MemoryAttachments, MemorySidecars
from server.domain.fleet.sidecars import Sidecar
from server.services.fleet.attachments import AttachmentService
from server.services.fleet.settings import FleetSettings
from tests.fakes import FakeClock


def _fleet(clock: FakeClock) -> tuple[MemorySidecars, AttachmentService, AttachmentService]:
    sidecars = MemorySidecars()
    for sid in ("sc-a", "sc-b"):
        sidecars.register(Sidecar(sid, "h", 1, "dev", "x", clock.utcnow(), clock.utcnow()))
    repo = MemoryAttachments(sidecars)
    settings = FleetSettings(heartbeat_interval=1.0, sidecar_timeout=3.0)
    return sidecars, AttachmentService(repo, clock, settings, "sc-a"), AttachmentService(repo, clock, settings, "sc-b")


def test_the_newest_stream_wins_and_an_old_detach_does_not_forget_it() -> None:
    clock = FakeClock()
    _, a, b = _fleet(clock)
    a.attached("x", "att-1", clock.utcnow())
    assert a.owner("x") is not None and a.owner("x")[0].sidecar_id == "sc-a"  # type: ignore[index]
    b.attached("x", "att-2", clock.utcnow())
    a.detached("x", "att-1")  # the old stream on A ends after the agent attached to B
    owner = a.owner("x")
    assert owner is not None and owner[0].sidecar_id == "sc-b" and owner[1]
    b.detached("x", "att-2")
    assert a.owner("x") is None


def test_a_silent_sidecar_is_absent_and_its_rows_are_released() -> None:
    clock = FakeClock()
    sidecars, a, b = _fleet(clock)
    b.attached("y", "att-3", clock.utcnow())
    clock.advance(2.0)
    sidecars.heartbeat("sc-a", clock.utcnow())
    assert a.owner("y") == (b.repo.all()[0], True)  # B's heartbeat is 2 s old: still present
    clock.advance(2.0)
    sidecars.heartbeat("sc-a", clock.utcnow())
    owner = a.owner("y")
    assert owner is not None and not owner[1]  # 4 s without a heartbeat: absent, the row still there
    assert a.heartbeat({}) == 1 and a.owner("y") is None


def test_last_seen_is_stamped_only_for_the_own_agents() -> None:
    clock = FakeClock()
    _, a, b = _fleet(clock)
    a.attached("p", "att-4", clock.utcnow())
    b.attached("q", "att-5", clock.utcnow())
    clock.advance(1.0)
    a.heartbeat({"p": clock.utcnow(), "q": clock.utcnow()})
    seen = {x.agent_id: x.last_seen_time for x in a.all()}
    assert seen["p"] == clock.utcnow() and seen["q"] < clock.utcnow()
