"""Every call waits, before anything answers it, until the sidecar's caches are within their staleness
bound (server/services/fleet/freshness.py): one clock read while they are, as they almost always are."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from server.services.fleet.freshness import CacheFreshness


class FreshnessInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, freshness: CacheFreshness) -> None:
        self.freshness = freshness

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        await self.freshness.ensure()
        return await continuation(details)
