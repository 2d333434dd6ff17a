"""Who is calling: on stdio, the agent the gateway config names; over HTTP, the agent whose Outrider token
the MCP client sends as `Authorization: Bearer otr_...` (checked by the sidecar's WhoAmI, cached briefly).

Each HTTP principal's CheckActions go out with its own token, so the sidecar itself holds the agent to
its own id.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from outrider import TLS, AsyncClient
from outrider.errors import OutriderError, UnauthenticatedError, UnimplementedError
from outrider.v1 import access_pb2, access_service_pb2, supervisor_service_pb2
from server.gateway.config import SidecarConfig

# A revoked token keeps working through the gateway for at most this long.
TOKEN_CACHE_SECONDS = 5.0
MAX_CLIENTS = 256
UNAUTHORIZED = -32001  # the JSON-RPC error code MCP servers use for a missing or bad credential


@dataclass(frozen=True)
class Principal:
    agent_id: str
    client: AsyncClient


class PrincipalResolver:
    def __init__(self, sidecar: SidecarConfig, agent_id: str = "", *, http: bool = False) -> None:
        self.sidecar = sidecar
        self.http = http
        self.tls = TLS(sidecar.ca_file, sidecar.cert_file, sidecar.key_file) if sidecar.ca_file else None
        self.default: Principal | None = None
        if not http:
            if not agent_id:
                raise ValueError("agent_id is required in the gateway config for stdio")
            self.default = Principal(agent_id, self._client(sidecar.token))
        # token -> (principal, checked at): bounded, oldest evicted.
        self._tokens: OrderedDict[str, tuple[Principal, float]] = OrderedDict()
        self.explain_supported = True

    def _client(self, token: str | None) -> AsyncClient:
        return AsyncClient(self.sidecar.target, token, tls=self.tls, timeout=self.sidecar.timeout)

    async def resolve(self, ctx: Any) -> Principal:
        if self.default is not None:
            return self.default
        request = getattr(ctx, "request", None)
        headers: Mapping[str, str] = getattr(request, "headers", None) or {}
        return await self.from_header(headers.get("authorization", ""))

    async def from_header(self, header: str) -> Principal:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise MCPError(UNAUTHORIZED, "send your Outrider agent token as 'Authorization: Bearer otr_...'")
        token = token.strip()
        cached = self._tokens.get(token)
        now = time.monotonic()
        if cached is not None and now - cached[1] < TOKEN_CACHE_SECONDS:
            return cached[0]
        client = cached[0].client if cached else self._client(token)
        try:
            who = await client.call(client.access.WhoAmI, access_service_pb2.WhoAmIRequest())
        except UnauthenticatedError:
            self._forget(token)
            raise MCPError(UNAUTHORIZED, "the Outrider token was refused") from None
        except OutriderError as exc:
            raise MCPError(types.INTERNAL_ERROR, f"Outrider could not check the token: {exc.message}") from None
        if who.kind != access_pb2.PRINCIPAL_KIND_AGENT:
            raise MCPError(UNAUTHORIZED, "an agent token is required (operator tokens cannot call tools)")
        principal = cached[0] if cached else Principal(who.subject, client)
        self._tokens[token] = (principal, now)
        self._tokens.move_to_end(token)
        while len(self._tokens) > MAX_CLIENTS:
            _, (old, _) = self._tokens.popitem(last=False)
            await old.client.close()
        return principal

    def _forget(self, token: str) -> None:
        self._tokens.pop(token, None)

    async def always_denied(self, principal: Principal, action: str, context: Mapping[str, Any]) -> bool:
        """Whether the chain blocks this action for this agent whatever the arguments, asked without side
        effects (ExplainAction: no rate count, no approval, no permit, no decision record)."""
        if not self.explain_supported:
            return False
        client = principal.client
        request = supervisor_service_pb2.ExplainActionRequest(agent_id=principal.agent_id, action=action)
        request.context.update(dict(context))
        try:
            response = await client.call(client.supervisor.ExplainAction, request)
        except UnimplementedError:
            self.explain_supported = False  # an older sidecar: show every tool
            return False
        return bool(not response.allowed and not response.needs_approval)

    async def close(self) -> None:
        if self.default is not None:
            await self.default.client.close()
        for principal, _ in self._tokens.values():
            await principal.client.close()
