"""Notification rules: Standard Webhooks signatures, retry timing, routing, summaries, rendering, config."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.adapters.notifications.render import email_bodies, slack_message
from server.domain.approvals.requests import Approval, ApprovalPolicy, ApprovalState
from server.domain.errors import InvalidArgument
from server.domain.notifications import signing
from server.domain.notifications.delivery import DeliveryState, Notification, RetryPolicy, after_failure
from server.domain.notifications.events import EventKind, event_id, summarize
from server.domain.notifications.routing import Routes
from server.services.notifications.planner import NotificationPlanner
from server.services.notifications.settings import parse_notifications

T0 = datetime(2026, 1, 1, tzinfo=UTC)


# ---- signatures --------------------------------------------------------------------------------


def test_signature_matches_the_standard_webhooks_reference_vector() -> None:
    # The example from the Standard Webhooks specification's reference libraries.
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    got = signing.sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
    assert got == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_verify_accepts_the_signed_request_and_refuses_tampering_and_stale_timestamps() -> None:
    secret, body = "plain-secret", b'{"a":1}'
    h = signing.headers(secret, "evt_1", 1_000_000, body)
    assert signing.verify(secret, h, body, now=1_000_010)
    assert not signing.verify(secret, h, b'{"a":2}', now=1_000_010)  # body changed
    assert not signing.verify("other", h, body, now=1_000_010)  # wrong secret
    assert not signing.verify(secret, {**h, "webhook-id": "evt_2"}, body, now=1_000_010)  # replayed under another id
    assert not signing.verify(secret, h, body, now=1_000_000 + signing.TOLERANCE + 1)  # too old


def test_a_whsec_secret_must_be_base64() -> None:
    with pytest.raises(ValueError, match="base64"):
        signing.key_of("whsec_not base64!")


# ---- retries -----------------------------------------------------------------------------------


def _row(**kw: object) -> Notification:
    base: dict[str, object] = {
        "notification_id": "ntf_1",
        "event_id": "evt_1",
        "kind": "kill.completed",
        "channel": "hooks",
        "agent_id": "a",
        "subject": "k",
        "document": {},
        "create_time": T0,
        "next_attempt_time": T0,
    }
    return Notification(**(base | kw))  # type: ignore[arg-type]


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    p = RetryPolicy(initial=5, max_delay=60, give_up_after=86400)
    assert [p.delay(n, 0.999999) for n in (1, 2, 3)] == pytest.approx([5, 10, 20], rel=1e-5)
    assert p.delay(1, 0.0) == 2.5  # jitter halves at most
    assert p.delay(50, 1.0) == 60  # capped
    assert p.delay(10**9, 1.0) == 60  # no overflow


def test_a_failure_is_retried_until_the_window_is_spent_then_final() -> None:
    p = RetryPolicy(initial=5, max_delay=3600, give_up_after=86400)
    again = after_failure(_row(attempts=1), "HTTP 503", T0, p, 0.5)
    assert again.state is DeliveryState.PENDING and again.next_attempt_time == T0 + timedelta(seconds=3.75)
    late = after_failure(_row(attempts=30), "HTTP 503", T0 + timedelta(hours=23, minutes=30), p, 0.5)
    assert late.state is DeliveryState.FAILED and late.last_error == "HTTP 503"
    assert after_failure(_row(attempts=1), "gone", T0, p, 0.5, final=True).state is DeliveryState.FAILED


# ---- routing and planning ----------------------------------------------------------------------


def _approval(**kw: object) -> Approval:
    base: dict[str, object] = {
        "approval_id": "apr_1",
        "agent_id": "deployer",
        "action": "deploy",
        "context": {"env": "prod", "api_key": "sk-live-123", "note": "x" * 500},
        "guardrail": "deploys",
        "request_id": "",
        "trace_id": "",
        "digest": "d",
        "state": ApprovalState.PENDING,
        "create_time": T0,
        "policy": ApprovalPolicy(approvers=("group:sre",), notify=("slack", "slack", "mail")),
        "owner": "team-a",
        "approvers": ("group:sre", "alice"),
        "expire_time": T0 + timedelta(minutes=30),
    }
    return Approval(**(base | kw))  # type: ignore[arg-type]


ROUTES = Routes(
    events={EventKind.APPROVAL_CREATED: ("hooks", "slack"), EventKind.APPROVAL_DECIDED: ("hooks",)},
    groups={"sre": ("pager",)},
    owners={"team-a": ("team-a-chat",)},
)


def test_each_channel_hears_of_an_event_once() -> None:
    a = _approval()
    got = ROUTES.channels(EventKind.APPROVAL_CREATED, notify=a.policy.notify, approvers=a.approvers, owner=a.owner)
    assert got == ("hooks", "slack", "mail", "pager")


def test_a_decision_goes_to_the_requesters_channels_not_the_reviewers() -> None:
    got = ROUTES.channels(EventKind.APPROVAL_DECIDED, notify=("slack",), approvers=("group:sre",), owner="team-a")
    assert got == ("hooks", "team-a-chat")
    assert ROUTES.channels(EventKind.KILL_COMPLETED, notify=("slack",)) == ()


def test_the_plan_masks_and_limits_what_leaves_the_host() -> None:
    planner = NotificationPlanner(ROUTES, "https://console.example/", ["api_key"], context_keys=None)
    rows = planner.for_approval(EventKind.APPROVAL_CREATED, _approval(), T0 + timedelta(seconds=90))
    assert [r.channel for r in rows] == ["hooks", "slack", "mail", "pager"]
    assert len({r.notification_id for r in rows}) == 4 and len({r.event_id for r in rows}) == 1
    doc = rows[0].document
    assert doc["schema"] == "outrider.notification.v1" and doc["type"] == "approval.created"
    assert doc["link"] == "https://console.example/approvals/apr_1"
    ctx = doc["data"]["context"]
    assert ctx["api_key"] == "***" and ctx["env"] == "prod" and len(ctx["note"]) == 200
    assert doc["data"]["waiting_seconds"] == 90
    only_env = NotificationPlanner(ROUTES, None, ["api_key"], context_keys=["env"])
    doc = only_env.for_approval(EventKind.APPROVAL_CREATED, _approval(), T0)[0].document
    assert doc["data"]["context"] == {"env": "prod"} and doc["link"] == ""


def test_event_ids_are_stable_for_the_same_happening() -> None:
    assert event_id(EventKind.APPROVAL_CREATED, "apr_1") == event_id(EventKind.APPROVAL_CREATED, "apr_1")
    assert event_id(EventKind.APPROVAL_CREATED, "apr_1") != event_id(EventKind.APPROVAL_EXPIRED, "apr_1")
    planner = NotificationPlanner(Routes(groups={"sre": ("pager",)}), None, [])
    one = planner.for_approval(EventKind.APPROVAL_ESCALATED, _approval(stage=1), T0)
    two = planner.for_approval(EventKind.APPROVAL_ESCALATED, _approval(stage=1), T0 + timedelta(seconds=5))
    other_stage = planner.for_approval(EventKind.APPROVAL_ESCALATED, _approval(stage=2), T0)
    assert one[0].event_id == two[0].event_id != other_stage[0].event_id


def test_summaries_mask_nested_secrets_and_stay_on_one_line() -> None:
    got = summarize({"db": {"password": "hunter2", "host": "h"}, "cmd": "a\nb"}, None, ["password"])
    assert "hunter2" not in got["db"] and got["cmd"] == "a b"


# ---- rendering ---------------------------------------------------------------------------------


def test_slack_message_escapes_what_the_agent_wrote() -> None:
    planner = NotificationPlanner(ROUTES, "https://console.example", [])
    a = _approval(action="deploy <!channel> <https://evil.example|click>", context={"x": "<@U123> & co"})
    msg = slack_message(planner.for_approval(EventKind.APPROVAL_CREATED, a, T0)[0].document)
    text = str(msg)
    assert "<!channel>" not in text and "<@U123>" not in text and "<https://evil" not in text
    assert "&lt;!channel&gt;" in text
    button = next(b for b in msg["blocks"] if b["type"] == "actions")["elements"][0]
    assert button["url"] == "https://console.example/approvals/apr_1"


def test_email_bodies_escape_html_and_carry_the_link() -> None:
    planner = NotificationPlanner(ROUTES, "https://console.example", [])
    doc = planner.for_approval(EventKind.APPROVAL_CREATED, _approval(action="<script>x</script>"), T0)[0].document
    subject, plain, html = email_bodies(doc)
    assert subject.startswith("Outrider: Approval needed")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert (
        "https://console.example/approvals/apr_1" in plain and 'href="https://console.example/approvals/apr_1"' in html
    )


# ---- config ------------------------------------------------------------------------------------


def test_config_reads_channels_secrets_and_routes(tmp_path: Path) -> None:
    (tmp_path / "whsec").write_text("file-secret\n")
    got = parse_notifications(
        {
            "channels": [
                {
                    "name": "hooks",
                    "kind": "webhook",
                    "url": "https://h.example/x",
                    "secret_file": str(tmp_path / "whsec"),
                },
                {"name": "slack", "kind": "slack", "url_env": "SLACK_URL"},
                {"name": "mail", "kind": "email", "host": "smtp", "from": "o@x.io", "to": ["a@x.io"]},
            ],
            "routes": {"kill.completed": ["hooks", "slack"]},
            "groups": {"sre": ["mail"]},
            "expiry_lead_time": "10m",
            "retry_for": "1h",
        },
        env={"SLACK_URL": "https://hooks.slack.example/T/B/x"},
    )
    hooks, slack, mail = got.channels
    assert hooks.secret == "file-secret" and slack.url == "https://hooks.slack.example/T/B/x"
    assert mail.port == 587 and mail.security == "starttls"
    assert got.routes.events[EventKind.KILL_COMPLETED] == ("hooks", "slack")
    assert got.expiry_lead_time == 600 and got.retry.give_up_after == 3600
    assert "file-secret" not in repr(got) and "hooks.slack.example" not in repr(got)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"channels": [{"name": "h", "kind": "pager"}]}, "notifications.channels[0].kind"),
        ({"channels": [{"name": "h", "kind": "webhook", "url": "https://x.io"}]}, "notifications.channels[0].secret"),
        ({"channels": [{"name": "h", "kind": "slack", "url": "ftp://x"}]}, "notifications.channels[0].url"),
        ({"channels": [{"name": "h", "kind": "slack", "url_env": "NOPE"}]}, "notifications.channels[0].url_env"),
        (
            {"channels": [{"name": "h", "kind": "slack", "url": "https://x.io", "secret": "s"}]},
            "notifications.channels[0].secret",
        ),
        (
            {"channels": [{"name": "m", "kind": "email", "host": "h", "from": "a@b", "to": []}]},
            "notifications.channels[0].to",
        ),
        (
            {
                "channels": [
                    {
                        "name": "m",
                        "kind": "email",
                        "host": "h",
                        "from": "a@b",
                        "to": ["c@d"],
                        "security": "none",
                        "username": "u",
                        "password": "p",
                    }
                ]
            },
            "notifications.channels[0].security",
        ),
        ({"routes": {"kill.completed": ["missing"]}}, "notifications.routes.kill.completed"),
        ({"routes": {"kill.started": []}}, "notifications.routes.kill.started"),
        ({"bogus": 1}, "notifications.bogus"),
    ],
)
def test_config_errors_name_the_key(raw: dict[str, object], key: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        parse_notifications(raw, env={})
    assert info.value.field == key


# ---- kills, cascades, breakers, budgets ---------------------------------------------------------


def test_recovery_and_safeguard_events_worth_a_message() -> None:
    from server.domain.recovery.cascade import Cascade, CascadeAction
    from server.domain.recovery.events import RecoveryEvent, RecoveryEventType
    from server.domain.recovery.kill import KillReason, KillResult

    every = {k: ("hooks",) for k in EventKind}
    planner = NotificationPlanner(Routes(events=every), "https://c.example", [])
    cascade = Cascade("cas_1", (), ("a", "b", "c"), "a", CascadeAction.KILL_ROOT, T0, kill_id="kill_1")

    def event(kind: RecoveryEventType, payload: object, seq: int = 7) -> RecoveryEvent:
        return RecoveryEvent(seq, kind, "a", T0, payload)

    [c] = planner.for_recovery_event(event(RecoveryEventType.CASCADE, cascade))
    assert c.kind == "cascade.detected" and c.document["data"]["agent_ids"] == ["a", "b", "c"]
    opened = {"key": "a:db", "to_state": 2, "generation": 3, "reason": "failures"}
    [b] = planner.for_recovery_event(event(RecoveryEventType.BREAKER_STATE_CHANGE, opened))
    assert b.kind == "breaker.opened" and b.subject == "a:db" and b.document["link"] == "https://c.example/breakers"
    assert planner.for_recovery_event(event(RecoveryEventType.BREAKER_STATE_CHANGE, {**opened, "to_state": 1})) == ()
    stop = {"agent_id": "a", "type": 2, "global": False, "used": 120, "allocated": 100}
    [s] = planner.for_recovery_event(event(RecoveryEventType.BUDGET_SIGNAL, stop))
    assert s.kind == "budget.sigstop" and s.document["data"]["used"] == 120
    assert planner.for_recovery_event(event(RecoveryEventType.BUDGET_SIGNAL, {**stop, "type": 1})) == ()  # SIGWARN
    kill = KillResult("kill_1", "a", "s", KillReason.MANUAL, (), T0, requested_by="operator:ops")
    assert planner.for_kill(kill) == ()  # not complete yet
    [k] = planner.for_kill(replace(kill, complete_time=T0 + timedelta(seconds=2), terminated=True))
    assert k.kind == "kill.completed" and k.document["data"]["terminated"] is True
    nobody = NotificationPlanner(Routes(), None, [])
    assert nobody.for_recovery_event(event(RecoveryEventType.CASCADE, cascade)) == ()
