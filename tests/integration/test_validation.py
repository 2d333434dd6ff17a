"""Bad input gets INVALID_ARGUMENT naming the field; nothing leaks a traceback."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb

from .harness import RunningSidecar
from .rpc import check, error_info


@pytest.mark.parametrize(
    "request_, field",
    [
        (check(agent_id=""), "agent_id"),
        (check(action=""), "action"),
        (check(agent_id="x" * 129), "agent_id"),
        (check(agent_id="bad id with spaces"), "agent_id"),
        (check(action="a" * 1025), "action"),
    ],
)
def test_check_action_validation(sidecar: RunningSidecar, request_: pb.CheckActionRequest, field: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.CheckAction(request_)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field in (err.value.details() or "")
    info = error_info(err.value)
    assert (info.reason, info.domain, info.metadata["field"]) == ("INVALID_FIELD", "outrider.dev", field)


def test_oversized_context_is_rejected(tmp_path: object) -> None:
    from pathlib import Path

    from .harness import make_config

    with RunningSidecar(make_config(Path(str(tmp_path)), max_context_bytes=1000)) as s:
        assert s.stub.CheckAction(check(context={"blob": "x" * 900})).allowed
        with pytest.raises(grpc.RpcError) as err:
            s.stub.CheckAction(check(context={"blob": "x" * 1100}))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "over the limit of 1000" in (err.value.details() or "")


def test_register_validation_and_not_found(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="")))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "agent.agent_id" in (err.value.details() or "")
    for call, req in (
        (sidecar.stub.GetAgent, pb.GetAgentRequest(agent_id="ghost")),
        (sidecar.stub.DeregisterAgent, pb.DeregisterAgentRequest(agent_id="ghost")),
    ):
        with pytest.raises(grpc.RpcError) as err:
            call(req)
        assert err.value.code() == grpc.StatusCode.NOT_FOUND and "ghost" in (err.value.details() or "")


def test_bad_page_token_and_size(sidecar: RunningSidecar) -> None:
    for req in (pb.ListAgentsRequest(page_token="!!not-a-token"), pb.ListAgentsRequest(page_size=-1)):
        with pytest.raises(grpc.RpcError) as err:
            sidecar.stub.ListAgents(req)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.ListDecisions(pb.ListDecisionsRequest(outcome="maybe"))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "outcome" in (err.value.details() or "")


def test_unknown_approval_is_not_found(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.GetApproval(pb.GetApprovalRequest(approval_id="a"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
