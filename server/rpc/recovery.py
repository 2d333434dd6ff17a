"""RecoveryService over gRPC: translate, delegate to the recovery feature's services, translate back."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, TypeAlias

from outrider.v1 import recovery_pb2
from outrider.v1 import recovery_service_pb2 as pb
from outrider.v1 import recovery_service_pb2_grpc as pb_grpc
from server.domain.agents import validate_id
from server.domain.errors import InvalidArgument, NotFound, OutriderError
from server.domain.recovery.cascade import CascadeAction
from server.domain.recovery.events import EventFilter
from server.domain.recovery.kill import KillFilter, KillReason
from server.domain.recovery.ladder import HistoryFilter, RecoveryAction, RecoveryTrigger
from server.rpc import convert
from server.rpc import recovery_convert as rc
from server.rpc.auth import current_principal
from server.rpc.convert import DEFAULT_LIMITS, EdgeLimits, timestamp
from server.rpc.errors import translate_errors
from server.services.idempotency import answer_with
from server.services.recovery.agents import AgentService
from server.services.recovery.control_channel import Connection, StreamEnd
from server.services.recovery.feature import RecoveryFeature

log = logging.getLogger(__name__)

# grpc ships no type stubs: the servicer context is untyped.
Ctx: TypeAlias = Any
MAX_TEXT = 4096
_WATCH_BATCH = 500


def _enum(cls: Any, value: int, field: str) -> Any:
    """A domain enum from a protobuf enum value; 0 (UNSPECIFIED) gives None."""
    if not value:
        return None
    try:
        return cls(value)
    except ValueError:
        raise InvalidArgument(f"{field}: unknown value {value}", field=field) from None


def _text(value: str, field: str) -> str:
    if len(value) > MAX_TEXT:
        raise InvalidArgument(f"{field} must be at most {MAX_TEXT} characters", field=field)
    return value


@translate_errors
class RecoveryServicer(pb_grpc.RecoveryServiceServicer):
    def __init__(self, feature: RecoveryFeature, agents: AgentService, limits: EdgeLimits = DEFAULT_LIMITS) -> None:
        self.f = feature
        self.agents = agents
        self.limits = limits

    # ---- the control channel -----------------------------------------------------------------

    async def Attach(self, request_iterator: Any, context: Ctx) -> AsyncIterator[pb.AttachResponse]:
        requests = request_iterator.__aiter__()
        try:
            first = await requests.__anext__()
        except StopAsyncIteration:
            raise InvalidArgument("send an AttachHello first", field="hello") from None
        if first.WhichOneof("body") != "hello":
            raise InvalidArgument("the first message on the stream must be a hello", field="hello")
        hello = first.hello
        agent_id = validate_id(hello.agent_id, "hello.agent_id")
        if self.agents.group_of(agent_id) is None and not await asyncio.to_thread(self.agents.known, agent_id):
            raise NotFound(f"agent {agent_id!r} is not registered (RegisterAgent first)", field="hello.agent_id")
        conn = self.f.hub.connect(agent_id, hello.instance_id[:256], hello.client[:256])
        reader = asyncio.get_running_loop().create_task(self._read(requests, conn))
        try:
            await self.f.hub.record_attach(conn)  # in a fleet: routable from every sidecar once accepted
            spec = self.f.health.spec(agent_id)
            yield pb.AttachResponse(
                accepted=recovery_pb2.AttachAccepted(
                    agent_id=agent_id,
                    heartbeat_interval=convert.duration(spec.heartbeat_interval if spec else None),
                    server_time=timestamp(self.f.hub.clock.utcnow()),
                )
            )
            while True:
                item = await conn.queue.get()
                if isinstance(item, StreamEnd):
                    if item.error is not None:
                        raise item.error
                    return
                yield pb.AttachResponse(command=rc.command_to_pb(item))
        finally:
            reader.cancel()
            self.f.hub.disconnect(conn)

    async def _read(self, requests: Any, conn: Connection) -> None:
        try:
            async for message in requests:
                body = message.WhichOneof("body")
                if body == "ack":
                    self.f.hub.ack(conn, message.ack.command_id, message.ack.outcome, message.ack.detail[:1024])
                elif body == "heartbeat":
                    self.f.hub.touch(conn.agent_id)
                elif body == "hello":
                    conn.end(InvalidArgument("a second hello on the same stream", field="hello"))
                    return
            conn.end()  # the agent closed its side: the stream ends normally
        except asyncio.CancelledError:
            raise
        except OutriderError as exc:  # e.g. a message naming another agent (PERMISSION_DENIED)
            conn.end(exc)
        except Exception:
            log.debug("attach stream read ended", exc_info=True)
            conn.end()

    async def Heartbeat(self, request: pb.HeartbeatRequest, context: Ctx) -> pb.HeartbeatResponse:
        agent_id = validate_id(request.agent_id, "agent_id")
        if self.agents.group_of(agent_id) is None:
            raise NotFound(f"agent {agent_id!r} is not registered", field="agent_id")
        self.f.hub.touch(agent_id)
        spec = self.f.health.spec(agent_id)
        return pb.HeartbeatResponse(
            receive_time=timestamp(self.f.hub.clock.utcnow()),
            heartbeat_interval=convert.duration(spec.heartbeat_interval if spec else None),
        )

    # ---- health checks -----------------------------------------------------------------------

    async def AddHealthCheck(self, request: pb.AddHealthCheckRequest, context: Ctx) -> pb.AddHealthCheckResponse:
        validate_id(request.agent_id, "agent_id")
        spec = rc.check_from_pb(request.check)
        # The idempotency record of each call below is written in the transaction of its change, with its
        # answer (a retry after a lost answer gets it and changes nothing).
        answer_with(
            lambda replaced: pb.AddHealthCheckResponse(
                agent_id=request.agent_id, check=rc.check_to_pb(spec), replaced=replaced
            ).SerializeToString()
        )
        replaced = await asyncio.to_thread(self.f.health.add, request.agent_id, spec, current_principal().label)
        return pb.AddHealthCheckResponse(agent_id=request.agent_id, check=rc.check_to_pb(spec), replaced=replaced)

    async def RemoveHealthCheck(
        self, request: pb.RemoveHealthCheckRequest, context: Ctx
    ) -> pb.RemoveHealthCheckResponse:
        answer_with(lambda _: pb.RemoveHealthCheckResponse().SerializeToString())
        await asyncio.to_thread(self.f.health.remove, request.agent_id, current_principal().label)
        return pb.RemoveHealthCheckResponse()

    async def StartMonitoring(self, request: pb.StartMonitoringRequest, context: Ctx) -> pb.StartMonitoringResponse:
        interval = convert.seconds(request, "interval")
        answer_with(lambda st: pb.StartMonitoringResponse(state=rc.monitoring_to_pb(st)).SerializeToString())
        state = await asyncio.to_thread(self.f.recovery.start_monitoring, interval, current_principal().label)
        return pb.StartMonitoringResponse(state=rc.monitoring_to_pb(state))

    async def StopMonitoring(self, request: pb.StopMonitoringRequest, context: Ctx) -> pb.StopMonitoringResponse:
        answer_with(lambda st: pb.StopMonitoringResponse(state=rc.monitoring_to_pb(st)).SerializeToString())
        state = await asyncio.to_thread(self.f.recovery.stop_monitoring, current_principal().label)
        return pb.StopMonitoringResponse(state=rc.monitoring_to_pb(state))

    async def GetMonitoringState(
        self, request: pb.GetMonitoringStateRequest, context: Ctx
    ) -> pb.GetMonitoringStateResponse:
        return pb.GetMonitoringStateResponse(state=rc.monitoring_to_pb(self.f.recovery.monitoring_state()))

    async def RunHealthChecks(self, request: pb.RunHealthChecksRequest, context: Ctx) -> pb.RunHealthChecksResponse:
        # Answered after the run (its idempotency record follows it); see run_health_checks for a retry.
        statuses, recoveries = await self.f.recovery.run_health_checks(
            request.group, request.request_id, current_principal().label
        )
        return pb.RunHealthChecksResponse(
            statuses=[rc.status_to_pb(s) for s in statuses], recoveries=[rc.result_to_pb(r) for r in recoveries]
        )

    async def GetAgentRecoveryStatus(
        self, request: pb.GetAgentRecoveryStatusRequest, context: Ctx
    ) -> pb.GetAgentRecoveryStatusResponse:
        status = await asyncio.to_thread(self.f.recovery.status, request.agent_id)
        return pb.GetAgentRecoveryStatusResponse(status=rc.agent_status_to_pb(status))

    async def ListAgentRecoveryStatuses(
        self, request: pb.ListAgentRecoveryStatusesRequest, context: Ctx
    ) -> pb.ListAgentRecoveryStatusesResponse:
        page = await asyncio.to_thread(
            self.f.recovery.list_statuses, request.group, request.page_size, request.page_token
        )
        return pb.ListAgentRecoveryStatusesResponse(
            statuses=[rc.agent_status_to_pb(s) for s in page.items], next_page_token=page.next_page_token
        )

    # ---- recovery ------------------------------------------------------------------------------

    async def TriggerRecovery(self, request: pb.TriggerRecoveryRequest, context: Ctx) -> pb.TriggerRecoveryResponse:
        result = await self.f.recovery.trigger(
            request.agent_id,
            _text(request.reason, "reason"),
            RecoveryTrigger.MANUAL,
            request.request_id,
            current_principal().label,
        )
        return pb.TriggerRecoveryResponse(result=rc.result_to_pb(result))

    async def SetRecoveryPolicy(
        self, request: pb.SetRecoveryPolicyRequest, context: Ctx
    ) -> pb.SetRecoveryPolicyResponse:
        p = request.policy
        answer_with(lambda policy: pb.SetRecoveryPolicyResponse(policy=rc.policy_to_pb(policy)).SerializeToString())
        policy = await asyncio.to_thread(
            self.f.recovery.set_policy,
            p.group,
            p.max_retries if p.HasField("max_retries") else None,
            p.escalate_after if p.HasField("escalate_after") else None,
            convert.seconds(p, "cooldown"),
            _enum(RecoveryAction, p.default_action, "policy.default_action"),
            current_principal().label,
        )
        return pb.SetRecoveryPolicyResponse(policy=rc.policy_to_pb(policy))

    async def GetRecoveryPolicy(
        self, request: pb.GetRecoveryPolicyRequest, context: Ctx
    ) -> pb.GetRecoveryPolicyResponse:
        if request.group:
            validate_id(request.group, "group")
        return pb.GetRecoveryPolicyResponse(policy=rc.policy_to_pb(self.f.recovery.policy_for(request.group)))

    async def ListRecoveryPolicies(
        self, request: pb.ListRecoveryPoliciesRequest, context: Ctx
    ) -> pb.ListRecoveryPoliciesResponse:
        page = self.f.recovery.list_policies(request.page_size, request.page_token)
        return pb.ListRecoveryPoliciesResponse(
            policies=[rc.policy_to_pb(p) for p in page.items], next_page_token=page.next_page_token
        )

    async def ResetRetryCounter(
        self, request: pb.ResetRetryCounterRequest, context: Ctx
    ) -> pb.ResetRetryCounterResponse:
        answer_with(lambda n: pb.ResetRetryCounterResponse(previous_retry_count=n).SerializeToString())
        previous = await asyncio.to_thread(
            self.f.recovery.reset_retry_counter, request.agent_id, current_principal().label
        )
        return pb.ResetRetryCounterResponse(previous_retry_count=previous)

    async def GetRecoveryHistory(
        self, request: pb.GetRecoveryHistoryRequest, context: Ctx
    ) -> pb.GetRecoveryHistoryResponse:
        flt = HistoryFilter(
            agent_id=request.agent_id,
            group=request.group,
            action=_enum(RecoveryAction, request.action_taken, "action_taken"),
            trigger=_enum(RecoveryTrigger, request.trigger, "trigger"),
            start_time=rc.time_or_none(request, "start_time"),
            end_time=rc.time_or_none(request, "end_time"),
        )
        page = await asyncio.to_thread(self.f.recovery.history, flt, request.page_size, request.page_token)
        return pb.GetRecoveryHistoryResponse(
            results=[rc.result_to_pb(r) for r in page.items], next_page_token=page.next_page_token
        )

    async def GetRetryCount(self, request: pb.GetRetryCountRequest, context: Ctx) -> pb.GetRetryCountResponse:
        return pb.GetRetryCountResponse(retry_count=self.f.recovery.retry_count(request.agent_id))

    # ---- kill switch ----------------------------------------------------------------------------

    async def Kill(self, request: pb.KillRequest, context: Ctx) -> pb.KillResponse:
        reason = _enum(KillReason, request.reason, "reason")
        if reason is None:
            raise InvalidArgument("reason is required (one of the six kill reasons)", field="reason")
        result = await self.f.kills.kill(
            request.agent_id,
            request.session_id,
            reason,
            [rc.step_from_pb(s, f"in_flight_steps[{i}]", self.limits) for i, s in enumerate(request.in_flight_steps)],
            _text(request.details, "details"),
            callback_timeout=convert.seconds(request, "callback_timeout"),
            handoff_timeout=convert.seconds(request, "handoff_timeout"),
            request_id=request.request_id,
            actor=current_principal().label,
        )
        return pb.KillResponse(result=rc.kill_to_pb(result))

    async def ReinstateAgent(self, request: pb.ReinstateAgentRequest, context: Ctx) -> pb.ReinstateAgentResponse:
        answer_with(
            lambda c: pb.ReinstateAgentResponse(
                agent_id=c.agent_id, previous_standing=c.standing.value, kill_id=c.kill_id
            ).SerializeToString()
        )
        lifted = await asyncio.to_thread(
            self.agents.reinstate, request.agent_id, _text(request.reason, "reason"), current_principal().label
        )
        return pb.ReinstateAgentResponse(
            agent_id=lifted.agent_id, previous_standing=lifted.standing.value, kill_id=lifted.kill_id
        )

    async def GetKill(self, request: pb.GetKillRequest, context: Ctx) -> pb.GetKillResponse:
        result = await asyncio.to_thread(self.f.kills.get, request.kill_id)
        return pb.GetKillResponse(result=rc.kill_to_pb(result))

    async def ListKills(self, request: pb.ListKillsRequest, context: Ctx) -> pb.ListKillsResponse:
        flt = KillFilter(
            agent_id=request.agent_id,
            session_id=request.session_id,
            reason=_enum(KillReason, request.reason, "reason"),
            start_time=rc.time_or_none(request, "start_time"),
            end_time=rc.time_or_none(request, "end_time"),
        )
        page = await asyncio.to_thread(self.f.kills.list, flt, request.page_size, request.page_token)
        return pb.ListKillsResponse(kills=[rc.kill_to_pb(k) for k in page.items], next_page_token=page.next_page_token)

    async def RegisterSubstitute(
        self, request: pb.RegisterSubstituteRequest, context: Ctx
    ) -> pb.RegisterSubstituteResponse:
        scope, scope_id = rc.scope_from_pb(request)
        sub = await asyncio.to_thread(
            self.f.substitutes.register,
            scope,
            scope_id,
            request.agent_id,
            request.request_id,
            current_principal().label,
        )
        return pb.RegisterSubstituteResponse(substitute=rc.substitute_to_pb(sub))

    async def DeregisterSubstitute(
        self, request: pb.DeregisterSubstituteRequest, context: Ctx
    ) -> pb.DeregisterSubstituteResponse:
        scope, scope_id = rc.scope_from_pb(request)
        answer_with(lambda _: pb.DeregisterSubstituteResponse().SerializeToString())
        await asyncio.to_thread(
            self.f.substitutes.deregister, scope, scope_id, request.agent_id, current_principal().label
        )
        return pb.DeregisterSubstituteResponse()

    async def ListSubstitutes(self, request: pb.ListSubstitutesRequest, context: Ctx) -> pb.ListSubstitutesResponse:
        scope, scope_id = rc.scope_from_pb(request)
        page = self.f.substitutes.list(scope, scope_id, request.page_size, request.page_token)
        return pb.ListSubstitutesResponse(
            substitutes=[rc.substitute_to_pb(s) for s in page.items], next_page_token=page.next_page_token
        )

    # ---- cascades -------------------------------------------------------------------------------

    async def ReportFailure(self, request: pb.ReportFailureRequest, context: Ctx) -> pb.ReportFailureResponse:
        # A failure that completes no cascade is remembered in the transaction that records it, with this answer.
        answer_with(lambda failure: pb.ReportFailureResponse(failure=rc.failure_to_pb(failure)).SerializeToString())
        failure, cascade = await self.f.cascade.report_failure(
            request.from_agent,
            request.to_agent,
            request.detail,
            request_id=request.request_id,
            actor=current_principal().label,
            reporter=current_principal().label,
        )
        return pb.ReportFailureResponse(
            failure=rc.failure_to_pb(failure), cascade=rc.cascade_to_pb(cascade) if cascade else None
        )

    async def GetCascadePolicy(self, request: pb.GetCascadePolicyRequest, context: Ctx) -> pb.GetCascadePolicyResponse:
        return pb.GetCascadePolicyResponse(policy=rc.cascade_policy_to_pb(self.f.cascade.policy))

    async def SetCascadePolicy(self, request: pb.SetCascadePolicyRequest, context: Ctx) -> pb.SetCascadePolicyResponse:
        p = request.policy
        if p.threshold < 0:
            raise InvalidArgument("policy.threshold must be 1 or more", field="policy.threshold")
        answer_with(lambda cp: pb.SetCascadePolicyResponse(policy=rc.cascade_policy_to_pb(cp)).SerializeToString())
        policy = await asyncio.to_thread(
            self.f.cascade.set_policy,
            convert.seconds(p, "window"),
            p.threshold or None,
            _enum(CascadeAction, p.action, "policy.action"),
            _enum(KillReason, p.kill_reason, "policy.kill_reason"),
            current_principal().label,
        )
        return pb.SetCascadePolicyResponse(policy=rc.cascade_policy_to_pb(policy))

    # ---- events ---------------------------------------------------------------------------------

    async def WatchRecoveryEvents(
        self, request: pb.WatchRecoveryEventsRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchRecoveryEventsResponse]:
        if request.agent_id:
            validate_id(request.agent_id, "agent_id")
        flt = EventFilter(types=rc.event_types(request.types), agent_id=request.agent_id)
        events = self.f.events
        # Caught up first (a database read, off the loop), the snapshot is the newest sequence stored
        # fleet-wide: a cursor another sidecar handed out is never "ahead" here.
        await asyncio.to_thread(events.catch_up)
        sub = events.subscribe()
        try:
            if request.HasField("start_cursor"):
                await asyncio.to_thread(events.check_cursor, request.start_cursor, sub.snapshot)
                cursor = request.start_cursor
                while True:
                    batch = await asyncio.to_thread(events.stored_after, cursor, sub.snapshot, flt, _WATCH_BATCH)
                    for event in batch:
                        yield pb.WatchRecoveryEventsResponse(event=rc.event_to_pb(event))
                    if len(batch) < _WATCH_BATCH:
                        break
                    cursor = batch[-1].sequence
            while True:
                event = await sub.next()
                if event.sequence > sub.snapshot and flt.matches(event):
                    yield pb.WatchRecoveryEventsResponse(event=rc.event_to_pb(event))
        finally:
            events.unsubscribe(sub)

    async def ListRecoveryEvents(
        self, request: pb.ListRecoveryEventsRequest, context: Ctx
    ) -> pb.ListRecoveryEventsResponse:
        flt = EventFilter(
            types=rc.event_types(request.types),
            agent_id=request.agent_id,
            start_time=rc.time_or_none(request, "start_time"),
            end_time=rc.time_or_none(request, "end_time"),
        )
        latest = await asyncio.to_thread(self.f.events.stored_latest)
        page = await asyncio.to_thread(self.f.events.list, flt, request.page_size, request.page_token)
        return pb.ListRecoveryEventsResponse(
            events=[rc.event_to_pb(e) for e in page.items], next_page_token=page.next_page_token, latest_sequence=latest
        )
