"""`outrider mcp-gateway`: an MCP server in front of MCP servers; every tools/call is a CheckAction first.

Allowed: forwarded (with an approver's edited arguments). Blocked: a CallToolResult with isError and the
reason. Pending: held up to `approval_wait`, then isError "waiting for human approval apr_...; call again
to continue"; the identical call, from this process or a restarted one, re-attaches to the same approval.
Tools, resources and prompts of every upstream are proxied; the upstream's results go back as they are.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from opentelemetry import context as otel_context
from opentelemetry import propagate

from outrider.errors import InvalidArgumentError, OutriderError
from outrider.integrations import AsyncToolGuard, ToolDecision
from server.domain.values import canonical_json
from server.gateway.config import GatewayConfig
from server.gateway.names import ToolNames
from server.gateway.pins import MemoryPins, ToolPins
from server.gateway.principals import Principal, PrincipalResolver
from server.gateway.schemas import ArgumentsRefused, conform
from server.gateway.upstreams import Upstream, UpstreamError

log = logging.getLogger("outrider.gateway")
META_KEY = "dev.outrider/check"
RESERVED = "mcp"  # the context key the gateway adds: {mcp: {server, tool}}
MAX_PENDING = 10_000
MAX_GENERATION_STEPS = 32


@dataclass(frozen=True)
class Route:
    upstream: Upstream
    name: str  # the upstream's own name for the tool or prompt
    schema: Mapping[str, Any] | None = None  # a tool's inputSchema, as listed


class Gateway:
    """The proxy: routes by exposed name, guards tools/call, aggregates listings."""

    def __init__(self, config: GatewayConfig, principals: PrincipalResolver, pins: ToolPins | None = None) -> None:
        self.config = config
        self.principals = principals
        self.upstreams = [Upstream(u) for u in config.upstreams]
        self._tools: dict[str, Route] = {}
        self.names = ToolNames(config.tool_collisions)
        self.pins = pins or MemoryPins()
        self._changed: dict[str, str] = {}  # exposed name of a hidden changed tool -> its upstream
        self._prompts: dict[str, Route] = {}
        self._resources: dict[str, Upstream] = {}
        # Call key -> the generation of its request id (see `_request_id`). A cache only: a restarted gateway
        # starts from generation 0 and walks past the approvals already used, so it re-attaches to the call's
        # open request instead of asking the reviewer a second time.
        self._generation: OrderedDict[str, int] = OrderedDict()

    # ---- listings -------------------------------------------------------------------------

    async def start(self) -> None:
        """Name every upstream's tools once, in the order of `upstreams:` (ToolCollision under `refuse`). An
        upstream that cannot be reached now gets its names when it first answers a listing."""
        listed: list[tuple[Upstream, types.Tool]] = []
        for up in self.upstreams:
            try:
                listed.extend((up, tool) for tool in await self._all(up, "list_tools", "tools"))
            except MCPError as exc:
                log.warning("upstream not listed at start-up", extra={"upstream": up.name, "error": exc.message})
        self._route_tools(listed, await self._pin(listed), startup=True)

    async def list_tools(self, principal: Principal) -> list[types.Tool]:
        listed: list[tuple[Upstream, types.Tool]] = []
        for up in self.upstreams:
            listed.extend((up, tool) for tool in await self._all(up, "list_tools", "tools"))
        tools = self._route_tools(listed, await self._pin(listed))
        if self.config.hide_denied_tools:
            routes = self._tools
            tools = [t for t in tools if not await self._always_denied(principal, routes[t.name], t.name)]
        return tools

    async def _pin(self, listed: list[tuple[Upstream, types.Tool]]) -> set[tuple[str, str]]:
        """(upstream, tool) of the tools whose listing differs from their pin (see pins.py)."""
        changed: set[tuple[str, str]] = set()
        for up in self.upstreams:
            tools = [t for u, t in listed if u is up]
            changed |= {(up.name, name) for name in await self.pins.compare(up.name, tools)}
        return changed

    def _route_tools(
        self, listed: list[tuple[Upstream, types.Tool]], changed: set[tuple[str, str]], *, startup: bool = False
    ) -> list[types.Tool]:
        """The tools as the client sees them, each under its unique name (see names.py), without the changed
        ones; routes them."""
        names = self.names.assign(((up.name, up.config.prefix, t.name) for up, t in listed), startup=startup)
        tools: list[types.Tool] = []
        routes: dict[str, Route] = {}
        hidden: dict[str, str] = {}
        for up, tool in listed:
            exposed = names.get((up.name, tool.name))
            if exposed is None or exposed in routes:
                continue  # left out: its name belongs to another upstream
            if (up.name, tool.name) in changed:
                hidden[exposed] = up.name  # it keeps its name: no other upstream takes it meanwhile
                continue
            routes[exposed] = Route(up, tool.name, tool.input_schema)
            tools.append(tool.model_copy(update={"name": exposed}))
        self._tools, self._changed = routes, hidden
        return tools

    async def list_prompts(self) -> list[types.Prompt]:
        prompts: list[types.Prompt] = []
        routes: dict[str, Route] = {}
        for up in self.upstreams:
            if not self._offers(up, "prompts"):
                continue
            for prompt in await self._all(up, "list_prompts", "prompts"):
                exposed = up.config.prefix + prompt.name
                routes[exposed] = Route(up, prompt.name)
                prompts.append(prompt.model_copy(update={"name": exposed}))
        self._prompts = routes
        return prompts

    async def list_resources(self) -> list[types.Resource]:
        resources: list[types.Resource] = []
        owners: dict[str, Upstream] = {}
        for up in self.upstreams:
            if not self._offers(up, "resources"):
                continue
            for resource in await self._all(up, "list_resources", "resources"):
                owners.setdefault(str(resource.uri), up)
                resources.append(resource)
        self._resources = owners
        return resources

    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        templates: list[types.ResourceTemplate] = []
        for up in self.upstreams:
            if self._offers(up, "resources"):
                templates.extend(await self._all(up, "list_resource_templates", "resource_templates"))
        return templates

    def _offers(self, up: Upstream, capability: str) -> bool:
        caps = up.capabilities
        return caps is None or getattr(caps, capability, None) is not None

    async def _all(self, up: Upstream, method: str, field: str) -> list[Any]:
        """Every page of one listing."""
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(1000):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._upstream(up, method, params=params)
            items.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    # ---- reads ----------------------------------------------------------------------------

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None) -> types.GetPromptResult:
        route = self._prompts.get(name)
        if route is None:
            await self.list_prompts()
            route = self._prompts.get(name)
        if route is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {_shown(name)}")
        result: types.GetPromptResult = await self._upstream(
            route.upstream, "get_prompt", route.name, dict(arguments) if arguments else None
        )
        return result

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        owner = self._resources.get(uri)
        if owner is None:
            await self.list_resources()
            owner = self._resources.get(uri)
        candidates = [owner] if owner else [u for u in self.upstreams if self._offers(u, "resources")]
        last: MCPError | None = None
        for up in candidates:
            try:
                result: types.ReadResourceResult = await self._upstream(up, "read_resource", uri)
                return result
            except MCPError as exc:  # a template URI: ask the next upstream
                last = exc
        raise last or MCPError(types.INVALID_PARAMS, f"unknown resource {_shown(uri)}")

    async def _upstream(self, up: Upstream, method: str, *args: Any, **kw: Any) -> Any:
        try:
            return await up.call(method, *args, **kw)
        except UpstreamError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None

    # ---- the guarded call -----------------------------------------------------------------

    async def call_tool(
        self, principal: Principal, name: str, arguments: Mapping[str, Any] | None
    ) -> types.CallToolResult:
        route = self._tools.get(name)
        if route is None:
            await self.list_tools(principal)
            route = self._tools.get(name)
        if route is None and name in self._changed:
            return _refusal(_changed_text(name, self._changed[name]), {"outcome": "tool_changed"})
        if route is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {_shown(name)}")
        if await self.pins.changed(route.upstream.name, route.name):
            # Another gateway on the database saw it change since this one listed it.
            return _refusal(_changed_text(name, route.upstream.name), {"outcome": "tool_changed"})
        args = dict(arguments or {})
        if RESERVED in args:
            # The checked context carries {mcp: {server, tool}}; an argument of that name would hide from the
            # chain what the upstream then runs.
            return _refusal(f"the argument name {RESERVED!r} is reserved by the Outrider gateway", {})
        try:
            # What is checked is what runs: coerced and validated here, before the check, and never the
            # caller's original arguments after it.
            args = conform(route.schema, args)
        except ArgumentsRefused as exc:
            refused = {"outcome": "invalid_arguments", "argument": exc.argument}
            return _refusal(f"Outrider refused the arguments of {name!r}: {exc.message}", refused)
        guard = self._guard(principal, route, name)
        key = self._call_key(principal.agent_id, guard.action(name), args)
        try:
            decision, generation = await self._check(guard, name, args, key)
        except InvalidArgumentError as exc:
            return _refusal(f"Outrider refused to check this call: {exc.message}", {})
        except OutriderError as exc:
            # Fail closed: without an answer the tool does not run.
            raise MCPError(types.INTERNAL_ERROR, f"Outrider could not check this call: {exc.message}") from None
        if decision.pending:
            self._remember(key, generation)
            return _refusal(decision.message(), decision.meta())
        if decision.approval_id:
            # A person's decision was delivered (allowed once, or refused): the next identical call is a new
            # request, under the next generation.
            self._remember(key, generation + 1)
        if not decision.allowed:
            return _refusal(decision.message(), decision.meta())
        result: types.CallToolResult = await self._upstream(route.upstream, "call_tool", route.name, decision.arguments)
        meta = dict(result.meta or {})
        meta[META_KEY] = decision.meta()
        return result.model_copy(update={"meta": meta})

    def _guard(self, principal: Principal, route: Route, exposed: str) -> AsyncToolGuard:
        server, tool = route.upstream.name, route.name

        def action(_: str) -> str:
            return f"{server}.{tool}" if self.config.action == "upstream.tool" else exposed

        def context(_: str, args: Mapping[str, Any]) -> dict[str, Any]:
            return {**args, RESERVED: {"server": server, "tool": tool}}

        return AsyncToolGuard(
            principal.client, principal.agent_id, action=action, context=context, reserved=(RESERVED,)
        )

    async def _check(
        self, guard: AsyncToolGuard, name: str, args: Mapping[str, Any], key: str
    ) -> tuple[ToolDecision, int]:
        """CheckAction under the call's derived request id. An answer "approval apr_... was already used" (the
        proto's contract for a used approval's request id) means an earlier identical call got that approval's
        one allowed answer: the next generation is asked, until one is open or new. Cold (after a restart)
        that walks every used generation once, each a BLOCK in the decision log; warm it is one call."""
        generation = self._generation.get(key, 0)
        for _ in range(MAX_GENERATION_STEPS):
            decision = await guard.check(name, args, _request_id(key, generation), wait=self.config.approval_wait)
            if not _already_used(decision):
                return decision, generation
            generation += 1
        # A call approved this many times over: a fresh request, which a restart will not find again.
        rid = f"mcp-{key[:32]}-{secrets.token_hex(4)}"
        return await guard.check(name, args, rid, wait=self.config.approval_wait), generation

    def _call_key(self, agent_id: str, action: str, args: Mapping[str, Any]) -> str:
        try:
            text = canonical_json([agent_id, action, args])
        except ValueError:
            text = repr((agent_id, action, sorted(args.items())))
        return hashlib.sha256(text.encode()).hexdigest()

    def _remember(self, key: str, generation: int) -> None:
        self._generation[key] = generation
        self._generation.move_to_end(key)
        while len(self._generation) > MAX_PENDING:
            self._generation.popitem(last=False)

    async def _always_denied(self, principal: Principal, route: Route, exposed: str) -> bool:
        guard = self._guard(principal, route, exposed)
        return await self.principals.always_denied(
            principal, guard.action(exposed), {RESERVED: {"server": route.upstream.name, "tool": route.name}}
        )

    async def close(self) -> None:
        for up in self.upstreams:
            await up.close()
        self.pins.close()


def _request_id(key: str, generation: int) -> str:
    """The request id of a call (agent, action, arguments): derived, so a retried call, from this gateway
    process or a restarted one, re-attaches to the same approval request."""
    return f"mcp-{key[:40]}" if generation == 0 else f"mcp-{key[:40]}-{generation}"


def _shown(name: str, limit: int = 200) -> str:
    """A caller's name quoted back to it, cut short: an agent's 100 kB name is not echoed whole."""
    return repr(name) if len(name) <= limit else repr(name[:limit]) + f"... ({len(name)} characters)"


def _changed_text(name: str, upstream: str) -> str:
    return (
        f"Outrider hid the tool {name!r}: upstream {upstream!r} changed its description or inputSchema since it "
        "was pinned; an operator must accept the change (outrider gateway tools accept)"
    )


def _already_used(decision: ToolDecision) -> bool:
    return (
        decision.outcome == "blocked"
        and decision.approval_state == "APPROVED"
        and decision.reason.startswith(f"approval {decision.approval_id} was already used")
    )


def _refusal(text: str, meta: dict[str, Any]) -> types.CallToolResult:
    result = types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    return result.model_copy(update={"meta": {META_KEY: meta}}) if meta else result


def build_mcp_server(gateway: Gateway) -> Server[Any]:
    async def principal(ctx: ServerRequestContext[Any, Any]) -> Principal:
        return await gateway.principals.resolve(ctx)

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await gateway.list_tools(await principal(ctx)))

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
        # The client's trace (a traceparent in _meta) goes on to the sidecar with the CheckAction.
        token = otel_context.attach(propagate.extract(dict(params.meta))) if params.meta else None
        try:
            return await gateway.call_tool(await principal(ctx), params.name, params.arguments)
        finally:
            if token is not None:
                otel_context.detach(token)

    async def list_prompts(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListPromptsResult:
        await principal(ctx)
        return types.ListPromptsResult(prompts=await gateway.list_prompts())

    async def get_prompt(ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams) -> Any:
        await principal(ctx)
        return await gateway.get_prompt(params.name, params.arguments)

    async def list_resources(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListResourcesResult:
        await principal(ctx)
        return types.ListResourcesResult(resources=await gateway.list_resources())

    async def list_templates(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListResourceTemplatesResult:
        await principal(ctx)
        return types.ListResourceTemplatesResult(resource_templates=await gateway.list_resource_templates())

    async def read_resource(ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams) -> Any:
        await principal(ctx)
        return await gateway.read_resource(str(params.uri))

    return Server(
        "outrider-mcp-gateway",
        version="0.1.0",
        instructions="Tools behind Outrider: a refused call says why; a call waiting for a person says to call again.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


__all__ = ["Gateway", "ToolDecision", "build_mcp_server"]
