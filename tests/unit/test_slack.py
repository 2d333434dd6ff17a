"""Slack's request signature (`v0`, against Slack's published example), the replay guard, the slack
channel's options, and the message's buttons."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.adapters.notifications.render import slack_message
from server.domain.errors import InvalidArgument
from server.domain.notifications.slack import Refusal, ReplayGuard, sign, verify
from server.services.notifications.settings import SLACK_API, parse_notifications

# The worked example of Slack's "Verifying requests from Slack".
DOC_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
DOC_TS = "1531420618"
DOC_BODY = (
    b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
    b"&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
    b"&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
    b"&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
)
DOC_SIG = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"


def test_the_signature_is_slacks_own() -> None:
    assert sign(DOC_SECRET, DOC_TS, DOC_BODY) == DOC_SIG
    now = int(DOC_TS) + 10
    assert verify(["other", DOC_SECRET], DOC_TS, DOC_SIG, DOC_BODY, now) == 1  # which channel signed it
    assert verify(["other"], DOC_TS, DOC_SIG, DOC_BODY, now) is Refusal.BAD_SIGNATURE
    assert verify([DOC_SECRET], DOC_TS, DOC_SIG, DOC_BODY + b"&x=1", now) is Refusal.BAD_SIGNATURE
    assert verify([DOC_SECRET], DOC_TS, DOC_SIG.upper(), DOC_BODY, now) is Refusal.BAD_SIGNATURE
    assert verify([DOC_SECRET], DOC_TS, "", DOC_BODY, now) is Refusal.UNSIGNED
    assert verify([DOC_SECRET], "", DOC_SIG, DOC_BODY, now) is Refusal.UNSIGNED
    # Five minutes either way, and a timestamp must be a number of seconds.
    assert verify([DOC_SECRET], DOC_TS, DOC_SIG, DOC_BODY, int(DOC_TS) + 300) == 0
    assert verify([DOC_SECRET], DOC_TS, DOC_SIG, DOC_BODY, int(DOC_TS) + 301) is Refusal.STALE
    assert verify([DOC_SECRET], DOC_TS, DOC_SIG, DOC_BODY, int(DOC_TS) - 301) is Refusal.STALE
    assert verify([DOC_SECRET], "-1531420618", DOC_SIG, DOC_BODY, now) is Refusal.STALE


def test_the_replay_guard_remembers_within_the_window_and_stays_bounded() -> None:
    guard = ReplayGuard(window=300, max_entries=3)
    assert guard.first_time("a", 1000) and not guard.first_time("a", 1100)
    assert guard.first_time("b", 1000) and guard.first_time("c", 1000)
    assert guard.first_time("d", 1000)  # full: the oldest ("a") is forgotten, and it is stale by then anyway
    assert len(guard._seen) <= 3
    assert guard.first_time("e", 5000) and guard._seen.keys() == {"e"}  # the window passed for the others


def test_slack_channel_options(tmp_path: Path) -> None:
    (tmp_path / "signing").write_text("from-a-file\n")
    [c] = parse_notifications(
        {
            "channels": [
                {
                    "name": "approvals",
                    "kind": "slack",
                    "bot_token_env": "BOT",
                    "channel": "C0123",
                    "signing_secret_file": str(tmp_path / "signing"),
                    "users": {"U1": "alice"},
                }
            ]
        },
        env={"BOT": "xoxb-1"},
    ).channels
    assert (c.bot_token, c.slack_channel, c.signing_secret, c.api_base_url) == (
        "xoxb-1",
        "C0123",
        "from-a-file",
        SLACK_API,
    )
    assert c.interactive and c.updates_in_place and dict(c.users) == {"U1": "alice"} and c.url == ""
    assert "xoxb-1" not in repr(c) and "from-a-file" not in repr(c)
    [hook] = parse_notifications({"channels": [{"name": "s", "kind": "slack", "url": "https://h.example/x"}]}).channels
    assert not hook.interactive and not hook.updates_in_place


@pytest.mark.parametrize(
    ("channel", "key"),
    [
        ({"bot_token": "x"}, "channel"),
        ({"channel": "C1", "url": "https://h.example"}, "bot_token"),
        ({}, "url"),
        ({"url": "https://h.example", "users": {"U1": "alice"}}, "signing_secret"),
        ({"url": "https://h.example", "signing_secret": "s", "users": ["alice"]}, "users"),
        ({"url": "https://h.example", "signing_secret": "s", "users": {"U1": 3}}, "users"),
        ({"url": "https://h.example", "signing_secret": "s", "signing_secret_env": "S"}, "signing_secret_env"),
        ({"bot_token": "x", "channel": "C1", "api_base_url": "file:///etc"}, "api_base_url"),
        ({"url": "https://h.example", "signing_secret_env": "UNSET"}, "signing_secret_env"),
    ],
)
def test_slack_channel_mistakes_name_the_key(channel: dict[str, object], key: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        parse_notifications({"channels": [{"name": "s", "kind": "slack", **channel}]}, env={})
    assert err.value.field == f"notifications.channels[0].{key}"


def _document(state: str = "PENDING", kind: str = "approval.created") -> dict[str, object]:
    return {
        "type": kind,
        "id": "evt_1",
        "title": "Approval needed: deploy by a",
        "link": "https://console.example/approvals/apr_1",
        "agent_id": "a",
        "data": {"approval_id": "apr_1", "action": "deploy", "state": state, "approvals_needed": 2},
    }


def test_buttons_only_on_an_open_request_of_an_interactive_channel() -> None:
    def ids(message: dict[str, object]) -> list[str]:
        blocks = message["blocks"]
        assert isinstance(blocks, list)
        return [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]

    assert ids(slack_message(_document(), interactive=True)) == ["outrider_approve", "outrider_reject", "open_console"]
    assert ids(slack_message(_document())) == ["open_console"]
    assert ids(slack_message(_document("APPROVED", "approval.decided"), interactive=True)) == ["open_console"]
    assert "0 of 2" in str(slack_message(_document(), interactive=True)["blocks"])


def test_a_decision_reaches_the_in_place_channels_that_were_asked() -> None:
    from datetime import UTC, datetime

    from server.domain.approvals.requests import Approval, ApprovalPolicy, ApprovalState
    from server.domain.notifications.events import EventKind
    from server.domain.notifications.routing import Routes
    from server.services.notifications.planner import NotificationPlanner

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    routes = Routes(groups={"sre": ("slack-sre",), "boss": ("slack-boss",)}, owners={"team-a": ("mail-owner",)})
    planner = NotificationPlanner(routes, None, [], in_place=["slack-ops", "slack-sre", "slack-boss"])
    a = Approval(
        approval_id="apr_1",
        agent_id="a",
        action="deploy",
        context={},
        guardrail="g",
        request_id="",
        trace_id="",
        digest="d",
        state=ApprovalState.APPROVED,
        create_time=t0,
        policy=ApprovalPolicy(approvers=("group:sre",), notify=("slack-ops", "hooks"), escalate_to=("group:boss",)),
        owner="team-a",
        approvers=("group:boss",),  # escalated
        stage=1,
        decided_by="alice",
    )
    decided = {n.channel for n in planner.for_approval(EventKind.APPROVAL_DECIDED, a, t0)}
    # The owner's route as before, plus each in-place channel that was asked (before and after escalation);
    # not the other `notify:` channels (they took it, as before).
    assert decided == {"mail-owner", "slack-ops", "slack-sre", "slack-boss"}
    plain = NotificationPlanner(routes, None, [])
    assert {n.channel for n in plain.for_approval(EventKind.APPROVAL_DECIDED, a, t0)} == {"mail-owner"}
