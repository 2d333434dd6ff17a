"""Rendering the event document for people: a Slack Block Kit message and plain-text + HTML email.

Everything an agent can influence (action names, context values) is escaped for the medium: Slack's
`&`, `<`, `>` (so a context value cannot write `<!channel>` or a disguised link), HTML entities in mail.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

MAX_SLACK_TEXT = 2900  # Slack caps a section's text at 3000 characters


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def waited(seconds: int) -> str:
    minutes, secs = divmod(max(0, seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if minutes else f"{secs}s"


def fields(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The labelled facts of an event, in the order people read them."""
    data: Mapping[str, Any] = document.get("data") or {}
    out = [("Agent", str(document.get("agent_id", "")))]
    if str(document.get("type", "")).startswith("approval."):
        out += [
            ("Action", str(data.get("action", ""))),
            ("Guardrail", str(data.get("guardrail", ""))),
            ("Waiting", waited(int(data.get("waiting_seconds", 0)))),
            ("Expires", str(data.get("expire_time") or "never")),
            ("State", str(data.get("state", ""))),
        ]
        if data.get("approvers"):
            out.append(("Approvers", ", ".join(map(str, data["approvers"]))))
        if int(data.get("approvals_needed") or 1) > 1:
            given = ", ".join(map(str, data.get("approved_by") or ()))
            count = f"{data.get('approvals_given', 0)} of {data['approvals_needed']}"
            out.append(("Approvals", f"{count} ({given})" if given else count))
        if data.get("decided_by"):
            out.append(("Decided by", str(data["decided_by"])))
        return out
    for key, value in data.items():
        if value in (None, "", [], {}):
            continue
        text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        out.append((key.replace("_", " ").capitalize(), text))
    return out


def context_lines(document: Mapping[str, Any]) -> list[str]:
    context = (document.get("data") or {}).get("context") or {}
    return [f"{k}: {v}" for k, v in context.items()]


APPROVE, REJECT, OPEN = "outrider_approve", "outrider_reject", "open_console"  # the buttons' action ids
_ASKING = ("approval.created", "approval.escalated", "approval.expiring")


def slack_message(document: Mapping[str, Any], interactive: bool = False) -> dict[str, Any]:
    """The Block Kit message of an event. `interactive`: a request still pending carries Approve and
    Reject buttons (their value is the approval id; Slack sends the click to /slack/interactions)."""
    title = str(document.get("title", ""))
    data: Mapping[str, Any] = document.get("data") or {}
    facts = [{"type": "mrkdwn", "text": f"*{k}*\n{slack_escape(v)[:1900]}"} for k, v in fields(document)[:10]]
    blocks: list[dict[str, Any]] = [
        {
            "type": "header",
            "text": {"type": "plain_text", "text": slack_escape(title[:140]) or "Outrider", "emoji": False},
        },
        {"type": "section", "fields": facts},
    ]
    lines = context_lines(document)
    if lines:
        text = slack_escape("\n".join(lines))[:MAX_SLACK_TEXT]
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": f"*Context*\n```{text}```"}})
    buttons: list[dict[str, Any]] = []
    pending = document.get("type") in _ASKING and data.get("state") == "PENDING"
    if interactive and pending and data.get("approval_id"):
        approval_id = str(data["approval_id"])
        buttons += [
            {
                "type": "button",
                "text": {"type": "plain_text", "text": "Approve"},
                "style": "primary",
                "action_id": APPROVE,
                "value": approval_id,
            },
            {
                "type": "button",
                "text": {"type": "plain_text", "text": "Reject"},
                "style": "danger",
                "action_id": REJECT,
                "value": approval_id,
            },
        ]
    link = str(document.get("link", ""))
    if link:
        text = "Open in console" if interactive else "Open in the Outrider console"
        buttons.append({"type": "button", "text": {"type": "plain_text", "text": text}, "url": link, "action_id": OPEN})
    if buttons:
        blocks.append({"type": "actions", "elements": buttons})
    blocks.append(
        {
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": slack_escape(f"{document.get('type')} · {document.get('id')}")}],
        }
    )
    return {"text": slack_escape(title), "blocks": blocks, "unfurl_links": False}


def email_bodies(document: Mapping[str, Any]) -> tuple[str, str, str]:
    """(subject, plain text, HTML)."""
    title = " ".join(str(document.get("title", "Outrider notification")).split())[:200]
    link = str(document.get("link", ""))
    facts = fields(document)
    lines = context_lines(document)
    plain = [title, ""] + [f"{k}: {v}" for k, v in facts]
    if lines:
        plain += ["", "Context:"] + [f"  {line}" for line in lines]
    if link:
        plain += ["", f"Open in the Outrider console: {link}"]
    plain += ["", f"Event {document.get('type')} {document.get('id')}"]
    rows = "".join(f"<tr><th align=left>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in facts)
    parts = [f"<h2>{html.escape(title)}</h2>", f"<table>{rows}</table>"]
    if lines:
        parts.append("<h3>Context</h3><pre>" + html.escape("\n".join(lines)) + "</pre>")
    if link:
        parts.append(f'<p><a href="{html.escape(link, quote=True)}">Open in the Outrider console</a></p>')
    stamp = html.escape(f"{document.get('type')} {document.get('id')}")
    parts.append(f"<p><small>{stamp}</small></p>")
    return "Outrider: " + title, "\n".join(plain) + "\n", "<html><body>" + "".join(parts) + "</body></html>"


def pretty(document: Mapping[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True)
