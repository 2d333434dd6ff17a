"""Deciding in Slack: the interactions Slack sends to `POST /slack/interactions` (button clicks, the
Reject modal's submission), verified by Slack's signature and decided as the mapped console user.

A Slack user decides only as the console user `users` maps it to, through the same `ApprovalService.decide`
the console calls: roles, approvers, N-of-M, prevent_self_review and the audit trail hold exactly as there.
A request that is not signed by a configured channel's signing secret, is stale, replayed, or comes from
an unmapped Slack user decides nothing, gets 401 or 403, and is audited (`slack.refused`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from server.domain.access.users import FailureThrottle
from server.domain.approvals.requests import Approval, Reviewer, check_reviewer
from server.domain.errors import FailedPrecondition, NotFound, OutriderError, PermissionDenied
from server.domain.notifications import slack as signature
from server.services.access.users import UserService
from server.services.approvals.requests import ApprovalService
from server.services.notifications.planner import NotificationPlanner
from server.services.notifications.ports import SlackApi, SlackApiError
from server.services.notifications.settings import ChannelSettings
from server.services.ports import AuditSink, Clock

log = logging.getLogger(__name__)

APPROVE, REJECT, OPEN = "outrider_approve", "outrider_reject", "open_console"  # render.py's action ids
REJECT_VIEW = "outrider_reject_reason"  # the modal's callback id
REASON_BLOCK, REASON_INPUT = "reason", "reason"
MAX_REASON = 1000
UNVERIFIED_AUDITS_PER_MINUTE = 20  # per client address
API_TIMEOUT = 2.5  # Slack wants the answer to an interaction within 3 s (and a trigger_id dies then too)

Render = Callable[[Mapping[str, Any], bool], dict[str, Any]]  # (event document, interactive) -> message


@dataclass(frozen=True, slots=True)
class SlackAnswer:
    """What the endpoint answers Slack: a status and, for a modal, a JSON body."""

    status: int
    body: Mapping[str, Any] | None = None
    refusal: str = ""  # why nothing was decided (also audited)


@dataclass
class _Interaction:
    channel: ChannelSettings
    api: SlackApi | None
    slack_user: str
    team: str
    payload: Mapping[str, Any]
    reviewer: Reviewer | None = None
    details: dict[str, Any] = field(default_factory=dict)


class SlackInteractions:
    def __init__(
        self,
        channels: Sequence[ChannelSettings],
        approvals: ApprovalService,
        users: UserService,
        planner: NotificationPlanner,
        render: Render,
        api_for: Callable[[ChannelSettings], SlackApi],
        audit: AuditSink,
        clock: Clock,
        now: Callable[[], float],
    ) -> None:
        self.channels = [c for c in channels if c.interactive]
        self.approvals, self.users, self.planner, self.render = approvals, users, planner, render
        self.api_for, self.audit, self.clock, self.now = api_for, audit, clock, now
        self._replays = signature.ReplayGuard()
        # Anyone can send unsigned requests: their audit records are bounded per client address (the log
        # still has each one), so they cannot grow the audit trail at will.
        self._unverified = FailureThrottle(limit=UNVERIFIED_AUDITS_PER_MINUTE, window=60.0)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return bool(self.channels)

    # ---- the request -----------------------------------------------------------------------

    def handle(self, headers: Mapping[str, str], body: bytes, remote: str = "") -> SlackAnswer:
        """One request to /slack/interactions: `headers` lower-cased, `body` exactly as received."""
        lowered = {k.lower(): v for k, v in headers.items()}
        stamp, sent = lowered.get("x-slack-request-timestamp", ""), lowered.get("x-slack-signature", "")
        if len(body) > signature.MAX_BODY:
            return self._refuse("", {"remote": remote}, signature.Refusal.BAD_SIGNATURE, 401)
        found = signature.verify([c.signing_secret for c in self.channels], stamp, sent, body, self.now())
        if isinstance(found, signature.Refusal):
            return self._refuse("", {"remote": remote}, found, 401)
        with self._lock:
            fresh = self._replays.first_time(sent, self.now())
        if not fresh:
            return self._refuse("", {"remote": remote}, signature.Refusal.REPLAY, 401)
        channel = self.channels[found]
        try:
            payload = json.loads(parse_qs(body.decode(), strict_parsing=True)["payload"][0])
            if not isinstance(payload, dict):
                raise ValueError("not an object")
        except (UnicodeDecodeError, KeyError, ValueError) as exc:
            return self._refuse("", {"channel": channel.name, "problem": str(exc)[:200]}, "bad_payload", 400)
        user = payload.get("user") or {}
        slack_user = str(user.get("id", "")) if isinstance(user, dict) else ""
        team = payload.get("team") or {}
        it = _Interaction(
            channel,
            self.api_for(channel) if channel.bot_token else None,
            slack_user,
            str(team.get("id", "")) if isinstance(team, dict) else "",
            payload,
        )
        it.details = {"channel": channel.name, "slack_user": slack_user, "team": it.team, "type": payload.get("type")}
        name = channel.users.get(slack_user)
        console_user = self.users.get(name) if name else None
        if console_user is None or console_user.disabled:
            why = "unmapped_user" if name is None else "unknown_or_disabled_user"
            self._ephemeral(it, "Your Slack account is not mapped to an Outrider console user.")
            return self._refuse(f"slack:{slack_user}", it.details, why, 403)
        it.reviewer = Reviewer(console_user.name, console_user.role.value, frozenset(console_user.groups))
        kind = payload.get("type")
        if kind == "block_actions":
            return self._block_action(it)
        if kind == "view_submission":
            return self._view_submission(it)
        return SlackAnswer(200)  # other interaction types (view_closed, shortcuts) decide nothing

    # ---- buttons ---------------------------------------------------------------------------

    def _block_action(self, it: _Interaction) -> SlackAnswer:
        actions = it.payload.get("actions")
        action = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], dict) else {}
        action_id, approval_id = str(action.get("action_id", "")), str(action.get("value", ""))
        it.details |= {"action": action_id, "approval_id": approval_id}
        if action_id not in (APPROVE, REJECT):
            return SlackAnswer(200)  # "Open in console" is a link; Slack reports its click too
        assert it.reviewer is not None
        try:
            current = self.approvals.get(approval_id)
            if action_id == APPROVE:
                decided = self.approvals.decide(approval_id, it.reviewer, True, "")
                self._replace(it, decided, self._message_of(it.payload))
                return self._accepted(it, decided)
            # Reject needs a reason: check what can be checked now, then ask in a modal.
            if current.closed:
                raise FailedPrecondition(f"approval {approval_id} is already {current.state.name}")
            check_reviewer(current, it.reviewer)
        except OutriderError as exc:
            return self._domain_refusal(it, exc, approval_id)
        if it.api is None:
            self._ephemeral(it, f"Reject in the console (a reason is required): {current.approval_id}")
            return self._refuse(f"reviewer:{it.reviewer.name}", it.details, "no_bot_token_for_modal", 200)
        try:
            it.api.call(
                "views.open",
                {
                    "trigger_id": str(it.payload.get("trigger_id", "")),
                    "view": _reason_view(current, self._message_of(it.payload)),
                },
            )
        except SlackApiError as exc:
            log.warning("cannot open the Slack reject modal", extra={"error": str(exc)})
            return self._refuse(f"reviewer:{it.reviewer.name}", it.details, "modal_failed", 200)
        self.audit.record(
            f"reviewer:{it.reviewer.name}", "slack.interaction", approval_id, it.details | {"outcome": "asked_reason"}
        )
        return SlackAnswer(200)

    # ---- the Reject modal ------------------------------------------------------------------

    def _view_submission(self, it: _Interaction) -> SlackAnswer:
        view = it.payload.get("view") or {}
        if not isinstance(view, dict) or view.get("callback_id") != REJECT_VIEW:
            return SlackAnswer(200)
        try:
            meta = json.loads(str(view.get("private_metadata", "")))
            approval_id = str(meta["approval_id"])
            reason = view["state"]["values"][REASON_BLOCK][REASON_INPUT]["value"] or ""
        except (ValueError, KeyError, TypeError):
            return self._refuse(f"reviewer:{it.reviewer.name if it.reviewer else ''}", it.details, "bad_payload", 400)
        it.details |= {"action": REJECT, "approval_id": approval_id}
        reason = str(reason).strip()[:MAX_REASON]
        if not reason:
            return SlackAnswer(200, {"response_action": "errors", "errors": {REASON_BLOCK: "Write a reason."}})
        assert it.reviewer is not None
        try:
            decided = self.approvals.decide(approval_id, it.reviewer, False, reason)
        except OutriderError as exc:
            refused = self._domain_refusal(it, exc, approval_id, in_modal=True)
            return SlackAnswer(
                200, {"response_action": "errors", "errors": {REASON_BLOCK: exc.message[:150]}}, refused.refusal
            )
        self._replace(it, decided, meta if isinstance(meta, dict) else {})
        return self._accepted(it, decided)

    # ---- answers ---------------------------------------------------------------------------

    def _accepted(self, it: _Interaction, a: Approval) -> SlackAnswer:
        assert it.reviewer is not None
        self.audit.record(
            f"reviewer:{it.reviewer.name}", "slack.interaction", a.approval_id, it.details | {"outcome": a.state.name}
        )
        return SlackAnswer(200)

    def _domain_refusal(
        self, it: _Interaction, exc: OutriderError, approval_id: str, in_modal: bool = False
    ) -> SlackAnswer:
        """The console would refuse too (not an approver, self-review, already decided): nothing is decided;
        the reviewer is told why, and a message about a closed request shows how it ended."""
        assert it.reviewer is not None
        reason = getattr(exc, "reason", "") or type(exc).__name__
        if not in_modal:
            self._ephemeral(it, exc.message)
        try:
            current = self.approvals.get(approval_id)
        except OutriderError:
            current = None
        if current is not None and current.closed:
            self._replace(it, current, self._message_of(it.payload))
        status = 400
        for cls, code in ((PermissionDenied, 403), (NotFound, 404), (FailedPrecondition, 409)):
            if isinstance(exc, cls):
                status = code
                break
        return self._refuse(f"reviewer:{it.reviewer.name}", it.details | {"message": exc.message}, str(reason), status)

    def _refuse(self, actor: str, details: Mapping[str, Any], why: str, status: int) -> SlackAnswer:
        who = details.get("slack_user") or details.get("remote", "")
        log.warning("slack interaction refused", extra={"reason": str(why), "status": status, "who": who})
        if not actor:
            key, now = f"remote:{details.get('remote', '')}", self.clock.monotonic()
            with self._lock:
                if self._unverified.retry_after(key, now) > 0:
                    return SlackAnswer(status, None, str(why))
                self._unverified.fail(key, now)
        subject = str(details.get("approval_id", ""))
        self.audit.record(actor or "slack:unverified", "slack.refused", subject, {**details, "reason": str(why)})
        return SlackAnswer(status, None, str(why))

    # ---- updating the message --------------------------------------------------------------

    @staticmethod
    def _message_of(payload: Mapping[str, Any]) -> dict[str, str]:
        """Where the clicked message is: its response_url, channel and ts."""
        container = payload.get("container") or {}
        channel = payload.get("channel") or {}
        return {
            "response_url": str(payload.get("response_url", "")),
            "channel": str(container.get("channel_id") or (channel.get("id") if isinstance(channel, dict) else "")),
            "ts": str(container.get("message_ts", "")),
        }

    def _replace(self, it: _Interaction, a: Approval, where: Mapping[str, Any]) -> None:
        """Show the request as it now is in the message that was clicked: through its response_url, else
        chat.update. A failure is logged: the decision stands, and the outbox updates the message later."""
        document = self.planner.current_approval_event(a, self.clock.utcnow()).document()
        message = self.render(document, True)
        update = {"text": message["text"], "blocks": message["blocks"]}
        try:
            if where.get("response_url"):
                self._respond(it, str(where["response_url"]), {"replace_original": True, **update})
            elif it.api is not None and where.get("channel") and where.get("ts"):
                it.api.call("chat.update", {"channel": where["channel"], "ts": where["ts"], **update})
        except SlackApiError as exc:
            log.warning("cannot update the Slack message", extra={"approval_id": a.approval_id, "error": str(exc)})

    def _ephemeral(self, it: _Interaction, text: str) -> None:
        url = str(it.payload.get("response_url", ""))
        if not url:
            return
        try:
            self._respond(it, url, {"response_type": "ephemeral", "replace_original": False, "text": text})
        except SlackApiError as exc:
            log.warning("cannot answer in Slack", extra={"error": str(exc)})

    def _respond(self, it: _Interaction, url: str, payload: Mapping[str, Any]) -> None:
        (it.api or self.api_for(it.channel)).respond(url, payload)


def _reason_view(a: Approval, where: Mapping[str, str]) -> dict[str, Any]:
    meta = json.dumps({"approval_id": a.approval_id, **where})
    return {
        "type": "modal",
        "callback_id": REJECT_VIEW,
        "private_metadata": meta,
        "title": {"type": "plain_text", "text": "Reject"},
        "submit": {"type": "plain_text", "text": "Reject"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {
                "type": "input",
                "block_id": REASON_BLOCK,
                "label": {"type": "plain_text", "text": "Reason (the agent receives it)"},
                "element": {
                    "type": "plain_text_input",
                    "action_id": REASON_INPUT,
                    "multiline": True,
                    "max_length": MAX_REASON,
                },
            }
        ],
    }
