"""Abandoned approval requests (ApprovalService.attend / cancel_abandoned): the request whose last waiting
CheckAction went away is marked, a re-attach clears the mark, and a mark older than approvals.abandoned_after
cancels the request. On the in-memory repositories through the composition root, with a clock moved by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from server.bootstrap import build_services
from server.config import Config
from server.container import Services
from server.domain.approvals import requests as rules
from server.domain.approvals.requests import Approval, ApprovalState, Reviewer
from server.telemetry.settings import TelemetrySettings
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore

AFTER = 60.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def services(tmp_path: Path, clock: FakeClock) -> Iterator[Services]:
    config = Config(
        data_dir=tmp_path / "never-used",
        console_enabled=False,
        telemetry=TelemetrySettings(enabled=False, metrics=False),
        approvals_abandoned_after=AFTER,
    )
    s = build_services(config, repos=MemoryStore().repositories(), clock=clock)
    s.chain.add_guardrail("review", "hitl", {"patterns": ["deploy"]})
    yield s
    s.close()


async def _until(cond: object, what: str) -> None:
    for _ in range(2000):
        if callable(cond) and cond():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never: {what}")


def _stored(s: Services, approval_id: str) -> Approval:
    return s.approvals.get(approval_id)


def _only_pending(s: Services, agent: str) -> Approval:
    [a] = [a for a in s.approvals.pending() if a.agent_id == agent]
    return a


async def _waiting(s: Services, agent: str, request_id: str) -> tuple[asyncio.Task[object], str]:
    """A blocking CheckAction of `agent`, once it waits on its request."""
    task: asyncio.Task[object] = asyncio.create_task(s.checks.check_action(agent, "deploy", {}, {}, request_id))
    await _until(lambda: any(a.agent_id == agent for a in s.approvals.pending()), "the request")
    approval_id = _only_pending(s, agent).approval_id
    await _until(lambda: s.approvals.held(approval_id) > 0, "a waiter")
    return task, approval_id


async def _cancel(task: asyncio.Task[object]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_the_last_waiter_gone_marks_the_request_and_abandoned_after_cancels_it(
    services: Services, clock: FakeClock
) -> None:
    s = services

    async def scenario() -> str:
        task, approval_id = await _waiting(s, "a1", "r-1")
        assert s.approvals.attend() == 0  # someone waits: nothing to mark
        await _cancel(task)
        assert s.approvals.attend() == 1
        return approval_id

    approval_id = asyncio.run(scenario())
    marked = _stored(s, approval_id)
    assert marked.state is ApprovalState.PENDING and marked.abandoned_at == clock.utcnow()
    clock.advance(AFTER - 1)
    assert s.approvals.cancel_abandoned() == 0  # not yet
    clock.advance(1)
    assert s.approvals.cancel_abandoned() == 1
    done = _stored(s, approval_id)
    assert (done.state, done.decided_by, done.comment) == (ApprovalState.CANCELLED, "system", rules.ABANDONED)
    assert rules.block_reason(done) == "Approval cancelled by system: nobody waits for it any more"
    assert s.approvals.cancel_abandoned() == 0  # once


def test_a_re_attach_within_the_window_clears_the_mark_and_gets_the_decision(
    services: Services, clock: FakeClock
) -> None:
    s = services

    async def scenario() -> None:
        task, approval_id = await _waiting(s, "a2", "r-2")
        await _cancel(task)
        s.approvals.attend()
        assert _stored(s, approval_id).abandoned_at is not None
        clock.advance(AFTER - 1)
        again, same = await _waiting(s, "a2", "r-2")
        assert same == approval_id and _stored(s, approval_id).abandoned_at is None
        clock.advance(AFTER * 2)
        assert s.approvals.cancel_abandoned() == 0
        s.approvals.decide(approval_id, Reviewer("alice", "approver"), True, "ok")
        checked = await asyncio.wait_for(again, 30)
        assert checked.verdict.allowed and checked.approval.approval_id == approval_id  # type: ignore[attr-defined]

    asyncio.run(scenario())


def test_a_request_with_two_waiters_is_marked_only_when_both_are_gone(services: Services) -> None:
    s = services

    async def scenario() -> None:
        first, approval_id = await _waiting(s, "a3", "r-3")
        second = asyncio.create_task(s.checks.check_action("a3", "deploy", {}, {}, "r-3"))  # a stream and a re-send
        await _until(lambda: s.approvals.held(approval_id) == 2, "two waiters")
        await _cancel(first)
        assert s.approvals.attend() == 0 and _stored(s, approval_id).abandoned_at is None
        await _cancel(second)
        assert s.approvals.attend() == 1

    asyncio.run(scenario())


def test_a_waiter_that_leaves_and_comes_back_before_the_tick_marks_nothing(services: Services) -> None:
    s = services

    async def scenario() -> None:
        task, approval_id = await _waiting(s, "a4", "r-4")
        await _cancel(task)
        back, _ = await _waiting(s, "a4", "r-4")
        assert s.approvals.attend() == 0 and _stored(s, approval_id).abandoned_at is None
        await _cancel(back)

    asyncio.run(scenario())


def test_a_stale_mark_on_a_request_waited_on_here_is_cleared_never_cancelled(
    services: Services, clock: FakeClock
) -> None:
    """Another sidecar's waiter left after this one re-attached: its mark must not cancel what this one serves."""
    s = services
    repo = s.approvals.repo

    async def scenario() -> None:
        task, approval_id = await _waiting(s, "a5", "r-5")
        repo.mark_abandoned([approval_id], clock.utcnow())  # written by "sidecar A"
        clock.advance(s.approvals.reassert_every)
        s.approvals.attend()  # this sidecar's periodic clear
        assert _stored(s, approval_id).abandoned_at is None
        repo.mark_abandoned([approval_id], clock.utcnow())
        clock.advance(AFTER)
        assert s.approvals.cancel_abandoned() == 0  # the job here knows a call waits on it
        assert _stored(s, approval_id).state is ApprovalState.PENDING
        assert _stored(s, approval_id).abandoned_at is None
        await _cancel(task)

    asyncio.run(scenario())


def test_a_non_blocking_check_is_never_marked(services: Services, clock: FakeClock) -> None:
    s = services
    pending = asyncio.run(s.checks.check_action("a6", "deploy", {}, {}, "r-6", wait=False))
    assert pending.approval is not None
    s.approvals.attend()
    clock.advance(AFTER * 10)
    assert s.approvals.cancel_abandoned() == 0
    assert _stored(s, pending.approval.approval_id).state is ApprovalState.PENDING


def test_the_cancel_is_conditional_on_the_mark_a_re_attach_in_between_wins(
    services: Services, clock: FakeClock
) -> None:
    s = services
    repo = s.approvals.repo

    async def scenario() -> str:
        task, approval_id = await _waiting(s, "a7", "r-7")
        await _cancel(task)
        s.approvals.attend()
        return approval_id

    approval_id = asyncio.run(scenario())
    clock.advance(AFTER)
    cutoff = clock.utcnow() - timedelta(seconds=AFTER)
    [read] = [a for a in repo.abandoned(cutoff) if a.approval_id == approval_id]  # the job read it ...
    repo.clear_abandoned([approval_id])  # ... a re-attach committed ...
    cancelled = rules.abandoned_cancel(read, clock.utcnow(), AFTER)
    assert cancelled is not None
    assert not repo.cancel_abandoned(cancelled, read.version, cutoff)  # ... and the job's write does nothing
    assert _stored(s, approval_id).state is ApprovalState.PENDING
    # A decision's whole-row write from an older read never brings a cleared mark back.
    repo.mark_abandoned([approval_id], clock.utcnow())
    old = _stored(s, approval_id)
    repo.clear_abandoned([approval_id])
    assert repo.update(replace(old, stage=1, version=old.version + 1), old.version)
    assert _stored(s, approval_id).abandoned_at is None


def test_a_killed_agents_waiter_is_answered_not_marked(services: Services) -> None:
    s = services

    async def scenario() -> None:
        task, approval_id = await _waiting(s, "a8", "r-8")
        s.approvals.cancel(approval_id, "operator:ops", "kill")
        await asyncio.wait_for(task, 30)
        assert s.approvals.attend() == 0

    asyncio.run(scenario())


def test_a_non_blocking_re_send_clears_the_mark_too(services: Services, clock: FakeClock) -> None:
    s = services

    async def scenario() -> str:
        task, approval_id = await _waiting(s, "a9", "r-9")
        await _cancel(task)
        s.approvals.attend()
        assert _stored(s, approval_id).abandoned_at is not None
        polled = await s.checks.check_action("a9", "deploy", {}, {}, "r-9", wait=False)
        assert polled.approval is not None and polled.approval.approval_id == approval_id
        return approval_id

    approval_id = asyncio.run(scenario())
    assert _stored(s, approval_id).abandoned_at is None
    clock.advance(AFTER * 2)
    assert s.approvals.cancel_abandoned() == 0
