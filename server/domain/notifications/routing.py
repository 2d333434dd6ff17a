"""Which channels hear of an event: the hitl guardrail's `notify:` list, the per-kind routes, the
approver groups' channels, and (for a decision) the requesting agent owner's channels; each channel once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from server.domain.notifications.events import EventKind

GROUP_PREFIX = "group:"


@dataclass(frozen=True, slots=True)
class Routes:
    """The config's `notifications.routes` (kind -> channels), `.groups` and `.owners`."""

    events: Mapping[EventKind, tuple[str, ...]] = field(default_factory=dict)
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # approver group -> channels
    owners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # agent owner -> channels

    def channels(
        self,
        kind: EventKind,
        *,
        notify: Sequence[str] = (),
        approvers: Sequence[str] = (),
        owner: str = "",
    ) -> tuple[str, ...]:
        """In a stable order, without repeats. A decision goes to its kind's route and the requester's
        (owner's) channels, not to the reviewers' `notify:` channels: they took it."""
        found: list[Iterable[str]] = [self.events.get(kind, ())]
        if kind is EventKind.APPROVAL_DECIDED:
            found.append(self.owners.get(owner, ()) if owner else ())
        elif kind.value.startswith("approval."):
            found.append(notify)
            for who in approvers:
                if who.startswith(GROUP_PREFIX):
                    found.append(self.groups.get(who.removeprefix(GROUP_PREFIX), ()))
        return unique(c for group in found for c in group)


def unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
