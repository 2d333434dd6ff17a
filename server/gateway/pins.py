"""Tool pinning: the first listing of each upstream tool (description, inputSchema digest) is pinned; a later
listing that differs hides the tool, refuses calls to it and tells operators, until accepted with
`outrider gateway tools accept` (a server cannot change a trusted tool under its users: a "rug pull").

With `pins.database`, pins live in the sidecars' database (shared by every gateway on it; the outbox rows
that notify operators go to `pins.notify` channels, delivered by the sidecars). Without it, in this
process's memory: a change stays hidden until the gateway restarts, which pins anew.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import anyio
import mcp_types as types

from server.domain.notifications.delivery import Notification
from server.domain.notifications.events import EventKind, NotificationEvent, event_id
from server.domain.values import canonical_json
from server.gateway.config import PinsConfig

log = logging.getLogger("outrider.gateway")


def schema_digest(schema: Any) -> str:
    """SHA-256 of the canonical JSON of a tool's inputSchema. A schema that is not strict JSON (the MCP SDK parses
    NaN and Infinity) is digested as Python's JSON writes it: a listing never fails on what one upstream sent."""
    try:
        text = canonical_json(schema or {})
    except (ValueError, TypeError):
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ToolPins(Protocol):
    async def compare(self, upstream: str, tools: Sequence[types.Tool]) -> set[str]:
        """Pin the new tools; the names of those whose listing differs from their pin."""
        ...

    async def changed(self, upstream: str, tool: str) -> bool: ...

    def close(self) -> None: ...


class MemoryPins:
    def __init__(self) -> None:
        self._pins: dict[tuple[str, str], tuple[str, str]] = {}
        self._warned: set[tuple[str, str, str, str]] = set()

    async def compare(self, upstream: str, tools: Sequence[types.Tool]) -> set[str]:
        changed: set[str] = set()
        for tool in tools:
            seen = (tool.description or "", schema_digest(tool.input_schema))
            pinned = self._pins.setdefault((upstream, tool.name), seen)
            if pinned != seen:
                changed.add(tool.name)
                if (upstream, tool.name, *seen) not in self._warned:
                    self._warned.add((upstream, tool.name, *seen))
                    _warn(upstream, tool.name)
        return changed

    async def changed(self, upstream: str, tool: str) -> bool:
        return False  # only what this process listed, which the listing already hid

    def close(self) -> None:
        pass


class DatabasePins:
    def __init__(self, config: PinsConfig) -> None:
        # Storage is imported here only: a gateway without `pins.database` needs none of it.
        from server.storage.db import create_db_engine, migrate
        from server.storage.gateway.pins import SqlToolPins

        self.notify = config.notify
        self.engine = create_db_engine(config.database)
        migrate(self.engine)
        self.repo = SqlToolPins(self.engine)

    async def compare(self, upstream: str, tools: Sequence[types.Tool]) -> set[str]:
        from server.storage.gateway.pins import Listed

        listed = [Listed(t.name, t.description or "", schema_digest(t.input_schema)) for t in tools]
        now = datetime.now(UTC)
        return await anyio.to_thread.run_sync(lambda: self.repo.compare(upstream, listed, now, self._announce))

    async def changed(self, upstream: str, tool: str) -> bool:
        return await anyio.to_thread.run_sync(lambda: self.repo.pending(upstream, tool))

    def _announce(self, upstream: str, changes: Sequence[Any]) -> list[Notification]:
        rows: list[Notification] = []
        for pin in changes:
            _warn(upstream, pin.tool)
            what = [
                name
                for name, differs in (
                    ("description", pin.pending_description != pin.description),
                    ("inputSchema", pin.pending_digest != pin.schema_digest),
                )
                if differs
            ]
            key = hashlib.sha256(canonical_json([pin.pending_description, pin.pending_digest]).encode()).hexdigest()
            event = NotificationEvent(
                event_id(EventKind.GATEWAY_TOOL_CHANGED, upstream, pin.tool, key),
                EventKind.GATEWAY_TOOL_CHANGED,
                pin.change_time,
                "",
                f"{upstream}.{pin.tool}"[:160],
                f"MCP tool {pin.tool} of upstream {upstream} changed ({', '.join(what)}); hidden until accepted",
                "",
                {
                    "upstream": upstream,
                    "tool": pin.tool,
                    "changed": what,
                    "pinned_description": pin.description[:500],
                    "description": (pin.pending_description or "")[:500],
                    "pinned_schema_digest": pin.schema_digest,
                    "schema_digest": pin.pending_digest,
                    "accept": f"outrider gateway tools accept --upstream {upstream} --tool {pin.tool}",
                },
            )
            document = event.document()
            for channel in self.notify:
                rows.append(
                    Notification(
                        notification_id="ntf_" + secrets.token_hex(8),
                        event_id=event.event_id,
                        kind=event.kind.value,
                        channel=channel,
                        agent_id="",
                        subject=event.subject,
                        document=document,
                        create_time=event.occur_time,
                        next_attempt_time=event.occur_time,
                    )
                )
        return rows

    def close(self) -> None:
        self.engine.dispose()


def _warn(upstream: str, tool: str) -> None:
    log.warning(
        "tool %r of upstream %r changed since it was pinned; hidden until accepted "
        "(outrider gateway tools accept --upstream %s --tool %s)",
        tool,
        upstream,
        upstream,
        tool,
    )


def open_pins(config: PinsConfig | None) -> ToolPins:
    return DatabasePins(config) if config is not None and config.database else MemoryPins()
