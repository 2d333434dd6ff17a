"""Agents page (live): health, control channel, retries, recovery history, escalations and kills (with
their handoffs); admins kill an agent from here, through a server-rendered confirmation step, reinstate it,
and set its operator-owned record (group, labels, capabilities)."""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any, cast

from flask import Blueprint, Flask, render_template, request
from werkzeug.wrappers import Response

from console import sse
from console.actions import alone, require_sidecar
from console.security import current_user, require_role
from console.web import is_htmx, page, services, status_of
from server.container import Services
from server.domain.access.users import Role
from server.domain.errors import InvalidArgument, OutriderError
from server.domain.recovery.kill import KillReason

bp = Blueprint("agents", __name__)

TOPIC = "agents"
AGENT_LIMIT = 500
HISTORY_SIZE = 30
ESCALATIONS_SIZE = 10
KILLS_SIZE = 20
MAX_DETAILS = 2000
# Registrations, group moves, retry-count resets and "last seen" move no indicator: the page looks again
# this often (and sends only what changed).
REFRESH_SECONDS = 5.0
REASONS = [r.name for r in KillReason]
KILL_WAIT_SECONDS = 60.0


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    sse.watch(app, TOPIC, indicator(cast(Services, app.config["SERVICES"])))


def indicator(s: Services) -> sse.Indicator:
    """In-memory only (read four times a second): events, registrations, attachments, health results."""
    r = s.recovery

    def read() -> Hashable:
        health = r.health
        checks = tuple(
            (agent_id, status.healthy, status.check_time)
            for agent_id in health.targets()
            if (status := health.last_status(agent_id)) is not None
        )
        connected = tuple(sorted(r.hub.connected()))
        bucket = int(time.monotonic() // REFRESH_SECONDS)
        return (r.events.latest_sequence, s.agents.count(), connected, checks, bucket)

    return read


def attached_elsewhere() -> dict[str, str]:
    """Agent id -> the sidecar holding its control channel, for agents attached to another sidecar of the
    fleet (the attachments table; {} with one sidecar alone). A console's own process holds no channels."""
    attachments = services().recovery.hub.attachments
    if attachments is None:
        return {}
    me = attachments.sidecar_id
    return {a.agent_id: a.sidecar_id for a in attachments.all() if a.sidecar_id != me}


def live_context(oob: bool = False) -> dict[str, Any]:
    r = services().recovery
    statuses = r.agent_statuses("", AGENT_LIMIT, "")
    return {
        "elsewhere": attached_elsewhere(),
        "statuses": statuses.items,
        "more_agents": bool(statuses.next_page_token),
        "history": r.recent_history("", HISTORY_SIZE, "").items,
        "escalations": r.escalations(ESCALATIONS_SIZE, "").items,
        "kills": r.kill_history("", KILLS_SIZE, "").items,
        "contained": services().agents.contained(),
        "oob": oob,
    }


@bp.get("/agents")
def index() -> str:
    return page("agents.html", "_agents.html", **live_context(), alone=alone())


@bp.get("/events/agents")
def events() -> Response:
    def render() -> tuple[Hashable, str]:
        html = render_template("_agents.html", **live_context(oob=True))
        return html, html  # the page holds no clock-relative text: equal HTML, nothing new to show

    return sse.stream(render, TOPIC)


@bp.post("/agents/reinstate")
@require_role(Role.ADMIN)
def reinstate() -> tuple[str, int]:
    """Lift a kill's termination or an EJECT's quarantine (audited); answers with the page's live part."""
    agent_id, reason = request.form.get("agent", ""), request.form.get("reason", "").strip()[:MAX_DETAILS]
    try:
        lifted = services().agents.reinstate(agent_id, reason, current_user().label)
    except OutriderError as exc:
        return render_template("_agents.html", **live_context(), message=exc.message), status_of(exc)
    text = f"{agent_id} is no longer {lifted.standing.value}."
    return render_template("_agents.html", **live_context(), message=text), 200


# ---- records --------------------------------------------------------------------------------------


def _record_page(status_code: int = 200, **context: Any) -> tuple[str, int]:
    agent_id = context.get("agent_id", "")
    declared = any(r.agent_id == agent_id for r in services().config.agents.records)
    default_group = services().agents.settings.default_group
    html = page("record.html", "_record.html", declared=declared, default_group=default_group, **context)
    if is_htmx() and context.get("kind") == "ok":  # the table shows the change at once
        html += render_template("_agents.html", **live_context(oob=True))
    return html, status_code


@bp.get("/agents/record")
@require_role(Role.ADMIN)
def record_form() -> tuple[str, int]:
    """The record of `agent` to edit (404 for an unknown one); without `agent`, a blank form to register one."""
    agent_id = request.args.get("agent", "")
    if not agent_id:
        return _record_page(agent_id="", existing=False, group="", labels="", capabilities="")
    a = services().agents.get(agent_id)
    labels = "\n".join(f"{k}={v}" for k, v in sorted(a.labels.items()))
    return _record_page(
        agent_id=a.agent_id, existing=True, group=a.group, labels=labels, capabilities=", ".join(a.capabilities)
    )


def _labels(text: str) -> dict[str, str]:
    labels = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, sep, value = line.strip().partition("=")
        if not sep or not key.strip():
            raise InvalidArgument(f"labels line {n}: use key=value", field="labels")
        labels[key.strip()] = value.strip()
    return labels


@bp.post("/agents/record")
@require_role(Role.ADMIN)
def save_record() -> tuple[str, int]:
    """Create or replace an agent's record (audited as the reviewer); an ejected agent placed in a group is
    released from its quarantine, as with RegisterAgent."""
    form = request.form
    agent_id, group = form.get("agent", "").strip(), form.get("group", "").strip()
    labels_text, caps_text = form.get("labels", "")[:20_000], form.get("capabilities", "")[:20_000]
    context: dict[str, Any] = {"agent_id": agent_id, "group": group, "labels": labels_text, "capabilities": caps_text}
    try:
        caps = [c.strip() for c in caps_text.replace("\n", ",").split(",") if c.strip()]
        stored, created = services().agents.register(
            agent_id, group, caps, _labels(labels_text), actor=current_user().label
        )
    except OutriderError as exc:
        existing = services().agents.group_of(agent_id) is not None
        return _record_page(status_of(exc), message=exc.message, existing=existing, **context)
    context.update(group=stored.group, capabilities=", ".join(stored.capabilities))
    context["labels"] = "\n".join(f"{k}={v}" for k, v in sorted(stored.labels.items()))
    text = f"{'Registered' if created else 'Saved'} {stored.agent_id} in {stored.group}."
    return _record_page(message=text, kind="ok", existing=True, **context)


# ---- the kill switch -----------------------------------------------------------------------------


def _kill_page(step: str, status_code: int = 200, **context: Any) -> tuple[str, int]:
    timeout = services().recovery.settings.callback_timeout
    html = page(
        "kill.html",
        "_kill.html",
        step=step,
        reasons=REASONS,
        max_details=MAX_DETAILS,
        callback_timeout=timeout,
        **context,
    )
    if is_htmx() and step == "done":  # the history shows the kill at once, before the stream sends it
        html += render_template("_agents.html", **live_context(oob=True))
    return html, status_code


def _reason(value: str) -> KillReason:
    if value not in REASONS:
        raise InvalidArgument(f"reason must be one of {', '.join(REASONS)}", field="reason")
    return KillReason[value]


@bp.get("/agents/kill")
@require_role(Role.ADMIN)
def kill_form() -> tuple[str, int]:
    status = services().recovery.recovery.status(request.args.get("agent", ""))  # 404 for an unknown agent
    return _kill_page("form", status=status, reason=KillReason.MANUAL.name, details="")


@bp.post("/agents/kill")
@require_role(Role.ADMIN)
def kill() -> tuple[str, int]:
    """Without `confirm=yes`, the confirmation step (nothing happens yet); with it, the kill and its result."""
    form = request.form
    status = services().recovery.recovery.status(form.get("agent", ""))
    reason_name, details = form.get("reason", ""), form.get("details", "").strip()
    context: dict[str, Any] = {"status": status, "reason": reason_name, "details": details}
    try:
        require_sidecar()
        reason = _reason(reason_name)
        if len(details) > MAX_DETAILS:
            raise InvalidArgument(f"details must be at most {MAX_DETAILS} characters", field="details")
    except OutriderError as exc:
        return _kill_page("form", status_of(exc), message=exc.message, **context)
    step = form.get("confirm", "")
    if step == "edit":
        return _kill_page("form", **context)
    if step != "yes":
        return _kill_page("confirm", **context)
    agent_id = status.agent.agent_id
    try:
        result = services().recovery.kill_blocking(
            agent_id, reason, details=details, actor=current_user().label, timeout=KILL_WAIT_SECONDS
        )
    except OutriderError as exc:
        return _kill_page("form", status_of(exc), message=exc.message, **context)
    except TimeoutError:
        text = f"The kill of {agent_id} is still running after {KILL_WAIT_SECONDS:g}s; its record is in the history."
        return _kill_page("form", 504, message=text, **context)
    return _kill_page("done", kill=result, **context)
