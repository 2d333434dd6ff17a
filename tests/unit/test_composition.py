"""The composition root on in-memory repositories, a fake clock and fake probes: every use case wired as in
production, no database and no network (cosmicpython's bootstrap-with-fakes)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.bootstrap import build_services
from server.config import Config
from server.container import Services
from server.domain.approvals.requests import ApprovalState, Reviewer
from server.domain.audit import verify_chain
from server.domain.guardrails import Severity
from server.domain.guardrails.decisions import DecisionFilter
from server.domain.recovery.kill import KillReason
from server.domain.safeguards.leases import IsolationKey, LeaseState, Scope
from server.telemetry.settings import TelemetrySettings
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore


class FakeProbes:
    """The outbound grpc/http probes: answers set by the test, calls counted."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.healthy = True

    async def grpc(self, target: str, service: str, timeout: float) -> tuple[bool, str]:
        self.calls.append(f"grpc {target}")
        return self.healthy, "" if self.healthy else "grpc NOT_SERVING"

    async def http(self, url: str, timeout: float) -> tuple[bool, str]:
        self.calls.append(f"http {url}")
        return self.healthy, "" if self.healthy else "HTTP 503"


def _config(tmp_path: Path) -> Config:
    return Config(
        data_dir=tmp_path / "never-used",
        console_enabled=False,
        telemetry=TelemetrySettings(enabled=False, metrics=False),
    )


def _build(store: MemoryStore, tmp_path: Path, clock: FakeClock, probes: FakeProbes | None = None) -> Services:
    return build_services(_config(tmp_path), repos=store.repositories(), clock=clock, probes=probes or FakeProbes())


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def services(store: MemoryStore, tmp_path: Path, clock: FakeClock) -> Iterator[Services]:
    s = _build(store, tmp_path, clock)
    yield s
    s.close()


def test_nothing_touches_a_database(services: Services, tmp_path: Path) -> None:
    assert not (tmp_path / "never-used").exists()


def test_the_chain_blocks_and_allows_on_fakes(services: Services) -> None:
    services.agents.register("intern-1", "interns", [], {})
    services.chain.add_guardrail("no-shell", "action_list", {"deny": ["shell.*"], "groups": ["interns"]})
    blocked = asyncio.run(services.checks.check_action("intern-1", "shell.exec", {}, {}, "r1"))
    assert not blocked.verdict.allowed and blocked.verdict.guardrail == "no-shell"
    assert blocked.verdict.severity is Severity.BLOCK
    allowed = asyncio.run(services.checks.check_action("intern-1", "read.file", {}, {}, "r2"))
    assert allowed.verdict.allowed
    assert services.decisions.flush(10)
    page = services.decisions.list(DecisionFilter(agent_id="intern-1"), 10, "")
    assert [d.allowed for d in page.items] == [True, False]  # newest first


def test_an_approval_round_on_fakes(services: Services) -> None:
    services.chain.add_guardrail("review", "hitl", {"patterns": ["deploy"]})
    pending = asyncio.run(services.checks.check_action("a1", "deploy web", {"v": 1}, {}, "req-1", wait=False))
    assert not pending.verdict.allowed and pending.approval is not None
    assert pending.approval.state is ApprovalState.PENDING
    services.approvals.decide(pending.approval.approval_id, Reviewer("alice", "approver"), True, "ok")
    again = asyncio.run(services.checks.check_action("a1", "deploy web", {"v": 1}, {}, "req-1"))
    assert again.verdict.allowed and again.verdict.reason == "Approved by alice"


def test_state_survives_a_rebuild_on_the_same_store(store: MemoryStore, tmp_path: Path, clock: FakeClock) -> None:
    first = _build(store, tmp_path, clock)
    first.agents.register("w1", "workers", ["read"], {"owner": "ops"})
    first.chain.add_guardrail("cap", "cost_cap", {"max": 10})
    first.budgets.allocate("w1", 1000)
    first.budgets.consume("w1", 250, "c1")
    first.close()
    second = _build(store, tmp_path, clock)
    try:
        assert [g.name for g in second.chain.list_guardrails()] == ["cap"]
        assert second.agents.get("w1").group == "workers"
        assert second.budgets.get("w1").allocated == 1000
        assert second.budgets.remaining("w1") == 750
        verdict = verify_chain(store.audit.iter_all())
        assert verdict.ok and store.audit.count() > 0
    finally:
        second.close()


def test_a_kill_on_fakes_cancels_approvals_and_revokes_leases(services: Services) -> None:
    async def scenario() -> None:
        services.recovery.start(asyncio.get_running_loop())
        services.agents.register("doomed", "workers", [], {})
        services.chain.add_guardrail("review", "hitl", {"patterns": ["deploy"]})
        pending = await services.checks.check_action("doomed", "deploy", {}, {}, "req-k", wait=False)
        assert pending.approval is not None
        lease, _ = await services.leases.acquire(IsolationKey(Scope.AGENT, "doomed"), "doomed", 60.0)
        result = await services.recovery.kills.kill("doomed", "", KillReason.MANUAL, callback_timeout=0.01)
        assert result.cancelled_approval_count == 1
        assert result.revoked_lease_count == 1
        assert services.approvals.get(pending.approval.approval_id).state is ApprovalState.CANCELLED
        assert services.leases.get(lease.lease_id).state is not LeaseState.ACTIVE

    asyncio.run(scenario())


def test_health_checks_use_the_injected_probes(store: MemoryStore, tmp_path: Path, clock: FakeClock) -> None:
    from server.domain.recovery.health import CheckKind, new_check

    probes = FakeProbes()
    s = _build(store, tmp_path, clock, probes)
    try:
        s.agents.register("svc", "workers", [], {})
        s.recovery.health.add("svc", new_check(CheckKind.HTTP, url="http://svc.invalid/health", timeout=1.0))
        probes.healthy = False
        status = asyncio.run(s.recovery.health.run("svc"))
        assert not status.healthy and "503" in status.reason
        assert probes.calls == ["http http://svc.invalid/health"]
    finally:
        s.close()


def test_an_approval_round_writes_its_notifications_to_the_outbox(
    store: MemoryStore, tmp_path: Path, clock: FakeClock
) -> None:
    from dataclasses import replace

    from server.domain.notifications.delivery import NotificationFilter
    from server.services.notifications.settings import parse_notifications

    notifications = parse_notifications(
        {
            "channels": [{"name": "hooks", "kind": "webhook", "url": "http://127.0.0.1:9/x", "secret": "s"}],
            "routes": {"approval.decided": ["hooks"]},
        },
        env={},
    )
    config = replace(_config(tmp_path), notifications=notifications, console_public_url="https://c.example")
    services = build_services(config, repos=store.repositories(), clock=clock, probes=FakeProbes())
    try:
        services.chain.add_guardrail("review", "hitl", {"patterns": ["deploy"], "notify": ["hooks"]})
        pending = asyncio.run(services.checks.check_action("a1", "deploy web", {"v": 1}, {}, "req-1", wait=False))
        assert pending.approval is not None
        services.approvals.decide(pending.approval.approval_id, Reviewer("alice", "approver"), True, "ok")
        rows = services.notifications.list(NotificationFilter()).items
        assert sorted(r.kind for r in rows) == ["approval.created", "approval.decided"]
        assert {r.document["link"] for r in rows} == {f"https://c.example/approvals/{pending.approval.approval_id}"}
    finally:
        services.close()
