"""Deciding in Slack, end to end: a real sidecar posts its approval messages to a local fake of Slack's Web
API, and signed interaction requests (as Slack sends them) reach the console's POST /slack/interactions.
A Slack user decides only as the console user it is mapped to; unmapped users, bad signatures, replays and
stale timestamps decide nothing, get 401/403 and are audited; the message is updated in place."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from console import create_app
from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.approvals.requests import ApprovalState
from server.services.notifications.settings import parse_notifications
from tests.fakes import FakeClock

from .consolekit import add_hitl, add_reviewers, ask
from .harness import RunningSidecar, make_config
from .slack_fake import FakeSlack, block_action, signed, view_submission

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
APPROVE, REJECT = "outrider_approve", "outrider_reject"
# Slack user id -> console user (consolekit's reviewers: alice and bob approve, victor views, ada admins).
USERS = {"UALICE": "alice", "UBOB": "bob", "UVICTOR": "victor", "UGHOST": "nobody-here"}


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    fake = FakeSlack()
    yield fake
    fake.close()


def slack_channel(slack: FakeSlack, **more: Any) -> Any:
    """Notifications with one Slack channel posting to the fake Web API (`more`: signing_secret, users, ...)."""
    channel = {
        "name": "slack",
        "kind": "slack",
        "bot_token": "xoxb-test-token",
        "channel": "C0FAKE",
        "api_base_url": slack.url("/api"),
        **{k: v for k, v in more.items() if k != "retention"},
    }
    return parse_notifications({"channels": [channel], "retention": more.pop("retention", "30d")}, env={})


@pytest.fixture
def sidecar(tmp_path: Path, db_url: str, slack: FakeSlack) -> Iterator[RunningSidecar]:
    settings = slack_channel(slack, signing_secret=SIGNING_SECRET, users=USERS)
    config = make_config(tmp_path, db_url=db_url, notifications=settings, console_public_url="https://console.example")
    # No scheduler: the test runs the delivery worker's passes itself. A fake clock: the throttle of
    # refusal audits counts on it (Slack's timestamps are checked against the real time).
    with RunningSidecar(config, clock=FakeClock(), with_scheduler=False) as s:
        add_reviewers(s)
        yield s


@pytest.fixture
def app(sidecar: RunningSidecar) -> Flask:
    app = create_app(sidecar.services)
    app.testing = True
    return app


def post(client: FlaskClient, payload: dict[str, Any], secret: str = SIGNING_SECRET, **kw: Any) -> Any:
    body, headers = signed(secret, payload, **kw)
    return client.post("/slack/interactions", data=body, headers=headers)


def posted_message(sidecar: RunningSidecar, slack: FakeSlack, approval_id: str) -> dict[str, Any]:
    """Deliver the outbox; the chat.postMessage that asked about `approval_id`."""
    sidecar.services.notifications.deliver_due()
    found = [c.body for c in slack.of("chat.postMessage") if approval_id in json.dumps(c.body)]
    assert found, slack.calls
    return found[-1]


def buttons(message: dict[str, Any]) -> dict[str, str]:
    """action_id -> value (or url) of the message's buttons."""
    out: dict[str, str] = {}
    for block in message["blocks"]:
        if block["type"] == "actions":
            for e in block["elements"]:
                out[e["action_id"]] = e.get("value") or e.get("url", "")
    return out


def text(message: dict[str, Any]) -> str:
    return json.dumps(message["blocks"])


def audit(sidecar: RunningSidecar, action: str) -> list[Any]:
    return [r for r in sidecar.services.audit.repo.iter_all() if r.action == action]


def responses(slack: FakeSlack, path: str) -> list[dict[str, Any]]:
    return [c.body for c in slack.of("respond") if c.path == path]


def test_approve_in_slack_decides_as_the_mapped_user_and_updates_the_message(
    sidecar: RunningSidecar, app: Flask, slack: FakeSlack
) -> None:
    add_hitl(sidecar, notify=["slack"])
    approval_id = ask(sidecar, context={"env": "prod", "token": "sk-live-1"})
    message = posted_message(sidecar, slack, approval_id)
    call = slack.of("chat.postMessage")[0]
    assert call.token == "xoxb-test-token" and call.body["channel"] == "C0FAKE"
    assert buttons(message) == {
        APPROVE: approval_id,
        REJECT: approval_id,
        "open_console": f"https://console.example/approvals/{approval_id}",
    }
    assert "sk-live-1" not in text(message)  # masked as everywhere

    r = post(app.test_client(), block_action("UALICE", APPROVE, approval_id, slack.url("/respond/1")))
    assert r.status_code == 200, r.text
    a = sidecar.services.approvals.get(approval_id)
    assert (a.state, a.decided_by) == (ApprovalState.APPROVED, "alice")
    [update] = responses(slack, "/respond/1")
    assert update["replace_original"] is True
    assert "Approved" in update["text"] and "alice" in update["text"] and APPROVE not in buttons(update)
    # The audit trail holds the decision as the console user, and where it came from.
    assert [r.actor for r in audit(sidecar, "approval.approve")] == ["reviewer:alice"]
    [seen] = audit(sidecar, "slack.interaction")
    assert seen.actor == "reviewer:alice" and seen.details["slack_user"] == "UALICE"
    assert seen.details["outcome"] == "APPROVED" and seen.subject == approval_id

    # The decision event updates the posted message in place (chat.update), not a new message.
    sidecar.services.notifications.deliver_due()
    [updated] = slack.of("chat.update")
    assert (updated.body["channel"], updated.body["ts"]) == ("C0FAKE", "1700000000.000001")
    assert "alice" in updated.body["text"] and APPROVE not in buttons(updated.body)
    assert len(slack.of("chat.postMessage")) == 1


def test_reject_asks_for_a_reason_in_a_modal(sidecar: RunningSidecar, app: Flask, slack: FakeSlack) -> None:
    add_hitl(sidecar, notify=["slack"])
    approval_id = ask(sidecar)
    posted_message(sidecar, slack, approval_id)
    client = app.test_client()
    click = block_action("UBOB", REJECT, approval_id, slack.url("/respond/2"))
    assert post(client, click).status_code == 200
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.PENDING  # not without a reason
    [opened] = slack.of("views.open")
    assert opened.body["trigger_id"] == click["trigger_id"] and opened.token == "xoxb-test-token"
    view = opened.body["view"]
    assert view["type"] == "modal" and view["blocks"][0]["block_id"] == "reason"

    empty = post(client, view_submission("UBOB", view["private_metadata"], "  ", view["callback_id"]))
    assert empty.status_code == 200 and empty.json["response_action"] == "errors"
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.PENDING

    done = post(client, view_submission("UBOB", view["private_metadata"], "wrong cluster", view["callback_id"]))
    assert done.status_code == 200 and not done.data.strip(b"{} \n")  # an empty answer closes the modal
    a = sidecar.services.approvals.get(approval_id)
    assert (a.state, a.decided_by, a.comment) == (ApprovalState.REJECTED, "bob", "wrong cluster")
    [update] = responses(slack, "/respond/2")
    assert "Rejected" in update["text"] and "bob" in update["text"] and REJECT not in buttons(update)
    assert [r.actor for r in audit(sidecar, "approval.reject")] == ["reviewer:bob"]


def test_n_of_m_with_two_mapped_users(sidecar: RunningSidecar, app: Flask, slack: FakeSlack) -> None:
    add_hitl(sidecar, notify=["slack"], min_approvals=2)
    approval_id = ask(sidecar)
    posted_message(sidecar, slack, approval_id)
    client = app.test_client()
    assert post(client, block_action("UALICE", APPROVE, approval_id, slack.url("/respond/a"))).status_code == 200
    a = sidecar.services.approvals.get(approval_id)
    assert a.state is ApprovalState.PENDING and [v.reviewer for v in a.votes] == ["alice"]
    [partial] = responses(slack, "/respond/a")
    assert "1 of 2 (alice)" in text(partial) and APPROVE in buttons(partial)  # still open for the second

    again = post(client, block_action("UALICE", APPROVE, approval_id, slack.url("/respond/a2")))
    assert again.status_code == 409  # one vote per reviewer, as on the console
    assert "already voted" in responses(slack, "/respond/a2")[0]["text"]

    assert post(client, block_action("UBOB", APPROVE, approval_id, slack.url("/respond/b"))).status_code == 200
    a = sidecar.services.approvals.get(approval_id)
    assert (a.state, a.decided_by) == (ApprovalState.APPROVED, "alice, bob")
    [final] = responses(slack, "/respond/b")
    assert "alice, bob" in final["text"] and APPROVE not in buttons(final)


def test_self_review_and_roles_are_refused_as_on_the_console(
    sidecar: RunningSidecar, app: Flask, slack: FakeSlack
) -> None:
    add_hitl(sidecar, notify=["slack"], prevent_self_review=True)
    sidecar.stub.RegisterAgent(
        pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="agent-1", labels={"owner": "alice"}))
    )
    approval_id = ask(sidecar)
    client = app.test_client()
    r = post(client, block_action("UALICE", APPROVE, approval_id, slack.url("/respond/self")))
    assert r.status_code == 403
    r = post(client, block_action("UVICTOR", APPROVE, approval_id, slack.url("/respond/viewer")))
    assert r.status_code == 403
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.PENDING
    assert "may not review" in responses(slack, "/respond/self")[0]["text"]
    assert "viewer role" in responses(slack, "/respond/viewer")[0]["text"]
    reasons = [(r.actor, r.details["reason"]) for r in audit(sidecar, "slack.refused")]
    assert reasons == [("reviewer:alice", "SELF_REVIEW"), ("reviewer:victor", "NOT_AN_APPROVER")]
    assert audit(sidecar, "approval.approve") == []


def test_unmapped_users_decide_nothing(sidecar: RunningSidecar, app: Flask, slack: FakeSlack) -> None:
    add_hitl(sidecar, notify=["slack"])
    approval_id = ask(sidecar)
    client = app.test_client()
    for user in ("UMALLORY", "UGHOST"):  # not in `users`; mapped to no console user
        r = post(client, block_action(user, APPROVE, approval_id, slack.url(f"/respond/{user}")))
        assert r.status_code == 403
        assert "not mapped" in responses(slack, f"/respond/{user}")[0]["text"]
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.PENDING
    refused = audit(sidecar, "slack.refused")
    assert [(r.actor, r.details["reason"]) for r in refused] == [
        ("slack:UMALLORY", "unmapped_user"),
        ("slack:UGHOST", "unknown_or_disabled_user"),
    ]


def test_bad_signatures_replays_and_stale_timestamps_are_refused(
    sidecar: RunningSidecar, app: Flask, slack: FakeSlack
) -> None:
    add_hitl(sidecar, notify=["slack"])
    approval_id = ask(sidecar)
    client = app.test_client()
    click = block_action("UALICE", APPROVE, approval_id, slack.url("/respond/x"))

    assert post(client, click, secret="not-the-secret").status_code == 401
    body, headers = signed(SIGNING_SECRET, click)
    tampered = body.replace(b"UALICE", b"UBOBBY")
    assert client.post("/slack/interactions", data=tampered, headers=headers).status_code == 401
    unsigned = {k: v for k, v in headers.items() if k != "X-Slack-Signature"}
    assert client.post("/slack/interactions", data=body, headers=unsigned).status_code == 401
    assert post(client, click, timestamp=int(time.time()) - 301).status_code == 401  # stale
    assert post(client, click, timestamp=int(time.time()) + 301).status_code == 401  # from the future
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.PENDING
    # No session and no CSRF token needed, but nothing else on the console opens up.
    assert client.post("/approvals/x/decide", data={"decision": "approve"}).status_code == 401

    # A genuine request is accepted once; the same bytes and headers sent again are a replay.
    assert client.post("/slack/interactions", data=body, headers=headers).status_code == 200
    assert sidecar.services.approvals.get(approval_id).state is ApprovalState.APPROVED
    assert client.post("/slack/interactions", data=body, headers=headers).status_code == 401
    reasons = [r.details["reason"] for r in audit(sidecar, "slack.refused")]
    assert reasons == ["bad_signature", "bad_signature", "unsigned", "stale_timestamp", "stale_timestamp", "replay"]
    assert [r.actor for r in audit(sidecar, "approval.approve")] == ["reviewer:alice"]


def test_message_updated_after_a_decision_made_on_the_console(
    sidecar: RunningSidecar, app: Flask, slack: FakeSlack
) -> None:
    from .consolekit import htmx_post, sign_in

    add_hitl(sidecar, notify=["slack"])
    approval_id = ask(sidecar)
    posted = posted_message(sidecar, slack, approval_id)
    assert APPROVE in buttons(posted)
    c = app.test_client()
    token = sign_in(c, "bob")
    r = htmx_post(c, f"/approvals/{approval_id}/decide", token, decision="reject", comment="not today")
    assert r.status_code == 200
    sidecar.services.notifications.deliver_due()
    [updated] = slack.of("chat.update")
    assert updated.body["ts"] == "1700000000.000001" and updated.body["channel"] == "C0FAKE"
    assert "Rejected" in updated.body["text"] and "bob" in updated.body["text"]
    assert APPROVE not in buttons(updated.body) and "open_console" in buttons(updated.body)

    # A click on the stale message afterwards decides nothing and shows how it ended.
    r = post(c, block_action("UALICE", APPROVE, approval_id, slack.url("/respond/late")))
    assert r.status_code == 409
    late = responses(slack, "/respond/late")
    assert any("already REJECTED" in m.get("text", "") for m in late)
    assert any(m.get("replace_original") is True and "Rejected" in m["text"] for m in late)


def test_an_expired_request_updates_its_message(tmp_path: Path, slack: FakeSlack) -> None:
    settings = slack_channel(slack, signing_secret=SIGNING_SECRET)
    clock = FakeClock()
    with RunningSidecar(make_config(tmp_path, notifications=settings), clock=clock, with_scheduler=False) as s:
        add_hitl(s, notify=["slack"], timeout=60)
        approval_id = ask(s)
        posted_message(s, slack, approval_id)
        clock.advance(61)
        assert s.services.approvals.expire_due() == 1
        s.services.notifications.deliver_due()
        [updated] = slack.of("chat.update")
        assert "expired" in updated.body["text"].lower() and APPROVE not in buttons(updated.body)
        assert len(slack.of("chat.postMessage")) == 1


def test_a_channel_without_a_signing_secret_has_no_buttons_and_no_endpoint(tmp_path: Path, slack: FakeSlack) -> None:
    settings = slack_channel(slack)
    config = make_config(tmp_path, notifications=settings, console_public_url="https://console.example")
    with RunningSidecar(config, with_scheduler=False) as s:
        add_hitl(s, notify=["slack"])
        approval_id = ask(s)
        message = posted_message(s, slack, approval_id)
        assert buttons(message) == {"open_console": f"https://console.example/approvals/{approval_id}"}
        app = create_app(s.services)
        r = post(app.test_client(), block_action("UALICE", APPROVE, approval_id, slack.url("/respond/n")))
        assert r.status_code == 404
        assert s.services.approvals.get(approval_id).state is ApprovalState.PENDING


def test_unsigned_requests_cannot_grow_the_audit_trail_at_will(
    sidecar: RunningSidecar, app: Flask, slack: FakeSlack
) -> None:
    from server.services.notifications.slack import UNVERIFIED_AUDITS_PER_MINUTE

    client = app.test_client()
    for i in range(UNVERIFIED_AUDITS_PER_MINUTE + 15):
        r = post(client, block_action("UALICE", APPROVE, f"apr_{i}", slack.url("/respond/z")), secret="guess")
        assert r.status_code == 401
    assert len(audit(sidecar, "slack.refused")) == UNVERIFIED_AUDITS_PER_MINUTE


def test_slack_api_errors_are_retried_or_final(sidecar: RunningSidecar, slack: FakeSlack) -> None:
    from server.domain.notifications.delivery import DeliveryState, NotificationFilter

    add_hitl(sidecar, notify=["slack"])
    outbox = sidecar.services.notifications
    slack.errors["chat.postMessage"] = "ratelimited"
    ask(sidecar)
    assert outbox.deliver_due() == 1
    [n] = outbox.list(NotificationFilter(channel="slack")).items
    assert n.state is DeliveryState.PENDING and "ratelimited" in n.last_error  # tried again later
    slack.errors["chat.postMessage"] = "channel_not_found"
    ask(sidecar, action="delete x")
    assert outbox.deliver_due() == 1
    failed = outbox.list(NotificationFilter(state=DeliveryState.FAILED)).items
    assert [f.last_error for f in failed] == ["chat.postMessage: channel_not_found"]  # a wrong channel: final


def test_slack_messages_are_forgotten_after_the_notifications_retention(tmp_path: Path, slack: FakeSlack) -> None:
    """`slack_messages` grew with every approval for ever; it is pruned with the outbox (notifications.retention)."""
    clock = FakeClock()
    settings = slack_channel(slack, signing_secret=SIGNING_SECRET, retention="1h")
    with RunningSidecar(make_config(tmp_path, notifications=settings), clock=clock, with_scheduler=False) as s:
        add_hitl(s, notify=["slack"], timeout=60)
        old = ask(s)
        posted_message(s, slack, old)
        messages = s.services.notifications.slack_messages
        assert messages is not None and messages.find(old, "slack")
        clock.advance(3601)
        recent = ask(s, action="delete y")
        posted_message(s, slack, recent)
        assert s.services.notifications.prune() >= 1
        assert messages.find(old, "slack") == [] and messages.find(recent, "slack")
