"""Which name each upstream tool gets as the client sees it: unique across upstreams, so one server's tool never
shadows another's (`tool_collisions: refuse | namespace`).

Names collide when they look alike (the TR39 skeleton of their folded form, as the sidecar compares actions),
not only when they are equal. A name belongs to the upstream that listed it first: at start-up in the order of
`upstreams:`, later in the order tools appear, for the life of the process. Another upstream's tool with that
name is refused (start-up stops; later, the tool is left out) or exposed as `upstream.tool`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from server.domain.actions import look_alike_key

log = logging.getLogger("outrider.gateway")


class ToolCollision(Exception):
    """Two upstreams list tools of one name at start-up under `tool_collisions: refuse`."""


@dataclass(frozen=True)
class Collision:
    upstream: str
    tool: str  # the upstream's own name
    exposed: str  # the name it collided on
    owner: str  # the upstream that holds that name
    owner_tool: str
    namespaced: str  # what it is exposed as instead ("" when left out)

    def line(self) -> str:
        return (
            f"tool {self.exposed!r} of upstream {self.upstream!r} collides with tool {self.owner_tool!r} of upstream "
            f"{self.owner!r}"
        )


class ToolNames:
    def __init__(self, mode: str = "refuse") -> None:
        self.mode = mode
        self._owners: dict[str, tuple[str, str]] = {}  # look-alike key -> (upstream, exposed name)
        self._reported: set[tuple[str, str]] = set()

    def assign(self, listed: Iterable[tuple[str, str, str]], *, startup: bool = False) -> dict[tuple[str, str], str]:
        """(upstream, prefix, tool) in listing order -> {(upstream, tool): exposed name}; a tool left out has
        no entry. Raises ToolCollision at start-up under `refuse`."""
        names: dict[tuple[str, str], str] = {}
        for upstream, prefix, tool in listed:
            exposed = self._claim(upstream, prefix + tool)
            if exposed is None:
                namespaced = self._claim(upstream, f"{upstream}.{tool}") if self.mode == "namespace" else None
                owner, owner_tool = self._owners[look_alike_key(prefix + tool)]
                hit = Collision(upstream, tool, prefix + tool, owner, owner_tool, namespaced or "")
                if startup and self.mode == "refuse":
                    raise ToolCollision(hit.line())
                self._report(hit)
                exposed = namespaced
            if exposed is not None:
                names[(upstream, tool)] = exposed
        return names

    def _claim(self, upstream: str, exposed: str) -> str | None:
        key = look_alike_key(exposed)
        owner = self._owners.setdefault(key, (upstream, exposed))
        # The same upstream keeps its name; two look-alikes within one upstream are its own business (the
        # sidecar refuses look-alike actions anyway).
        return exposed if owner[0] == upstream else None

    def _report(self, hit: Collision) -> None:
        if (hit.upstream, hit.tool) in self._reported:
            return
        self._reported.add((hit.upstream, hit.tool))
        then = f"exposed as {hit.namespaced!r}" if hit.namespaced else "left out"
        log.warning("tool name collision: %s; %s", hit.line(), then)
