"""Commands for an agent attached to another sidecar, routed through the database (fleet part 2).

The issuing sidecar looks up the agent's attachment (server/services/fleet/attachments.py): attached
nowhere, or held by a sidecar that is absent, answers NOT_CONNECTED at once. Otherwise it stores the
command in `fleet_commands`, addressed to the holder, whose listener is woken by the `commands` NOTIFY;
the holder claims it (`FOR UPDATE SKIP LOCKED`: sent to the agent at most once), sends it on the agent's
stream with the time left, and writes the agent's ack (or its own timeout) back; the issuer, woken by the
NOTIFY in turn, reads the outcome. The outcome is recorded once: the first of the holder's ack, the
issuer's timeout, or the issuer's verdict when the holder goes away.

The issuer looks at the row every `CHECK_SECONDS` too (the staleness bound without notifications), and
at the holder: gone before claiming, the command is readdressed to the agent's new holder or answered
NOT_CONNECTED; gone after claiming, it is reported SIDECAR_LOST (the agent may or may not have acted).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from server.domain.errors import Aborted
from server.domain.fleet.commands import END_STREAM, RoutedCommand, RoutedState
from server.domain.recovery.codec import from_json, to_json
from server.domain.recovery.control import CommandOutcome, CommandResult, CommandType, ControlCommand, Delivery
from server.domain.recovery.kill import HandoffPayload, KillPayload
from server.services.fleet.attachments import AttachmentService
from server.services.fleet.ports import COMMANDS_TOPIC, ChangeFeed, CommandRepository
from server.services.ports import Clock

if TYPE_CHECKING:
    from server.services.recovery.control_channel import ControlChannelHub

log = logging.getLogger(__name__)

CHECK_SECONDS = 0.25  # how often a waiting issuer reads its command's row and its holder's presence
_KEPT = timedelta(hours=1)  # settled commands stay this long (for inspection), then the heartbeat prunes them


def _payload(kind: str, data: Any) -> object | None:
    if data is None:
        return None
    value: object
    if kind == CommandType.KILL.name:
        value = from_json(KillPayload, data)
    elif kind == CommandType.HANDOFF.name:
        value = from_json(HandoffPayload, data)
    else:
        value = dict(data) if isinstance(data, dict) else data
    return value


def _result(c: RoutedCommand) -> CommandResult:
    outcome = CommandOutcome(c.outcome) if c.outcome else None
    return CommandResult(c.command_id, Delivery(c.delivery), outcome, c.detail)


class CommandRouter:
    def __init__(
        self,
        hub: ControlChannelHub,
        repo: CommandRepository,
        attachments: AttachmentService,
        changes: ChangeFeed,
    ) -> None:
        self.hub = hub
        self.repo = repo
        self.attachments = attachments
        self.sidecar_id = attachments.sidecar_id
        self._waiters: dict[str, asyncio.Event] = {}
        self._claiming = False
        self._claim_again = False
        changes.subscribe(COMMANDS_TOPIC, self._on_change, self._on_resync)

    @property
    def clock(self) -> Clock:
        return self.hub.clock

    def _gone_before(self) -> datetime:
        return self.clock.utcnow() - timedelta(seconds=self.attachments.settings.sidecar_timeout)

    # ---- the issuer ------------------------------------------------------------------------------

    async def holder(self, agent_id: str) -> str:
        """The present sidecar (not this one) holding the agent's channel; "" when there is none."""
        owner = await asyncio.to_thread(self.attachments.owner, agent_id)
        if owner is None or not owner[1] or owner[0].sidecar_id == self.sidecar_id:
            return ""
        return owner[0].sidecar_id

    async def attached_elsewhere(self) -> list[str]:
        """Agents attached to other present sidecars."""
        rows = await asyncio.to_thread(self.attachments.all)
        return [a.agent_id for a in rows if a.sidecar_id != self.sidecar_id]

    async def post(self, command: ControlCommand, kind: str = "", holder: str = "") -> RoutedCommand | None:
        """Store the command for the agent's holder; None when the agent is attached to no present sidecar."""
        holder = holder or await self.holder(command.agent_id)
        if not holder:
            return None
        routed = RoutedCommand(
            command.command_id,
            command.agent_id,
            kind or command.type.name,
            command.reason,
            to_json(command.payload),
            self.sidecar_id,
            holder,
            command.send_time,
            command.expire_time,
        )
        self._waiters[command.command_id] = asyncio.Event()
        try:
            await asyncio.to_thread(self.repo.insert, routed)
        except BaseException:
            self._waiters.pop(command.command_id, None)
            raise
        return routed

    async def request(self, command: ControlCommand, timeout: float, kind: str = "") -> CommandResult:
        """Route the command and wait for its outcome, at most `timeout` seconds (on the clock)."""
        deadline = self.clock.monotonic() + timeout
        routed = await self.post(command, kind)
        if routed is None:
            return CommandResult(command.command_id, Delivery.NOT_CONNECTED, detail="not connected")
        return await self.outcome(routed, deadline)

    async def recorded(self, command_id: str, deadline: float) -> CommandResult | None:
        """A command's stored outcome, or awaited until `deadline` when it is still in flight (its issuer
        may be gone: the holder's ack, or the holder's absence, decides); None: never routed."""
        seen = await asyncio.to_thread(self.repo.look, command_id, self._gone_before())
        if seen is None:
            return None
        row = seen[0]
        if row.state is RoutedState.SETTLED:
            return _result(row)
        return await self.outcome(row, deadline)

    async def outcome(self, routed: RoutedCommand, deadline: float) -> CommandResult:
        command_id = routed.command_id
        wake = self._waiters.setdefault(command_id, asyncio.Event())
        try:
            while True:
                left = deadline - self.clock.monotonic()
                if left <= 0:
                    return await self._settle(command_id, Delivery.TIMEOUT, None, "")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), min(left, CHECK_SECONDS))
                wake.clear()
                seen = await asyncio.to_thread(self.repo.look, command_id, self._gone_before())
                if seen is None:  # pruned: cannot happen within a wait, but never wait forever
                    return CommandResult(command_id, Delivery.NOT_CONNECTED, detail="not connected")
                row, present = seen
                if row.state is RoutedState.SETTLED:
                    return _result(row)
                if present:
                    continue
                if row.state is RoutedState.PENDING:  # never claimed: the agent may be attached elsewhere now
                    holder = await self.holder(row.agent_id)
                    if (
                        holder
                        and holder != row.target
                        and await asyncio.to_thread(self.repo.reroute, command_id, holder)
                    ):
                        log.info("routed command readdressed", extra={"command_id": command_id, "to": holder})
                        continue
                    return await self._settle(command_id, Delivery.NOT_CONNECTED, None, "not connected")
                detail = f"the agent's sidecar {row.target} went away after the command was delivered"
                return await self._settle(command_id, Delivery.SIDECAR_LOST, None, detail)
        finally:
            self._waiters.pop(command_id, None)

    async def _settle(
        self, command_id: str, delivery: Delivery, outcome: CommandOutcome | None, detail: str
    ) -> CommandResult:
        stored = await asyncio.to_thread(
            self.repo.settle, command_id, delivery.value, int(outcome or 0), detail, self.clock.utcnow()
        )
        return _result(stored)

    async def end_stream(self, agent_id: str, error: Aborted, timeout: float) -> bool:
        """Ask the holder to end the agent's stream with `error`; True once it did."""
        now = self.clock.utcnow()
        command = ControlCommand(
            self.hub.new_command_id(),
            agent_id,
            CommandType.PING,  # not sent to the agent: `kind` END_STREAM says what the holder does
            error.message,
            now,
            now + timedelta(seconds=timeout),
            {"message": error.message, "reason": error.reason},
        )
        result = await self.request(command, timeout, kind=END_STREAM)
        return result.succeeded

    # ---- the holder ------------------------------------------------------------------------------

    def _on_change(self, key: str) -> None:
        """The listener's thread: a command for this sidecar, or an outcome for one it waits on."""
        kind, _, rest = key.partition(":")
        sidecar, _, command_id = rest.partition(" ")
        if sidecar != self.sidecar_id:
            return
        if kind == "to":
            self._on_loop(self._claim())
        elif kind == "re":
            self._on_loop(self._wake(command_id))

    def _on_resync(self) -> None:
        self._on_loop(self._claim())
        self._on_loop(self._wake_all())

    def _on_loop(self, coro: Coroutine[Any, Any, None]) -> None:
        loop = self.hub.loop
        if loop is None or loop.is_closed():
            coro.close()
            return
        asyncio.run_coroutine_threadsafe(coro, loop)

    async def _wake(self, command_id: str) -> None:
        wake = self._waiters.get(command_id)
        if wake is not None:
            wake.set()

    async def _wake_all(self) -> None:
        for wake in self._waiters.values():
            wake.set()

    async def _claim(self) -> None:
        if self._claiming:  # one claim at a time; a wake-up meanwhile claims once more after it
            self._claim_again = True
            return
        self._claiming = True
        try:
            while True:
                self._claim_again = False
                for c in await asyncio.to_thread(self.repo.claim, self.sidecar_id, self.clock.utcnow()):
                    self.hub.spawn(self._deliver(c))
                if not self._claim_again:
                    return
        except Exception:
            log.exception("claiming routed commands failed (the next wake-up or resync retries)")
        finally:
            self._claiming = False

    async def _deliver(self, c: RoutedCommand) -> None:
        try:
            result = await self._execute(c)
        except Exception as exc:
            log.exception("delivering a routed command failed", extra={"command_id": c.command_id})
            result = CommandResult(c.command_id, Delivery.SIDECAR_LOST, None, f"delivery failed: {exc}")
        try:
            await self._settle(c.command_id, result.delivery, result.outcome, result.detail)
        except Exception:
            log.exception("recording a routed command's outcome failed", extra={"command_id": c.command_id})

    async def _execute(self, c: RoutedCommand) -> CommandResult:
        if c.kind == END_STREAM:
            data = c.payload if isinstance(c.payload, dict) else {}
            error = Aborted(str(data.get("message", "")), reason=str(data.get("reason", "")) or None)
            if self.hub.end_stream(c.agent_id, error):
                return CommandResult(c.command_id, Delivery.ACKED, CommandOutcome.SUCCESS, "stream ended")
            return CommandResult(c.command_id, Delivery.NOT_CONNECTED, detail="not connected")
        left = (c.expire_time - self.clock.utcnow()).total_seconds()
        if left <= 0:
            return CommandResult(c.command_id, Delivery.TIMEOUT)
        command = ControlCommand(
            c.command_id,
            c.agent_id,
            CommandType[c.kind],
            c.reason,
            c.issue_time,
            c.expire_time,
            _payload(c.kind, c.payload),
        )
        return await self.hub.deliver(command, left)

    # ---- housekeeping ----------------------------------------------------------------------------

    def prune(self) -> int:
        """With the heartbeat (blocking): settled commands older than an hour are deleted."""
        return self.repo.prune(self.clock.utcnow() - _KEPT)
