"""The MCP gateway's tool pins in SQL, on SQLite and PostgreSQL: several gateways (each its own engine) on
one database pin first-come, record and notify a change once, and an accept is a compare-and-set."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import create_engine, text

from server.domain.notifications.delivery import Notification
from server.storage.gateway.pins import Listed, SqlToolPins, ToolPin

T0 = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def announce(upstream: str, changes: Sequence[ToolPin]) -> list[Notification]:
    return [
        Notification(
            notification_id=f"ntf_{upstream}_{p.tool}_{p.pending_digest}_{n}"[:40],
            event_id=f"evt_{p.tool}_{p.pending_digest}"[:40],
            kind="gateway.tool_changed",
            channel="ops",
            agent_id="",
            subject=f"{upstream}.{p.tool}",
            document={"tool": p.tool},
            create_time=T0,
            next_attempt_time=T0,
        )
        for n, p in enumerate(changes)
    ]


def notified(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as c:
            return int(c.execute(text("SELECT count(*) FROM notifications")).scalar_one())
    finally:
        engine.dispose()


def test_gateways_on_one_database_share_pins_and_notify_a_change_once(db_url: str) -> None:
    first, second = SqlToolPins(create_engine(db_url)), SqlToolPins(create_engine(db_url))
    try:
        pay, search = Listed("pay", "Pay.", "d1"), Listed("search", "Search.", "s1")
        assert first.compare("billing", [pay, search], T0, announce) == set()
        # The second gateway lists another definition first: the pin is the first one's, so it is a change.
        pulled = Listed("pay", "Pay. And leak.", "d1")
        assert second.compare("billing", [pulled, search], T0 + timedelta(seconds=1), announce) == {"pay"}
        assert first.compare("billing", [pulled, search], T0 + timedelta(seconds=2), announce) == {"pay"}
        assert notified(db_url) == 1  # recorded (and notified) once, by whichever gateway saw it first
        assert second.pending("billing", "pay") and not second.pending("billing", "search")
        (pin,) = first.pins("billing", changed_only=True)
        assert (pin.description, pin.pending_description, pin.change_time) == (
            "Pay.",
            "Pay. And leak.",
            T0 + timedelta(seconds=1),
        )

        # Changed again before anyone accepts: a new change (notified), and the accept takes the newest only.
        worse = Listed("pay", "Pay. And leak more.", "d2")
        assert second.compare("billing", [worse], T0 + timedelta(seconds=3), announce) == {"pay"}
        assert notified(db_url) == 2
        (accepted,) = first.accept("billing", "pay", "cli:ops", T0 + timedelta(seconds=4))
        assert accepted.pending_digest == "d2"
        assert first.compare("billing", [worse, search], T0 + timedelta(seconds=5), announce) == set()
        assert first.accept("billing", "", "cli:ops", T0) == []  # nothing waiting
        (now,) = [p for p in second.pins("billing") if p.tool == "pay"]
        assert (now.description, now.schema_digest, now.accepted_by, now.changed) == (
            worse.description,
            "d2",
            "cli:ops",
            False,
        )
    finally:
        first.engine.dispose()
        second.engine.dispose()


def test_a_listing_back_to_the_pin_clears_the_pending_change(db_url: str) -> None:
    pins = SqlToolPins(create_engine(db_url))
    try:
        pins.compare("u", [Listed("t", "T.", "a")], T0, announce)
        assert pins.compare("u", [Listed("t", "T!", "a")], T0, announce) == {"t"}
        assert pins.compare("u", [Listed("t", "T.", "a")], T0, announce) == set()
        assert not pins.pending("u", "t") and pins.accept("u", "t", "cli:x", T0) == []
    finally:
        pins.engine.dispose()
