"""Small request builders and assertions shared by the adversarial tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.rpc import error_info


def agent(agent_id: str, group: str = "", capabilities: tuple[str, ...] = (), **labels: str) -> pb.RegisterAgentRequest:
    return pb.RegisterAgentRequest(
        agent=common_pb2.Agent(agent_id=agent_id, group=group, capabilities=list(capabilities), labels=labels)
    )


def refused(call: Callable[[], Any], code: grpc.StatusCode = grpc.StatusCode.PERMISSION_DENIED) -> Any:
    """Run `call`, which must fail with `code`; returns its google.rpc.ErrorInfo."""
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == code, err.value.details()
    return error_info(err.value)
