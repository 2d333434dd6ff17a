"""Approval pages: pending (live), detail, decide, edit-then-approve, history."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from console import jsondiff
from console.security import current_user, require_role
from console.web import is_htmx, page, services
from server.domain.access.users import Role, User
from server.domain.approvals.requests import Approval, ApprovalFilter, ApprovalState, Reviewer, check_reviewer
from server.domain.errors import InvalidArgument, PermissionDenied
from server.domain.guardrails.decisions import Decision, DecisionFilter
from server.domain.notifications.events import summarize

bp = Blueprint("approvals", __name__)

HISTORY_PAGE_SIZE = 50
DECIDED = [s.name for s in ApprovalState if s is not ApprovalState.PENDING]


def reviewer_of(user: User) -> Reviewer:
    return Reviewer(name=user.name, role=user.role.value, groups=frozenset(user.groups))


# ---- pending ---------------------------------------------------------------------------------


@bp.get("/approvals")
def pending() -> str:
    return page("pending.html", "_pending.html", **pending_context())


SORTS = {"age": "Waiting longest first", "time_left": "Expiring soonest first"}
SUMMARY_KEYS = 3  # context keys shown in a pending row


@dataclass(frozen=True, slots=True)
class PendingRow:
    """One row of the triage list: a request, and the same call asked again under other request ids (an
    agent retrying without its request id): one row, opened at the oldest."""

    a: Approval
    again: tuple[Approval, ...]
    summary: tuple[tuple[str, str], ...]
    more_keys: int
    level: str


def pending_context(oob: bool = False) -> dict[str, Any]:
    """The pending list as the request's filters (`agent`, `action`, `guardrail`) and `sort` say."""
    s = services()
    args = request.args
    f = {k: args.get(k, "").strip() for k in ("agent", "action", "guardrail")}
    sort = args.get("sort", "age") if args.get("sort", "age") in SORTS else "age"
    everything = s.approvals.pending()
    groups: dict[tuple[str, str, str], list[Approval]] = {}
    for a in sorted(everything, key=lambda a: a.create_time):
        if (f["agent"] and a.agent_id != f["agent"]) or (f["action"] and a.action != f["action"]):
            continue
        if f["guardrail"] and a.guardrail != f["guardrail"]:
            continue
        groups.setdefault((a.agent_id, a.guardrail, a.digest), []).append(a)
    rows = [_row(first, tuple(rest), s.config.sensitive_keys) for first, *rest in groups.values()]
    if sort == "time_left":
        never = datetime.max.replace(tzinfo=UTC)
        rows.sort(key=lambda r: (r.a.expire_time or never, r.a.create_time))
    query = {k: v for k, v in {**f, "sort": sort if sort != "age" else ""}.items() if v}
    choices = {
        "agent": sorted({a.agent_id for a in everything} | ({f["agent"]} - {""})),
        "action": sorted({a.action for a in everything} | ({f["action"]} - {""})),
        "guardrail": sorted({a.guardrail for a in everything} | ({f["guardrail"]} - {""})),
    }
    return {
        "approvals": everything,
        "rows": rows,
        "total": len(everything),
        "f": f,
        "sort": sort,
        "sorts": SORTS,
        "query": query,
        "choices": choices,
        "now": datetime.now(UTC),
        "oob": oob,
    }


def _row(a: Approval, again: tuple[Approval, ...], sensitive_keys: Sequence[str]) -> PendingRow:
    summary = summarize(jsondiff.plain(dict(a.context)), None, sensitive_keys)
    shown = tuple(list(summary.items())[:SUMMARY_KEYS])
    level = services().reversibility.assess(a.action, dict(a.context)).level.name
    return PendingRow(a, again, shown, max(0, len(a.context) - len(shown)), level)


def pending_key(ctx: dict[str, Any]) -> tuple[object, ...]:
    """What the pending list shows changes exactly when this does."""
    rows: list[PendingRow] = ctx["rows"]
    return (
        ctx["total"],
        tuple((r.a.approval_id, r.a.version, len(r.again), r.a.abandoned_at is not None) for r in rows),
    )


# ---- detail and deciding ---------------------------------------------------------------------


@bp.get("/approvals/<approval_id>")
def detail(approval_id: str) -> str:
    a = services().approvals.get(approval_id)
    s = services()
    earlier = s.approvals.list(ApprovalFilter(agent_id=a.agent_id, action=a.action), 21, "").items
    same_action = s.decisions.list(DecisionFilter(agent_id=a.agent_id, action=a.action), OWN_DECISIONS_SCAN, "").items
    recent = s.decisions.list(DecisionFilter(agent_id=a.agent_id), RECENT_DECISIONS, "").items
    return page(
        "approval.html",
        "_approval_status.html",
        **detail_context(a),
        context_json=jsondiff.pretty(dict(a.context)),
        context_plain=jsondiff.plain(dict(a.context)),
        edit_diff=jsondiff.diff(dict(a.context), dict(a.edited_context)) if a.edited_context is not None else [],
        earlier_approvals=[e for e in earlier if e.approval_id != a.approval_id][:20],
        own_decisions=[d for d in same_action if belongs_to(d, a)],
        recent_decisions=recent,
        reversibility=s.reversibility.assess(a.action, dict(a.context)),
    )


_APPROVAL_ID = re.compile(r"\bapr_[0-9a-f]+\b")
OWN_DECISIONS_SCAN = 200  # the latest decisions of the agent and action searched for this request's own
RECENT_DECISIONS = 10


def belongs_to(d: Decision, a: Approval) -> bool:
    """Whether decision `d` answered a call about request `a`: the agent's calls that attached to it (the
    same request id, or the same trace), or an answer naming it ("Waiting for approval apr_...")."""
    if d.agent_id != a.agent_id or d.action != a.action or d.create_time < a.create_time - timedelta(seconds=5):
        return False
    named = set(_APPROVAL_ID.findall(d.reason))
    if named:
        return a.approval_id in named  # another request of the same call id (on_reuse: ask_again) is not this
    if a.request_id and d.request_id == a.request_id:
        return True
    return bool(a.trace_id) and d.trace_id == a.trace_id


def detail_context(a: Approval, oob: bool = False) -> dict[str, Any]:
    """What _approval_status.html and _decide.html need (also used by the live stream)."""
    return {"a": a, "now": datetime.now(UTC), "oob": oob, "cannot_decide": _cannot_decide(a)}


def _cannot_decide(a: Approval) -> str:
    user = current_user()
    if a.closed or not user.can_decide:
        return ""
    if any(v.reviewer == user.name for v in a.votes):
        return "You have voted on this request; it waits for other approvers."
    try:
        check_reviewer(a, reviewer_of(user))
    except PermissionDenied as exc:
        return f"You may not decide this request: {exc.message}."
    return ""


@bp.post("/approvals/<approval_id>/decide")
@require_role(Role.APPROVER)
def decide(approval_id: str) -> Any:
    decision = request.form.get("decision", "")
    if decision not in ("approve", "reject"):
        raise InvalidArgument("choose Approve or Reject", field="decision")
    comment = request.form.get("comment", "").strip()
    edited = _parse_context(request.form["edited_context"]) if "edited_context" in request.form else None
    if decision == "reject" and not comment:
        raise InvalidArgument("write a comment to reject: the agent receives it with the block", field="comment")
    a = services().approvals.decide(approval_id, reviewer_of(current_user()), decision == "approve", comment, edited)
    detail_url = url_for("approvals.detail", approval_id=approval_id)
    done = f"{'Approved' if decision == 'approve' else 'Rejected'} {approval_id}: it is now {a.state.name}."
    if not is_htmx():
        flash(done, "ok")
        return redirect(detail_url, 303)
    if request.form.get("from") == "edit":
        flash(done, "ok")
        return Response("", 200, {"HX-Redirect": detail_url}, mimetype="text/html")
    # The form's own section becomes the outcome; the status above it updates out of band.
    html = render_template("_decide.html", **detail_context(a)) + render_template(
        "_approval_status.html", **detail_context(a, oob=True)
    )
    return Response(html, 200, {"HX-Retarget": "#decide", "HX-Reswap": "outerHTML"}, mimetype="text/html")


@bp.get("/approvals/<approval_id>/edit")
@require_role(Role.APPROVER)
def edit(approval_id: str) -> str:
    a = services().approvals.get(approval_id)
    current = dict(a.edited_context) if a.edited_context is not None else dict(a.context)
    return render_template(
        "edit.html", a=a, edited_json=jsondiff.pretty(current), error="", diff=jsondiff.diff(dict(a.context), current)
    )


@bp.post("/approvals/<approval_id>/preview")
@require_role(Role.APPROVER)
def preview(approval_id: str) -> str:
    """Validation and the diff against the original, as the reviewer types."""
    a = services().approvals.get(approval_id)
    try:
        edited = _parse_context(request.form.get("edited_context", ""))
    except InvalidArgument as exc:
        return render_template("_edit_preview.html", error=exc.message, diff=[])
    return render_template("_edit_preview.html", error="", diff=jsondiff.diff(dict(a.context), edited))


def _parse_context(text: str) -> dict[str, Any]:
    limit = services().config.max_context_bytes
    if len(text.encode()) > limit:
        raise InvalidArgument(f"the context is over the limit of {limit} bytes", field="edited_context")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(f"line {exc.lineno}, column {exc.colno}: {exc.msg}", field="edited_context") from None
    if not isinstance(value, dict):
        raise InvalidArgument("the context must be a JSON object ({...})", field="edited_context")
    return value


# ---- history ---------------------------------------------------------------------------------


@bp.get("/history")
def history() -> str:
    args = request.args
    f = {k: args.get(k, "").strip() for k in ("agent", "action", "state", "reviewer", "start", "end")}
    query: dict[str, Any] = {k: v for k, v in f.items() if v}
    token = args.get("page", "")
    size = max(1, min(args.get("size", type=int) or HISTORY_PAGE_SIZE, 500))
    if size != HISTORY_PAGE_SIZE:
        query["size"] = size
    context: dict[str, Any] = {"f": f, "query": query, "states": DECIDED, "page_token": token}
    try:
        flt = ApprovalFilter(
            agent_id=f["agent"],
            action=f["action"],
            state=_state(f["state"]),
            reviewer=f["reviewer"],
            start_time=_when(f["start"], "start"),
            end_time=_when(f["end"], "end"),
            closed_only=True,  # pending requests are on the pending page
        )
        result = services().approvals.list(flt, size, token)
    except InvalidArgument as exc:
        return page("history.html", "_history.html", **context, approvals=[], next_page_token="", error=exc.message)
    return page(
        "history.html", "_history.html", **context, approvals=result.items, next_page_token=result.next_page_token
    )


def _state(value: str) -> ApprovalState | None:
    if not value:
        return None
    if value not in DECIDED:
        raise InvalidArgument(f"state must be one of {', '.join(DECIDED)}", field="state")
    return ApprovalState[value]


def _when(value: str, name: str) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidArgument(f"{name} is not a date and time like 2026-01-31T14:30", field=name) from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
