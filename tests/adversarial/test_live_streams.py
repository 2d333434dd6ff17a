"""Live-update streams are shared fairly: one user holds a few, and the last ones are the admins'.

Before: one viewer could take all 64 live-update streams, so the admin's page got 503.
"""

from __future__ import annotations

from console import create_app
from console.sse import VersionHub
from tests.integration.consolekit import add_reviewers, sign_in
from tests.integration.harness import RunningSidecar


def test_one_user_cannot_take_every_stream() -> None:
    hub = VersionHub(lambda: 0, max_streams=8, interval=30.0, per_user=4, per_admin=8, reserved_for_admins=2)
    try:
        assert [hub.subscribe("approvals", "victor") for _ in range(5)] == [True] * 4 + [False]
        assert [hub.subscribe("approvals", "vera") for _ in range(3)] == [True, True, False]  # 6 of 8: reserve
        assert hub.subscribe("approvals", "ada", admin=True) and hub.subscribe("approvals", "ada", admin=True)
        assert not hub.subscribe("approvals", "ada", admin=True)  # the overall maximum still holds
        hub.unsubscribe("approvals", "victor")
        assert hub.subscribe("approvals", "victor") is False  # a freed slot inside the reserve stays the admins'
        hub.unsubscribe("approvals", "ada")
        assert hub.subscribe("approvals", "ada", admin=True)
    finally:
        hub.close()


def test_a_viewer_with_many_tabs_leaves_room_for_the_admin(sidecar: RunningSidecar) -> None:
    add_reviewers(sidecar, ("victor", "ada"))
    app = create_app(sidecar.services, max_streams=8)
    app.testing = True
    viewer, admin = app.test_client(), app.test_client()
    sign_in(viewer, "victor")
    sign_in(admin, "ada")
    held = [viewer.get("/events/pending", buffered=False) for _ in range(6)]
    try:
        assert [r.status_code for r in held] == [200] * 4 + [503] * 2
        mine = admin.get("/events/pending", buffered=False)
        assert mine.status_code == 200
        mine.close()
    finally:
        for r in reversed(held):  # streaming contexts are a stack: the last opened closes first
            r.close()
