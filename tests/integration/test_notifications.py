"""The notification outbox on real storage (SQLite and PostgreSQL) with real local receivers: signed
webhooks with retries on a hand-moved clock, a Slack-shaped receiver, a real SMTP server, claims."""

from __future__ import annotations

import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from server.adapters.notifications import build_senders
from server.domain.approvals.requests import ApprovalState, Reviewer
from server.domain.guardrails.base import ActionCall, GuardrailSpec
from server.domain.guardrails.hitl import Hitl
from server.domain.notifications.delivery import DeliveryState, NotificationFilter
from server.domain.notifications.events import EventKind
from server.services.approvals.requests import ApprovalService
from server.services.audit import AuditTrail
from server.services.notifications.outbox import NotificationService
from server.services.notifications.planner import NotificationPlanner
from server.services.notifications.settings import NotificationSettings, parse_notifications
from server.services.recovery.agents import AgentService
from server.storage.approvals.repository import SqlApprovalRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine
from server.storage.notifications.repository import SqlNotificationRepository
from server.storage.supervisor.repository import SqlAgentRepository
from tests.fakes import FakeClock

from .receivers import HttpReceiver, SmtpReceiver, parts

ROOT = Path(__file__).resolve().parents[2]
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    r = HttpReceiver(secret=SECRET)
    yield r
    r.close()


class World:
    """The approval service and the notification service over one database, as bootstrap wires them."""

    def __init__(self, engine: Engine, clock: FakeClock, settings: NotificationSettings, public_url: str = "") -> None:
        self.clock = clock
        self.audit = AuditTrail(SqlAuditRepository(engine), clock, ["password"])
        self.planner = NotificationPlanner(settings.routes, public_url, ["password"], settings.context_keys)
        agents = AgentService(SqlAgentRepository(engine))
        agents.load()
        self.approvals = ApprovalService(
            SqlApprovalRepository(engine), clock, self.audit, agents, ["password"], notices=self.planner.for_approval
        )
        self.outbox = self.service(engine, settings)

    def service(self, engine: Engine, settings: NotificationSettings) -> NotificationService:
        return NotificationService(
            SqlNotificationRepository(engine),
            self.clock,
            settings,
            build_senders(settings.channels),
            self.planner,
            self.audit,
            pending_approvals=self.approvals.pending,
            jitter=lambda: 0.999999,
        )

    def ask(self, notify: list[str], action: str = "deploy", **options: Any) -> Any:
        hitl = Hitl(GuardrailSpec("deploys", "hitl", {"patterns": ["deploy"], "notify": notify, **options}))
        call = ActionCall("agent-1", action, {"env": "prod", "password": "hunter2"})
        return self.approvals.request(call, hitl, "", "", ())


def webhook_settings(url: str, **extra: Any) -> NotificationSettings:
    return parse_notifications(
        {"channels": [{"name": "hooks", "kind": "webhook", "url": url, "secret": SECRET}], **extra}, env={}
    )


def test_a_webhook_is_signed_retried_with_backoff_and_delivered_once(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock
) -> None:
    receiver.statuses = [500, 503]
    world = World(engine, clock, webhook_settings(receiver.url()), public_url="https://console.example")
    approval = world.ask(["hooks"])

    assert world.outbox.deliver_due() == 1  # first attempt: 500
    assert world.outbox.deliver_due() == 0  # not due again yet (backoff ~5 s)
    clock.advance(4.9)
    assert world.outbox.deliver_due() == 0
    clock.advance(0.2)
    assert world.outbox.deliver_due() == 1  # second attempt: 503, next in ~10 s
    clock.advance(9.9)
    assert world.outbox.deliver_due() == 0
    clock.advance(0.2)
    assert world.outbox.deliver_due() == 1  # third: 200
    clock.advance(3600)
    assert world.outbox.deliver_due() == 0  # delivered is done

    assert [r.status for r in receiver.received] == [500, 503, 200]
    assert all(r.signature_ok for r in receiver.received)
    ids = {r.headers["webhook-id"] for r in receiver.received}
    doc = receiver.delivered()[0].json
    assert ids == {doc["id"]}  # the same id on every retry: receivers de-duplicate by it
    assert doc["type"] == "approval.created" and doc["subject"] == approval.approval_id
    assert doc["link"] == f"https://console.example/approvals/{approval.approval_id}"
    assert doc["data"]["context"] == {"env": "prod", "password": "***"}
    [row] = world.outbox.list(NotificationFilter()).items
    assert row.state is DeliveryState.DELIVERED and row.attempts == 3 and row.last_error == ""


def test_a_channel_failing_for_ever_is_failed_after_the_retry_window(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock
) -> None:
    receiver.statuses = [503] * 1000
    world = World(engine, clock, webhook_settings(receiver.url(), retry_for="1h"))
    world.ask(["hooks"])
    for _ in range(40):
        world.outbox.deliver_due()
        clock.advance(600)
    [row] = world.outbox.list(NotificationFilter(state=DeliveryState.FAILED)).items
    assert row.last_error.startswith("HTTP 503") and 5 <= row.attempts <= 12
    assert world.outbox.counts()[DeliveryState.FAILED] == 1
    # An admin retries it: one more attempt, which now succeeds.
    receiver.statuses = []
    world.outbox.retry(row.notification_id, "reviewer:admin")
    assert world.outbox.deliver_due() == 1
    assert world.outbox.get(row.notification_id).state is DeliveryState.DELIVERED


def test_a_redirect_is_not_followed_nor_counted_as_delivered(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock
) -> None:
    receiver.statuses = [302]  # to /elsewhere, which would answer 200 to a GET
    world = World(engine, clock, webhook_settings(receiver.url()))
    world.ask(["hooks"])
    assert world.outbox.deliver_due() == 1
    assert [(r.path, r.status) for r in receiver.received] == [("/hook", 302)]
    [row] = world.outbox.list(NotificationFilter()).items
    assert row.state is DeliveryState.PENDING and "redirects are not followed" in row.last_error


def test_an_unknown_channel_fails_visibly_at_once(engine: Engine, receiver: HttpReceiver, clock: FakeClock) -> None:
    world = World(engine, clock, webhook_settings(receiver.url()))
    world.ask(["hooks", "slack-typo"])
    assert world.outbox.deliver_due() == 2
    failed = world.outbox.list(NotificationFilter(state=DeliveryState.FAILED)).items
    assert [(n.channel, n.last_error) for n in failed] == [
        ("slack-typo", "no channel named 'slack-typo' in notifications.channels")
    ]


def test_every_approval_event_reaches_its_channels_once(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock
) -> None:
    settings = webhook_settings(receiver.url(), routes={"approval.decided": ["hooks"]}, expiry_lead_time="5m")
    world = World(engine, clock, settings)
    esc = world.ask(["hooks"], timeout="10m", on_timeout="escalate", escalate_to=["bob"])
    decided = world.ask(["hooks"], action="deploy-2")
    # Writing the same event again adds nothing (the outbox is keyed by event and channel).
    world.outbox.repo.add(world.planner.for_approval(EventKind.APPROVAL_CREATED, decided, clock.utcnow()))
    world.approvals.decide(decided.approval_id, Reviewer("alice", "approver"), True, "ok")
    clock.advance(6 * 60)
    assert world.outbox.warn_expiring() == 1 and world.outbox.warn_expiring() == 0
    clock.advance(5 * 60)
    assert world.approvals.expire_due() == 1  # escalated to bob, another 10 minutes
    clock.advance(11 * 60)
    assert world.approvals.expire_due() == 1  # expired
    while world.outbox.deliver_due():
        pass
    got = sorted((r.json["subject"] == esc.approval_id, r.json["type"]) for r in receiver.delivered())
    assert got == [
        (False, "approval.created"),
        (False, "approval.decided"),
        (True, "approval.created"),
        (True, "approval.escalated"),
        (True, "approval.expired"),
        (True, "approval.expiring"),
    ]
    expired = world.approvals.get(esc.approval_id)
    assert expired.state is ApprovalState.EXPIRED


def test_slack_gets_block_kit_with_the_console_link(engine: Engine, clock: FakeClock) -> None:
    slack = HttpReceiver()
    try:
        settings = parse_notifications(
            {"channels": [{"name": "sl", "kind": "slack", "url": slack.url("/services/T/B/x")}]}, env={}
        )
        world = World(engine, clock, settings, public_url="https://console.example/")
        approval = world.ask(["sl"], action="deploy <!channel>")
        clock.advance(75)
        assert world.outbox.deliver_due() == 1
        [got] = slack.delivered()
        assert got.path == "/services/T/B/x" and "webhook-signature" not in got.headers
        msg = got.json
        assert msg["text"].startswith("Approval needed: deploy &lt;!channel&gt;")
        blocks = {b["type"]: b for b in reversed(msg["blocks"])}  # the first block of each type
        facts = " ".join(f["text"] for f in blocks["section"]["fields"])
        assert "*Agent*\nagent-1" in facts and "*Guardrail*\ndeploys" in facts and "*Waiting*\n0s" in facts
        assert "*Expires*\nnever" in facts
        assert blocks["actions"]["elements"][0]["url"] == f"https://console.example/approvals/{approval.approval_id}"
        assert "hunter2" not in got.body.decode() and "password: ***" in got.body.decode()
    finally:
        slack.close()


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ca")
    subprocess.run(["bash", str(ROOT / "scripts/make-test-ca.sh"), str(d)], check=True, capture_output=True)
    return d


def _email(port: int, **kw: Any) -> NotificationSettings:
    channel = {"name": "mail", "kind": "email", "host": "127.0.0.1", "port": port, "from": "outrider@example.com"}
    channel |= {"to": ["oncall@example.com", "lead@example.com"], **kw}
    return parse_notifications({"channels": [channel]}, env={})


@pytest.mark.parametrize("security", ["none", "starttls", "tls"])
def test_email_reaches_a_real_smtp_server(engine: Engine, clock: FakeClock, certs: Path, security: str) -> None:
    tls = None
    if security != "none":
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(certs / "server.pem", certs / "server.key")
    smtp = SmtpReceiver(tls=tls, implicit_tls=security == "tls", login=("outrider", "s3cret") if tls else None)
    try:
        extra: dict[str, Any] = {"security": security}
        if tls is not None:
            extra |= {"ca_file": str(certs / "ca.pem"), "username": "outrider", "password": "s3cret"}
        world = World(engine, clock, _email(smtp.port, **extra), public_url="https://console.example")
        approval = world.ask(["mail"], action="deploy <b>prod</b>")
        assert world.outbox.deliver_due() == 1
        [(envelope, message)] = smtp.messages
        assert envelope.rcpt_tos == ["oncall@example.com", "lead@example.com"]
        assert message["Subject"] == "Outrider: Approval needed: deploy <b>prod</b> by agent-1"
        bodies = dict(parts(message))
        link = f"https://console.example/approvals/{approval.approval_id}"
        assert link in bodies["text/plain"] and f'href="{link}"' in bodies["text/html"]
        assert "&lt;b&gt;prod&lt;/b&gt;" in bodies["text/html"] and "hunter2" not in str(bodies)
    finally:
        smtp.close()


def test_a_wrong_smtp_password_is_retried_not_lost(engine: Engine, clock: FakeClock, certs: Path) -> None:
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(certs / "server.pem", certs / "server.key")
    smtp = SmtpReceiver(tls=tls, login=("outrider", "s3cret"))
    try:
        settings = _email(
            smtp.port, security="starttls", ca_file=str(certs / "ca.pem"), username="outrider", password="wrong"
        )
        world = World(engine, clock, settings)
        world.ask(["mail"])
        assert world.outbox.deliver_due() == 1
        [row] = world.outbox.list(NotificationFilter()).items
        assert row.state is DeliveryState.PENDING and "login refused" in row.last_error and not smtp.messages
    finally:
        smtp.close()


def test_a_hanging_channel_does_not_hold_up_the_others(engine: Engine, clock: FakeClock) -> None:
    stuck, fine = HttpReceiver(), HttpReceiver()
    stuck.hold.set()
    try:
        settings = parse_notifications(
            {
                "channels": [
                    {"name": "stuck", "kind": "slack", "url": stuck.url(), "timeout": "30s"},
                    {"name": "fine", "kind": "slack", "url": fine.url()},
                ]
            },
            env={},
        )
        world = World(engine, clock, settings)
        world.ask(["stuck", "fine"])
        done = threading.Thread(target=world.outbox.deliver_due)
        done.start()
        assert stuck.arrived.wait(10)
        from .receivers import wait_until

        wait_until(lambda: len(fine.delivered()) == 1)  # while `stuck` still holds its request
        assert not stuck.received
        stuck.release.set()
        done.join(10)
        assert len(stuck.delivered()) == 1
    finally:
        stuck.close()
        fine.close()


def test_two_workers_on_one_database_deliver_each_notification_once(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock, db_url: str
) -> None:
    settings = webhook_settings(receiver.url())
    world = World(engine, clock, settings)
    for i in range(30):
        world.ask(["hooks"], action=f"deploy-{i}")
    other_engine = create_db_engine(db_url)  # a second sidecar: its own connections
    try:
        workers = [world.outbox, world.service(other_engine, settings)]
        claimed = [0, 0]

        def run(i: int) -> None:
            while n := workers[i].deliver_due(limit=3):
                claimed[i] += n

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        other_engine.dispose()
    ids = [r.json["id"] for r in receiver.delivered()]
    assert len(ids) == 30 and len(set(ids)) == 30
    assert sum(claimed) == 30
    assert world.outbox.counts()[DeliveryState.DELIVERED] == 30


def test_an_expired_claim_is_delivered_again_and_the_late_outcome_ignored(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock
) -> None:
    settings = replace(webhook_settings(receiver.url()), claim_timeout=30.0)
    world = World(engine, clock, settings)
    world.ask(["hooks"])
    repo = world.outbox.repo
    [dead] = repo.claim(clock.utcnow(), clock.utcnow() + timedelta(seconds=30), "w_dead", 10)  # then it "dies"
    assert world.outbox.deliver_due() == 0  # claimed: nobody else sends it meanwhile
    clock.advance(31)
    assert world.outbox.deliver_due() == 1
    assert len(receiver.delivered()) == 1
    from server.domain.notifications.delivery import after_success

    assert not repo.finish(after_success(dead, clock.utcnow()), "w_dead")  # the dead worker's late word
    [row] = world.outbox.list(NotificationFilter()).items
    assert row.state is DeliveryState.DELIVERED and row.attempts == 2


def test_old_delivered_and_failed_rows_are_pruned_pending_ones_kept(
    engine: Engine, receiver: HttpReceiver, clock: FakeClock
) -> None:
    receiver.statuses = [200, 410]
    world = World(engine, clock, replace(webhook_settings(receiver.url()), retention=3600.0))
    world.ask(["hooks"], action="deploy-1")
    world.ask(["hooks"], action="deploy-2")
    assert world.outbox.deliver_due() == 2  # one DELIVERED, one FAILED (410 is final)
    world.ask(["hooks"], action="deploy-3")  # PENDING: never pruned
    clock.advance(7200)
    assert world.outbox.prune() == 2
    [left] = world.outbox.list(NotificationFilter()).items
    assert left.state is DeliveryState.PENDING
