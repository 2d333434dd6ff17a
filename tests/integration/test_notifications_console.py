"""The console's Notifications page: admins only, delivery status by state, retrying a failed one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from console import create_app
from server.domain.notifications.delivery import DeliveryState, NotificationFilter
from server.services.notifications.settings import parse_notifications

from .consolekit import add_hitl, add_reviewers, ask, htmx_post, sign_in
from .harness import RunningSidecar, make_config
from .receivers import HttpReceiver

SECRET = "s3cret"


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    rec = HttpReceiver(secret=SECRET)
    yield rec
    rec.close()


@pytest.fixture
def sidecar(tmp_path: Path, receiver: HttpReceiver) -> Iterator[RunningSidecar]:
    settings = parse_notifications(
        {"channels": [{"name": "hooks", "kind": "webhook", "url": receiver.url(), "secret": SECRET}]}, env={}
    )
    # No scheduler: the test runs the delivery worker's passes itself.
    with RunningSidecar(make_config(tmp_path, notifications=settings), with_scheduler=False) as s:
        add_hitl(s, notify=["hooks", "typo-channel"])
        add_reviewers(s)
        yield s


@pytest.fixture
def app(sidecar: RunningSidecar) -> Flask:
    app = create_app(sidecar.services)
    app.testing = True
    return app


def test_admins_see_delivery_status_and_retry_a_failed_notification(
    sidecar: RunningSidecar, app: Flask, receiver: HttpReceiver
) -> None:
    receiver.statuses = [410]  # Gone: final at once
    approval_id = ask(sidecar, action="deploy <script>alert(1)</script>")
    outbox = sidecar.services.notifications
    assert outbox.deliver_due() == 2
    for name in ("victor", "alice"):
        c = app.test_client()
        token = sign_in(c, name)
        assert c.get("/notifications").status_code == 403
        assert htmx_post(c, "/notifications/x/retry", token).status_code == 403
        assert 'href="/notifications"' not in c.get("/approvals").text

    c = app.test_client()
    token = sign_in(c, "ada")
    page = c.get("/notifications")
    assert page.status_code == 200 and 'href="/notifications"' in page.text
    assert "Failed: <strong>2</strong>" in page.text and "Delivered: <strong>0</strong>" in page.text
    assert "HTTP 410 Gone" in page.text and "no channel named &#39;typo-channel&#39;" in page.text
    assert f'href="/approvals/{approval_id}"' in page.text and "<script>" not in page.text

    [failed] = outbox.list(NotificationFilter(state=DeliveryState.FAILED, channel="hooks")).items
    r = htmx_post(c, f"/notifications/{failed.notification_id}/retry", token, state="FAILED")
    assert r.status_code == 200 and "is due again" in r.text
    assert outbox.deliver_due() == 1
    assert outbox.get(failed.notification_id).state is DeliveryState.DELIVERED
    assert len(receiver.delivered()) == 1
    delivered = c.get("/notifications?state=DELIVERED", headers={"HX-Request": "true"})
    assert failed.notification_id in delivered.text and "typo-channel" not in delivered.text
    again = htmx_post(c, f"/notifications/{failed.notification_id}/retry", token)
    assert again.status_code == 409 and "is DELIVERED, not FAILED" in again.text
