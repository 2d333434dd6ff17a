"""A CheckAction that asks a human while storage is unreachable waits for it within the call's deadline
(server/services/deadlines.py), then creates the request as usual; when storage stays away it fails
StorageUnavailable (UNAVAILABLE over gRPC), never a policy BLOCK. On the in-memory repositories through the
composition root, with a repository that fails while told to."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.bootstrap import build_services
from server.config import Config
from server.container import Services
from server.domain.approvals.requests import ApprovalState, Reviewer
from server.domain.errors import StorageUnavailable
from server.services.deadlines import call_deadline
from server.telemetry.settings import TelemetrySettings
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore


class Flaky:
    """The approvals repository, failing every call while `down` (as a stopped database does)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.down, self.refused = inner, False, 0

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.inner, name)
        if not callable(real):
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                self.refused += 1
                raise StorageUnavailable()
            return real(*args, **kwargs)

        return call


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    config = Config(
        data_dir=tmp_path / "never-used",
        console_enabled=False,
        telemetry=TelemetrySettings(enabled=False, metrics=False),
    )
    s = build_services(config, repos=MemoryStore().repositories(), clock=FakeClock())
    s.approvals.repo = Flaky(s.approvals.repo)
    s.chain.add_guardrail("review", "hitl", {"patterns": ["deploy"]})
    yield s
    s.close()


def test_an_approval_asked_while_storage_is_down_is_created_once_it_is_back(services: Services) -> None:
    flaky: Flaky = services.approvals.repo  # type: ignore[assignment]

    async def scenario() -> None:
        flaky.down = True
        with call_deadline(30.0):
            check = asyncio.create_task(services.checks.check_action("a1", "deploy web", {}, {}, "r-1"))
        while flaky.refused < 3:  # it keeps trying (with back-off) rather than answering at once
            await asyncio.sleep(0.01)
        assert not check.done()
        flaky.down = False
        while not services.approvals.pending():
            await asyncio.sleep(0.01)
        [pending] = services.approvals.pending()
        services.approvals.decide(pending.approval_id, Reviewer("alice", "approver"), True, "ok")
        # The scheduler's poll (every 250 ms in a sidecar) delivers a decision made between the waiting call's
        # read and its registration; this test runs no scheduler, so it polls itself.
        deadline = asyncio.get_running_loop().time() + 30
        while not check.done() and asyncio.get_running_loop().time() < deadline:
            services.approvals.poll()
            await asyncio.sleep(0.05)
        checked = await asyncio.wait_for(check, 1)
        assert checked.verdict.allowed and checked.verdict.reason == "Approved by alice"
        assert checked.approval is not None and checked.approval.approval_id == pending.approval_id

    asyncio.run(scenario())


def test_storage_still_down_near_the_deadline_fails_unavailable_not_a_block(services: Services) -> None:
    flaky: Flaky = services.approvals.repo  # type: ignore[assignment]
    flaky.down = True

    async def scenario() -> None:
        with call_deadline(0.6), pytest.raises(StorageUnavailable):
            await services.checks.check_action("a2", "deploy web", {}, {}, "r-2")

    asyncio.run(scenario())
    assert flaky.refused >= 2  # retried before giving up
    flaky.down = False
    assert not [a for a in services.approvals.pending() if a.state is ApprovalState.PENDING]
