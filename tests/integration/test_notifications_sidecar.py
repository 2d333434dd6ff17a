"""Notifications through a real sidecar: a hitl guardrail's request and decision, a kill and a breaker
reach a signing webhook receiver; a SIGKILL mid-delivery, then a restart: delivered once."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from outrider.v1 import common_pb2
from outrider.v1 import recovery_pb2 as r
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import supervisor_service_pb2 as pb
from server.services.notifications.settings import parse_notifications
from server.services.recovery.feature import RecoverySettings

from .harness import RunningSidecar, make_config
from .receivers import HttpReceiver, wait_until
from .rpc import check, guardrail
from .test_process import Proc

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    rec = HttpReceiver(secret=SECRET)
    yield rec
    rec.close()


def _types(rec: HttpReceiver) -> list[str]:
    return sorted(x.json["type"] for x in rec.delivered())


def test_events_reach_the_webhook_through_a_running_sidecar(
    tmp_path: Path, db_url: str, receiver: HttpReceiver
) -> None:
    settings = parse_notifications(
        {
            "channels": [{"name": "hooks", "kind": "webhook", "url": receiver.url(), "secret": SECRET}],
            "routes": {"approval.decided": ["hooks"], "kill.completed": ["hooks"], "breaker.opened": ["hooks"]},
            "poll_interval": "200ms",
        },
        env={},
    )
    config = make_config(
        tmp_path,
        db_url=db_url,
        notifications=settings,
        console_public_url="https://console.example",
        recovery=replace(RecoverySettings(), callback_timeout=0.2),
    )
    with RunningSidecar(config) as s:
        s.stub.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="agent-1", group="g")))
        s.stub.AddGuardrail(guardrail("deploys", "hitl", patterns=["deploy"], notify=["hooks"]))
        fut = s.stub.CheckAction.future(check(action="deploy", context={"token": "sk-1", "env": "prod"}))
        wait_until(lambda: _types(receiver) == ["approval.created"])
        created = receiver.delivered()[0].json
        assert created["data"]["context"] == {"env": "prod", "token": "***"}
        approval_id = created["subject"]
        assert created["link"] == f"https://console.example/approvals/{approval_id}"
        s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=approval_id, approve=True, comment="go"))
        assert fut.result(10).allowed
        wait_until(lambda: "approval.decided" in _types(receiver))

        s.services.breakers.trip("agent-1:payments", "test")
        wait_until(lambda: "breaker.opened" in _types(receiver))
        s.recovery.Kill(rpb.KillRequest(agent_id="agent-1", reason=r.KILL_REASON_MANUAL), timeout=30)
        wait_until(lambda: "kill.completed" in _types(receiver))

        assert _types(receiver) == ["approval.created", "approval.decided", "breaker.opened", "kill.completed"]
        assert all(x.signature_ok for x in receiver.received)
        kill = next(x.json for x in receiver.delivered() if x.json["type"] == "kill.completed")
        assert kill["agent_id"] == "agent-1" and kill["data"]["reason"] == "MANUAL"


def _policy(tmp: Path, receiver: HttpReceiver) -> Path:
    cfg = tmp / "outrider.yaml"
    cfg.write_text(
        "notifications:\n"
        f"  channels: [{{name: hooks, kind: webhook, url: '{receiver.url()}', secret: '{SECRET}'}}]\n"
        "  poll_interval: 200ms\n"
        "guardrails:\n"
        "  - {name: deploys, kind: hitl, patterns: [deploy], notify: [hooks]}\n"
    )
    return cfg


def test_sigkill_between_the_event_and_its_delivery_then_restart_delivers_once(
    tmp_path: Path, receiver: HttpReceiver
) -> None:
    # The receiver holds the first request open, and (when released) answers it 503: the sidecar is
    # killed while that delivery is in flight, before any receiver accepted the notification.
    receiver.hold.set()
    receiver.statuses = [503]
    cfg = _policy(tmp_path, receiver)
    p = Proc(tmp_path, config=cfg)
    future: Any = p.stub.CheckAction.future(check(action="deploy"))
    assert receiver.arrived.wait(30)
    assert p.close(signal.SIGKILL) == -signal.SIGKILL
    future.cancel()
    receiver.hold.clear()
    receiver.release.set()
    wait_until(lambda: len(receiver.received) == 1)
    assert receiver.delivered() == []

    p = Proc(tmp_path, config=cfg)
    try:
        wait_until(lambda: len(receiver.delivered()) == 1)
        [first, second] = receiver.received
        assert first.headers["webhook-id"] == second.headers["webhook-id"]
        assert second.json["type"] == "approval.created" and second.signature_ok
    finally:
        code = p.close()
    assert code == 0
    assert len(receiver.delivered()) == 1  # and no second copy after a clean stop either
    listing = _cli_list(tmp_path)
    assert "approval.created" in listing and "DELIVERED" in listing and "x2" in listing


def _cli_list(tmp: Path) -> str:
    from .test_process import cli

    result = cli(tmp, "notifications", "list")
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_deliveries_and_the_outbox_are_metrics(tmp_path: Path, receiver: HttpReceiver) -> None:
    from server.telemetry.settings import TelemetrySettings
    from tests.fakes import FakeClock

    from .test_metrics import get, parse, value

    clock = FakeClock()
    receiver.statuses = [503]
    settings = parse_notifications(
        {"channels": [{"name": "hooks", "kind": "webhook", "url": receiver.url(), "secret": SECRET}]}, env={}
    )
    config = make_config(tmp_path, notifications=settings, telemetry=TelemetrySettings(metrics_listen="127.0.0.1:0"))
    with RunningSidecar(config, clock=clock, with_scheduler=False) as s:
        s.stub.AddGuardrail(guardrail("deploys", "hitl", patterns=["deploy"], notify=["hooks"]))
        s.stub.CheckAction(check(action="deploy", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
        outbox = s.services.notifications
        assert outbox.deliver_due() == 1
        pending = parse(get(s.services.health["metrics_url"])[0])[0]
        clock.advance(60)
        assert outbox.deliver_due() == 1
        series = parse(get(s.services.health["metrics_url"])[0])[0]
    assert value(pending, "outrider_notifications_outbox", state="pending") == 1
    assert value(series, "outrider_notification_attempts_total", channel="hooks", outcome="retry") == 1
    assert value(series, "outrider_notification_attempts_total", channel="hooks", outcome="delivered") == 1
    assert value(series, "outrider_notifications_outbox", state="delivered") == 1
    assert value(series, "outrider_notifications_outbox", state="pending") == 0


def test_a_hanging_channel_never_slows_checkaction_or_a_decision(tmp_path: Path, receiver: HttpReceiver) -> None:
    receiver.hold.set()  # the receiver takes every request and answers none (until the test ends)
    settings = parse_notifications(
        {
            "channels": [
                {"name": "hooks", "kind": "webhook", "url": receiver.url(), "secret": SECRET, "timeout": "600s"}
            ],
            "routes": {"approval.decided": ["hooks"]},
            "poll_interval": "100ms",
        },
        env={},
    )
    with RunningSidecar(make_config(tmp_path, notifications=settings)) as s:
        s.stub.AddGuardrail(guardrail("deploys", "hitl", patterns=["deploy"], notify=["hooks"]))
        first = s.stub.CheckAction(check(action="deploy", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
        assert receiver.arrived.wait(30)  # the worker is now stuck sending approval.created
        # The receiver answers nothing until the test ends and the channel waits 600 s for it: each of the 41
        # calls answering within its own 30 s deadline proves none of them waited on the channel.
        try:
            for i in range(20):
                assert s.stub.CheckAction(check(action=f"read-{i}"), timeout=30).allowed
                s.stub.CheckAction(check(action=f"deploy-{i}", wait_mode=pb.WAIT_MODE_NON_BLOCKING), timeout=30)
            s.stub.DecideApproval(
                pb.DecideApprovalRequest(approval_id=first.approval.approval_id, approve=True), timeout=30
            )
        finally:
            receiver.release.set()


def test_two_sidecars_on_one_postgresql_deliver_each_notification_once(
    tmp_path: Path, db_url: str, receiver: HttpReceiver
) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("several sidecars share a database only on PostgreSQL")
    settings = parse_notifications(
        {
            "channels": [{"name": "hooks", "kind": "webhook", "url": receiver.url(), "secret": SECRET}],
            "poll_interval": "50ms",
        },
        env={},
    )
    key = tmp_path / "audit.key"
    with (
        # A fleet shares one audit key (docs/security.md): another key on the database refuses to start.
        RunningSidecar(make_config(tmp_path / "a", db_url=db_url, notifications=settings, audit_key_file=key)) as a,
        RunningSidecar(make_config(tmp_path / "b", db_url=db_url, notifications=settings, audit_key_file=key)) as b,
    ):
        a.stub.AddGuardrail(guardrail("deploys", "hitl", patterns=["deploy"], notify=["hooks"]))
        for i in range(30):
            target = a if i % 2 else b
            target.services.chain.load()  # b sees the guardrail a added (its chain cache is polled otherwise)
            target.stub.CheckAction(check(action=f"deploy-{i}", wait_mode=pb.WAIT_MODE_NON_BLOCKING))
        wait_until(lambda: len(receiver.delivered()) >= 30)
        ids = [x.json["id"] for x in receiver.delivered()]
        assert len(ids) == 30 and len(set(ids)) == 30
        assert len({x.json["subject"] for x in receiver.delivered()}) == 30  # one per request
