"""SupervisorService over gRPC: translate, delegate to the services, translate back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, TypeAlias

from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc
from server.domain.decisions import DecisionFilter
from server.domain.errors import Unimplemented
from server.services.agents import AgentService
from server.services.decision_log import DecisionLog
from server.services.supervisor import SupervisorService

from . import convert
from .auth import current_principal
from .errors import translate_errors

# grpc ships no type stubs: the servicer context is untyped.
Ctx: TypeAlias = Any

_APPROVALS = "human approvals (the hitl guardrail) are not available in this version"


@translate_errors
class SupervisorServicer(pb_grpc.SupervisorServiceServicer):
    def __init__(self, supervisor: SupervisorService, agents: AgentService, decisions: DecisionLog) -> None:
        self.supervisor = supervisor
        self.agents = agents
        self.decisions = decisions

    # ---- agents ----------------------------------------------------------------------------

    async def RegisterAgent(self, request: pb.RegisterAgentRequest, context: Ctx) -> pb.RegisterAgentResponse:
        a = request.agent
        agent, created = await asyncio.to_thread(
            self.agents.register, a.agent_id, a.group, list(a.capabilities), dict(a.labels)
        )
        return pb.RegisterAgentResponse(agent=convert.agent_to_pb(agent), created=created)

    async def DeregisterAgent(self, request: pb.DeregisterAgentRequest, context: Ctx) -> pb.DeregisterAgentResponse:
        await asyncio.to_thread(self.agents.deregister, request.agent_id)
        return pb.DeregisterAgentResponse()

    async def GetAgent(self, request: pb.GetAgentRequest, context: Ctx) -> pb.GetAgentResponse:
        agent = await asyncio.to_thread(self.agents.get, request.agent_id)
        return pb.GetAgentResponse(agent=convert.agent_to_pb(agent))

    async def ListAgents(self, request: pb.ListAgentsRequest, context: Ctx) -> pb.ListAgentsResponse:
        page = await asyncio.to_thread(self.agents.list, request.group, request.page_size, request.page_token)
        return pb.ListAgentsResponse(
            agents=[convert.agent_to_pb(a) for a in page.items], next_page_token=page.next_page_token
        )

    # ---- the chain -------------------------------------------------------------------------

    async def CheckAction(self, request: pb.CheckActionRequest, context: Ctx) -> pb.CheckActionResponse:
        # Checked before converting, so an oversized context costs no parsing.
        self.supervisor.validate_check(request.agent_id, request.action, request.context.ByteSize())
        checked = await self.supervisor.check_action(
            request.agent_id,
            request.action,
            convert.struct_to_dict(request.context),
            dict(request.binary_context),
            request.request_id,
        )
        v = checked.verdict
        return pb.CheckActionResponse(
            allowed=v.allowed,
            reason=v.reason,
            severity=int(v.severity),  # type: ignore[arg-type]
            guardrail=v.guardrail,
            decision_id=checked.decision_id,
            warnings=convert.warnings_to_pb(v.warnings),
            effective_context=request.context,
        )

    async def AddGuardrail(self, request: pb.AddGuardrailRequest, context: Ctx) -> pb.AddGuardrailResponse:
        g = request.guardrail
        spec, position = await asyncio.to_thread(
            self.supervisor.add_guardrail, g.name, g.kind, convert.struct_to_dict(g.options), current_principal().label
        )
        return pb.AddGuardrailResponse(guardrail=convert.guardrail_to_pb(spec), position=position)

    async def RemoveGuardrail(self, request: pb.RemoveGuardrailRequest, context: Ctx) -> pb.RemoveGuardrailResponse:
        removed = await asyncio.to_thread(self.supervisor.remove_guardrail, request.name, current_principal().label)
        return pb.RemoveGuardrailResponse(removed_count=removed)

    async def ListGuardrails(self, request: pb.ListGuardrailsRequest, context: Ctx) -> pb.ListGuardrailsResponse:
        return pb.ListGuardrailsResponse(
            guardrails=[convert.guardrail_to_pb(s) for s in self.supervisor.list_guardrails()]
        )

    async def ReloadPolicy(self, request: pb.ReloadPolicyRequest, context: Ctx) -> pb.ReloadPolicyResponse:
        count, source = await asyncio.to_thread(self.supervisor.reload, current_principal().label)
        return pb.ReloadPolicyResponse(guardrail_count=count, source=source)

    async def ListDecisions(self, request: pb.ListDecisionsRequest, context: Ctx) -> pb.ListDecisionsResponse:
        flt = DecisionFilter(
            agent_id=request.agent_id,
            action=request.action,
            outcome=request.outcome,
            guardrail=request.guardrail,
            start_time=convert.from_timestamp(request.start_time, request.HasField("start_time")),
            end_time=convert.from_timestamp(request.end_time, request.HasField("end_time")),
        )
        page = await asyncio.to_thread(self.decisions.list, flt, request.page_size, request.page_token)
        return pb.ListDecisionsResponse(
            decisions=[convert.decision_to_pb(d) for d in page.items], next_page_token=page.next_page_token
        )

    # ---- approvals: reserved until the hitl guardrail lands --------------------------------

    async def GetApproval(self, request: pb.GetApprovalRequest, context: Ctx) -> pb.GetApprovalResponse:
        raise Unimplemented(_APPROVALS)

    async def WatchApproval(
        self, request: pb.WatchApprovalRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchApprovalResponse]:
        raise Unimplemented(_APPROVALS)
        yield  # an async generator, as a server-streaming handler

    async def ListApprovals(self, request: pb.ListApprovalsRequest, context: Ctx) -> pb.ListApprovalsResponse:
        raise Unimplemented(_APPROVALS)

    async def DecideApproval(self, request: pb.DecideApprovalRequest, context: Ctx) -> pb.DecideApprovalResponse:
        raise Unimplemented(_APPROVALS)

    async def CancelApproval(self, request: pb.CancelApprovalRequest, context: Ctx) -> pb.CancelApprovalResponse:
        raise Unimplemented(_APPROVALS)

    async def AddApprovalPattern(
        self, request: pb.AddApprovalPatternRequest, context: Ctx
    ) -> pb.AddApprovalPatternResponse:
        raise Unimplemented(_APPROVALS)

    async def RemoveApprovalPattern(
        self, request: pb.RemoveApprovalPatternRequest, context: Ctx
    ) -> pb.RemoveApprovalPatternResponse:
        raise Unimplemented(_APPROVALS)
