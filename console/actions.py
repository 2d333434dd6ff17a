"""What the live pages' admin actions share: the sidecar-only guard and the answer to an action.

An action on a live page answers htmx with a message for the form's message area and the page's live
section out of band (so the change shows at once, before the stream sends it); without htmx it
redirects back (post/redirect/get) or shows the refusal as a page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import flash, redirect, render_template

from console.web import is_htmx, message, services, status_of
from server.domain.errors import FailedPrecondition, OutriderError


def alone() -> bool:
    """True in a separate `outrider console` on SQLite: agents, breakers and budgets live in the sidecar's memory
    (on PostgreSQL the console is a member of the fleet and acts through the same services)."""
    return bool(services().health.get("console_alone"))


def require_sidecar() -> None:
    if alone():
        raise FailedPrecondition(
            "This console runs apart from the sidecar: act from the console the sidecar serves, or over gRPC.",
            reason="CONSOLE_ALONE",
        )


def run(action: Callable[[], str], live: Callable[[], str], back: str) -> Any:
    """Run `action` (it returns the success message) and answer; `live()` renders the live section (oob)."""
    try:
        require_sidecar()
        text = action()
    except OutriderError as exc:
        if not is_htmx():
            return message(exc.message, status_of(exc))
        return _fragment(exc.message, "error", status_of(exc), live())
    if not is_htmx():
        flash(text, "ok")
        return redirect(back, 303)
    return _fragment(text, "ok", 200, live())


def _fragment(text: str, kind: str, status: int, live_html: str) -> tuple[str, int]:
    return render_template("_message.html", text=text, kind=kind, status=status) + live_html, status
