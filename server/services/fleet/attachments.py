"""Where each agent's control channel is held, fleet-wide: this sidecar records its Attach streams (on
attach and detach, stamped with every heartbeat) and reads which sidecar holds another agent's.

The table is the truth for routing commands (server/services/recovery/routing.py). A sidecar that dies
leaves its rows behind: they count as absent at once (see `present` in server/storage/fleet/attachments.py)
and the next heartbeat of any sidecar deletes them. Blocking: call it off the event loop.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from server.domain.fleet.attachments import Attachment
from server.services.fleet.ports import AttachmentRepository
from server.services.fleet.settings import FleetSettings
from server.services.ports import Clock

log = logging.getLogger(__name__)


class AttachmentService:
    def __init__(self, repo: AttachmentRepository, clock: Clock, settings: FleetSettings, sidecar_id: str) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.sidecar_id = sidecar_id

    def _gone_before(self) -> datetime:
        return self.clock.utcnow() - timedelta(seconds=self.settings.sidecar_timeout)

    def attached(self, agent_id: str, attachment_id: str, connect_time: datetime) -> None:
        self.repo.attach(Attachment(agent_id, attachment_id, self.sidecar_id, connect_time, connect_time))

    def detached(self, agent_id: str, attachment_id: str) -> None:
        self.repo.detach(agent_id, attachment_id)

    def heartbeat(self, last_seen: Mapping[str, datetime]) -> int:
        """With this sidecar's heartbeat: stamp its agents' last sign of life, forget dead sidecars' rows."""
        self.repo.seen(self.sidecar_id, last_seen)
        return self.release_gone()

    def reassert(self, held: Sequence[tuple[str, str, datetime, datetime]]) -> list[str]:
        """With this sidecar's heartbeat: the streams it holds (agent, attachment id, connect time, last
        seen) stamped, or recorded again where another sidecar released them while this one was paused past
        the timeout; returns the agents that attached again elsewhere since (their stream here is stale)."""
        return self.repo.reassert([Attachment(a, att, self.sidecar_id, c, seen) for a, att, c, seen in held])

    def release_gone(self) -> int:
        """Forget the rows of sidecars that stopped or fell silent (never this sidecar's own)."""
        released = self.repo.release_gone(self._gone_before(), keep=self.sidecar_id)
        if released:
            log.info("attachments of gone sidecars released", extra={"count": released})
        return released

    def owner(self, agent_id: str) -> tuple[Attachment, bool] | None:
        """The agent's attachment and whether the sidecar holding it is present; None: attached nowhere."""
        return self.repo.owner(agent_id, self._gone_before())

    def present(self, sidecar_id: str) -> bool:
        return self.repo.present(sidecar_id, self._gone_before())

    def release_mine(self) -> None:
        """At shutdown: this sidecar's streams are ending."""
        self.repo.release_sidecar(self.sidecar_id)

    def all(self) -> Sequence[Attachment]:
        return self.repo.all()
